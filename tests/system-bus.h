/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system-bus connection of the test and bench clients (rt-client,
 * demoted-listen, bus-fuzz, the benches of bench/), header-only because the
 * benches are built by their scripts with a bare cc line.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* A private connection to the system bus, or NULL after printing "WHO:
 * cannot connect to the system bus: WHY" on stderr. libdbus's default
 * stands: the process exits when the bus goes away. */
static inline DBusConnection *system_bus_open(const char *who)
{
	DBusConnection *bus;
	DBusError err;

	dbus_error_init(&err);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
	if (!bus) {
		fprintf(stderr, "%s: cannot connect to the system bus: %s\n", who, err.message);
		dbus_error_free(&err);
	}
	return bus;
}

/* A method call to dest's path with the arguments that follow (as
 * dbus_message_append_args(), ending in DBUS_TYPE_INVALID); aborts when
 * out of memory. */
static inline DBusMessage *bus_method(const char *dest, const char *path, const char *iface,
				      const char *member, int first_type, ...)
{
	DBusMessage *m = dbus_message_new_method_call(dest, path, iface, member);
	va_list ap;
	bool ok;

	if (!m)
		abort();
	va_start(ap, first_type);
	ok = dbus_message_append_args_valist(m, first_type, ap);
	va_end(ap);
	if (!ok)
		abort();
	return m;
}

/* Sends m, unrefs it and waits up to timeout_ms for the answer: true on a
 * method return, else false with the error in *ret_error, which the caller
 * frees with dbus_error_free(). */
static inline bool bus_call(DBusConnection *bus, DBusMessage *m, int timeout_ms,
			    DBusError *ret_error)
{
	DBusMessage *reply;

	dbus_error_init(ret_error);
	reply = dbus_connection_send_with_reply_and_block(bus, m, timeout_ms, ret_error);
	dbus_message_unref(m);
	if (!reply)
		return false;
	dbus_message_unref(reply);
	return true;
}
