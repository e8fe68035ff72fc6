/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl's side of realtimed's D-Bus API (org.realtimed.Realtime1,
 * daemon/org.realtimed.Realtime1.xml) over libdbus on the system bus. The
 * helpers here report failures themselves (once, with what to do) and
 * return realtimectl exit statuses, so verbs just pass them on.
 */
#pragma once

#include <stdbool.h>

#include <dbus/dbus.h>

static inline void bus_message_unrefp(DBusMessage **m)
{
	if (*m)
		dbus_message_unref(*m);
	*m = NULL;
}
#define _cleanup_bus_message_ __attribute__((cleanup(bus_message_unrefp)))

/* Private connections are closed and released. */
static inline void bus_connection_closep(DBusConnection **c)
{
	if (*c) {
		dbus_connection_close(*c);
		dbus_connection_unref(*c);
	}
	*c = NULL;
}
#define _cleanup_bus_connection_ __attribute__((cleanup(bus_connection_closep)))

/* Opens a private connection to the system bus (DBUS_SYSTEM_BUS_ADDRESS is
 * honoured). Returns 0, or CTL_EXIT_UNREACHABLE after saying why. */
int bus_open(DBusConnection **ret);

/* Calls method on realtimed with the arguments given as for
 * dbus_message_append_args() (DBUS_TYPE_INVALID-terminated). what names the
 * action for the error message ("make 123/123 SCHED_FIFO 50").
 * interactive: polkit may ask for a password (set on Reload). Returns 0 and
 * the reply, or the exit status for the error after printing it. */
int bus_call(DBusConnection *c, const char *method, const char *what, bool interactive,
	     DBusMessage **ret_reply, int first_arg_type, ...);

/* 0 if realtimed's reply has the signature, else CTL_EXIT_FAILED after
 * saying so. (daemon/bus.h's bus_check_signature() checks a request.) */
int bus_check_reply_signature(DBusMessage *reply, const char *signature);
