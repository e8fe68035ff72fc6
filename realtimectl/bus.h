/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl's side of realtimed's D-Bus API (org.realtimed.Realtime1,
 * daemon/org.realtimed.Realtime1.xml) over libdbus on the system bus. The
 * helpers here report failures themselves (once, with what to do) and
 * return realtimectl exit statuses, so verbs just pass them on.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

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
 * interactive: polkit may ask for a password (Reload, another user's
 * policy, every user's grants), so a text agent runs meanwhile on a
 * terminal. signature: what the reply must hold (NULL: anything), else
 * realtimectl and realtimed are of different versions. Returns 0 and the
 * reply, or the exit status for the error after printing it. */
int bus_call(DBusConnection *c, const char *method, const char *what, bool interactive,
	     const char *signature, DBusMessage **ret_reply, int first_arg_type, ...);
/* The same over a connection of its own (bus_open()), for a verb that
 * calls realtimed once; the reply outlives the connection. */
int bus_call_once(const char *method, const char *what, bool interactive, const char *signature,
		  DBusMessage **ret_reply, int first_arg_type, ...);

/* MakeThreadRealtime (policy "fifo" or "rr") and MakeThreadHighPriority of
 * pid/tid (0/0: the caller's main thread), through bus_call(). */
int bus_make_thread_realtime(DBusConnection *c, uint64_t pid, uint64_t tid, const char *policy,
			     int priority, const char *what);
int bus_make_thread_high_priority(DBusConnection *c, uint64_t pid, uint64_t tid, int nice,
				  const char *what);

/* Reads the dict entry of Explain's a{s(ss)} at it (key, value, source)
 * and moves it to the next one. The strings are the message's. */
void bus_iter_read_explain(DBusMessageIter *it, const char **ret_key, const char **ret_value,
			   const char **ret_source);

/* Reads the basic values of the struct (or dict entry) at it into the
 * pointers that follow, in order up to NULL, and moves it to the next
 * element. bus_call()'s signature check made their types the struct's. */
void bus_iter_read_struct(DBusMessageIter *it, ...) __attribute__((sentinel));

struct CtlRefusal;
/* Reads the struct at it, one of ListRefusals' (refusal.h), into ret, whose
 * strings point into the message, and moves it on (refused.c). */
void ctl_refusal_read(DBusMessageIter *it, struct CtlRefusal *ret);
