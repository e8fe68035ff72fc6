/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of librealtime share: the connection (bus.c), the error
 * table and the calling thread's message (error.c), the native calls
 * (native.c) and the RealtimeKit1 fallback (rtkit.c). Nothing here is
 * exported: librealtime.sym lets only the realtime_* calls of
 * librealtime.h out of the shared object.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "librealtime.h"
#include "macro.h"

/* How long one public call may wait for its answers, all round trips
 * together, when REALTIME_TIMEOUT_MSEC does not say otherwise. */
#define REALTIME_TIMEOUT_MSEC_DEFAULT 5000
#define REALTIME_TIMEOUT_MSEC_MAX (10 * 60 * 1000)

/* The longest message kept for realtime_error_message(), in bytes with the
 * NUL; longer ones are cut at a character boundary. */
#define REALTIME_MESSAGE_MAX 512

/* --- error.c --- */

/* The negative errno for a D-Bus error name; -EIO for a name not in the table. */
int realtime_errno_from_bus_error(const char *name);
/* Sets the calling thread's message (printf-style) and returns r. */
int realtime_fail(int r, const char *format, ...) __attribute__((format(printf, 2, 3)));
/* Sets the message to error's text (or its name) and returns its errno. */
int realtime_fail_bus(const DBusError *error, const char *what);
/* Empties the calling thread's message: every public call starts with it. */
void realtime_clear_error(void);

/* --- realtime.c --- */

/* True when tid is a live thread of this process (tgkill(2) with signal 0). */
bool realtime_thread_is_ours(pid_t tid);

/* --- bus.c --- */

/* A point in CLOCK_MONOTONIC microseconds by which a public call ends. */
typedef uint64_t realtime_deadline;

/* The timeout of one public call in milliseconds, from REALTIME_TIMEOUT_MSEC
 * (read with secure_getenv()) or the default. */
int realtime_timeout_msec(const char *value);
realtime_deadline realtime_deadline_start(void);

/* A reference to the process's connection, opened on first use (and again
 * in a child of fork()); the caller unrefs it. */
int realtime_bus_get(realtime_deadline deadline, DBusConnection **ret);
/* Sends m and waits for the answer until the deadline: 0 and the reply, or
 * a negative errno with the calling thread's message set. */
int realtime_bus_call(DBusConnection *c, DBusMessage *m, realtime_deadline deadline,
		      const char *what, DBusMessage **ret_reply);
/* dest's method with the arguments (libdbus's type, pointer pairs, ended
 * by DBUS_TYPE_INVALID), until the deadline; the reply in ret_reply when
 * that is not NULL. */
int realtime_bus_call_method(DBusConnection *c, const char *dest, const char *path,
			     const char *iface, const char *method, realtime_deadline deadline,
			     DBusMessage **ret_reply, int first_arg_type, ...);
/* Which service answers for this process: realtimed when
 * org.realtimed.Realtime1 has an owner or can be activated, else
 * RealtimeKit1, else -ENXIO. Remembered per connection; failed (a
 * REALTIME_SERVICE_*, or 0) is one that just did not answer or could not
 * be started: the bus is asked again, for the other one. */
int realtime_bus_service(DBusConnection *c, realtime_deadline deadline, int failed);
/* The library's one mutex: the connection's state and rtkit.c's memory of
 * its grants; held across fork() so a child finds both consistent. */
void realtime_lock(void);
void realtime_unlock(void);

/* Property NAME (type 'i' or 'x') of IFACE at DEST/PATH, as int64. */
int realtime_bus_get_property(DBusConnection *c, const char *dest, const char *path,
			      const char *iface, const char *name, realtime_deadline deadline,
			      int64_t *ret);

static inline void realtime_message_unrefp(DBusMessage **m)
{
	if (*m)
		dbus_message_unref(*m);
}
#define _cleanup_message_ __attribute__((cleanup(realtime_message_unrefp)))

/* The connection is the process's: a reference is dropped, never closed. */
static inline void realtime_connection_unrefp(DBusConnection **c)
{
	if (*c)
		dbus_connection_unref(*c);
}
#define _cleanup_connection_ __attribute__((cleanup(realtime_connection_unrefp)))

/* --- native.c: realtimed's org.realtimed.Realtime1 --- */

int native_make_thread_realtime(DBusConnection *c, pid_t tid, int policy, int priority,
				realtime_deadline deadline);
int native_make_thread_high_priority(DBusConnection *c, pid_t tid, int nice_level,
				     realtime_deadline deadline);
int native_reset_thread(DBusConnection *c, pid_t tid, realtime_deadline deadline);
int native_grant_limits(DBusConnection *c, struct realtime_limits *ret, realtime_deadline deadline);
/* GrantLimits' answer into ret (may be NULL). */
int native_parse_limits(DBusMessage *reply, struct realtime_limits *ret);

/* --- rtkit.c: the RealtimeKit1 fallback (its limits: librealtime(3)) --- */

int rtkit_make_thread_realtime(DBusConnection *c, pid_t tid, int policy, int priority,
			       realtime_deadline deadline);
int rtkit_make_thread_high_priority(DBusConnection *c, pid_t tid, int nice_level,
				    realtime_deadline deadline);
int rtkit_reset_thread(pid_t tid);
/* Forgets what rtkit.c remembered of the parent's threads; called in the
 * child of fork() with the lock held. */
void rtkit_forget_all(void);
