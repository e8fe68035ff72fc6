/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process's one private connection to the system bus: opened on first
 * use, shared by every thread (libdbus is told to lock, and a mutex guards
 * our own state), and left alone in a child of fork(), which opens its own
 * on its first call. Every round trip waits at most until the public
 * call's deadline (REALTIME_TIMEOUT_MSEC), the connection's Hello
 * included: a hung bus makes a call fail, never hang.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bus-names.h"
#include "realtime-internal.h"
#include "time-util.h"

/* The system bus where libdbus would look for it; DBUS_SYSTEM_BUS_ADDRESS
 * overrides it, except in a setuid program (secure_getenv()). */
#define SYSTEM_BUS_DEFAULT_ADDRESS "unix:path=/run/dbus/system_bus_socket"

static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;
static bool bus_threads_ok;
static DBusConnection *bus_connection;
/* the process that opened bus_connection, and its socket: the number,
 * and which socket that is (libdbus closes it when the bus hangs up, and
 * the application may get the number for a file of its own) */
static pid_t bus_owner;
static int bus_fd = -EBADF;
static dev_t bus_fd_dev;
static ino_t bus_fd_ino;
/* REALTIME_SERVICE_* or 0: not asked yet on this connection */
static int bus_service;

void realtime_lock(void)
{
	pthread_mutex_lock(&bus_lock);
}

void realtime_unlock(void)
{
	pthread_mutex_unlock(&bus_lock);
}

/* In the child of fork() the parent's connection object is never touched:
 * another thread of the parent may have held libdbus's locks at the
 * fork. Its socket is closed (that needs no lock), so that the child can
 * never write into the parent's stream, nor keep the parent's connection
 * open on the bus while it lives without exec() (O_CLOEXEC alone would),
 * and the child opens its own. Our lock is held across the fork, so the
 * child finds our state whole. */
static void bus_atfork_prepare(void)
{
	pthread_mutex_lock(&bus_lock);
}

static void bus_atfork_parent(void)
{
	pthread_mutex_unlock(&bus_lock);
}

/* Forgets the connection without touching it (the caller closes or
 * unrefs it as it may). */
static void bus_forget(void)
{
	bus_connection = NULL;
	bus_fd = -EBADF;
	bus_service = 0;
}

/* Whether fd is still the bus socket bus_open() saw: once libdbus closed
 * it (the bus hung up), the number may be the application's. fstat() is
 * async-signal-safe, as a fork handler needs. */
static bool bus_fd_is_ours(int fd)
{
	struct stat st;

	return fd >= 0 && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == bus_fd_dev &&
	       st.st_ino == bus_fd_ino;
}

static void bus_atfork_child(void)
{
	if (bus_fd_is_ours(bus_fd))
		safe_close(bus_fd);
	bus_forget();
	bus_owner = 0;
	rtkit_forget_all();
	pthread_mutex_unlock(&bus_lock);
}

static void bus_init_once(void)
{
	bus_threads_ok = dbus_threads_init_default();
	pthread_atfork(bus_atfork_prepare, bus_atfork_parent, bus_atfork_child);
}

int realtime_timeout_msec(const char *value)
{
	char *end;
	long v;

	if (isempty(value))
		return REALTIME_TIMEOUT_MSEC_DEFAULT;
	errno = 0;
	v = strtol(value, &end, 10);
	if (errno != 0 || *end != '\0' || v <= 0)
		return REALTIME_TIMEOUT_MSEC_DEFAULT;
	return v > REALTIME_TIMEOUT_MSEC_MAX ? REALTIME_TIMEOUT_MSEC_MAX : (int)v;
}

realtime_deadline realtime_deadline_start(void)
{
	/* secure_getenv: the preload runs inside setuid programs too */
	int msec = realtime_timeout_msec(secure_getenv("REALTIME_TIMEOUT_MSEC"));

	return now_usec(CLOCK_MONOTONIC) + (uint64_t)msec * 1000;
}

/* Milliseconds left until the deadline, at least 1; 0 when it has passed. */
static int deadline_left_msec(realtime_deadline deadline)
{
	uint64_t now = now_usec(CLOCK_MONOTONIC);

	if (now >= deadline)
		return 0;
	return (int)((deadline - now + 999) / 1000);
}

int realtime_bus_call(DBusConnection *c, DBusMessage *m, realtime_deadline deadline,
		      const char *what, DBusMessage **ret_reply)
{
	DBusMessage *reply;
	DBusError error;
	int left = deadline_left_msec(deadline);
	int r;

	if (left == 0)
		return realtime_fail(-ETIMEDOUT, "%s: no answer in time (REALTIME_TIMEOUT_MSEC)",
				     what);
	dbus_error_init(&error);
	reply = dbus_connection_send_with_reply_and_block(c, m, left, &error);
	if (!reply) {
		r = realtime_fail_bus(&error, what);
		dbus_error_free(&error);
		return r;
	}
	*ret_reply = reply;
	return 0;
}

int realtime_bus_call_method(DBusConnection *c, const char *dest, const char *path,
			     const char *iface, const char *method, realtime_deadline deadline,
			     DBusMessage **ret_reply, int first_arg_type, ...)
{
	_cleanup_message_ DBusMessage *m = NULL, *reply = NULL;
	va_list ap;
	bool ok;
	int r;

	m = dbus_message_new_method_call(dest, path, iface, method);
	if (!m)
		return realtime_fail(-ENOMEM, "Out of memory");
	va_start(ap, first_arg_type);
	ok = dbus_message_append_args_valist(m, first_arg_type, ap);
	va_end(ap);
	if (!ok)
		return realtime_fail(-ENOMEM, "Out of memory");
	r = realtime_bus_call(c, m, deadline, method, &reply);
	if (r < 0)
		return r;
	if (ret_reply)
		*ret_reply = TAKE_PTR(reply);
	return 0;
}

/* Hello by hand, not dbus_bus_register(): that one waits libdbus's default
 * 25 s on a bus that accepted the connection but does not answer. And the
 * authentication first, by hand too: libdbus flushes a message it sends
 * with no timeout at all, and a message waits for the authentication. */
static int bus_hello(DBusConnection *c, realtime_deadline deadline)
{
	_cleanup_message_ DBusMessage *reply = NULL;
	const char *name;
	int r;

	while (!dbus_connection_get_is_authenticated(c)) {
		int left = deadline_left_msec(deadline);

		if (left == 0)
			return realtime_fail(-ETIMEDOUT, "The system bus did not let us in within "
							 "REALTIME_TIMEOUT_MSEC");
		if (!dbus_connection_read_write(c, left))
			return realtime_fail(
				-ECONNRESET,
				"The system bus closed the connection before letting us in");
	}
	r = realtime_bus_call_method(c, DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
				     "Hello", deadline, &reply, DBUS_TYPE_INVALID);
	if (r < 0)
		return r;
	if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID) ||
	    !dbus_bus_set_unique_name(c, name))
		return realtime_fail(-EIO, "The system bus answered Hello with no name");
	return 0;
}

static int bus_open(realtime_deadline deadline, DBusConnection **ret)
{
	const char *address = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");
	DBusConnection *c;
	struct stat st;
	DBusError error;
	int fd = -EBADF;
	int r;

	if (isempty(address))
		address = SYSTEM_BUS_DEFAULT_ADDRESS;
	dbus_error_init(&error);
	c = dbus_connection_open_private(address, &error);
	if (!c) {
		r = realtime_fail_bus(&error, "Failed to connect to the system bus");
		dbus_error_free(&error);
		return r;
	}
	/* the program decides when it ends, not a bus hangup */
	dbus_connection_set_exit_on_disconnect(c, false);
	r = bus_hello(c, deadline);
	if (r < 0) {
		dbus_connection_close(c);
		dbus_connection_unref(c);
		return r;
	}
	bus_fd = -EBADF;
	if (dbus_connection_get_socket(c, &fd) && fstat(fd, &st) == 0) {
		bus_fd = fd;
		bus_fd_dev = st.st_dev;
		bus_fd_ino = st.st_ino;
	}
	*ret = c;
	return 0;
}

int realtime_bus_get(realtime_deadline deadline, DBusConnection **ret)
{
	pid_t pid = getpid();
	int r = 0;

	pthread_once(&bus_once, bus_init_once);
	if (!bus_threads_ok)
		return realtime_fail(-ENOMEM, "Failed to set up libdbus for threads");

	pthread_mutex_lock(&bus_lock);
	/* a child made without pthread_atfork() (clone(), vfork()) too */
	if (bus_connection && bus_owner != pid)
		bus_forget();
	if (bus_connection && !dbus_connection_get_is_connected(bus_connection)) {
		/* the bus went away: drop ours, connect afresh */
		dbus_connection_close(bus_connection);
		dbus_connection_unref(bus_connection);
		bus_forget();
	}
	if (!bus_connection) {
		r = bus_open(deadline, &bus_connection);
		if (r >= 0)
			bus_owner = pid;
	}
	if (r >= 0)
		*ret = dbus_connection_ref(bus_connection);
	pthread_mutex_unlock(&bus_lock);
	return r;
}

/* 1 when the bus has an owner for name or can start one, 0 when not. */
static int bus_name_reachable(DBusConnection *c, const char *name, realtime_deadline deadline)
{
	_cleanup_message_ DBusMessage *owner = NULL, *activatable = NULL;
	DBusMessageIter it, sub;
	dbus_bool_t has = false;
	int r;

	r = realtime_bus_call_method(c, DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
				     "NameHasOwner", deadline, &owner, DBUS_TYPE_STRING, &name,
				     DBUS_TYPE_INVALID);
	if (r < 0)
		return r;
	if (dbus_message_get_args(owner, NULL, DBUS_TYPE_BOOLEAN, &has, DBUS_TYPE_INVALID) && has)
		return 1;

	/* no owner now: can the bus start one? */
	r = realtime_bus_call_method(c, DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
				     "ListActivatableNames", deadline, &activatable,
				     DBUS_TYPE_INVALID);
	if (r < 0)
		return r;
	if (!dbus_message_has_signature(activatable, "as"))
		return 0;
	dbus_message_iter_init(activatable, &it);
	for (dbus_message_iter_recurse(&it, &sub);
	     dbus_message_iter_get_arg_type(&sub) == DBUS_TYPE_STRING;
	     dbus_message_iter_next(&sub)) {
		const char *s;

		dbus_message_iter_get_basic(&sub, &s);
		if (streq(s, name))
			return 1;
	}
	return 0;
}

int realtime_bus_service(DBusConnection *c, realtime_deadline deadline, int failed)
{
	int service = 0, r = 0;

	realtime_lock();
	if (c == bus_connection) {
		if (failed > 0)
			bus_service = 0;
		service = bus_service;
	}
	realtime_unlock();
	if (service > 0)
		return service;

	/* realtimed when it is there or can be started, unless it just
	 * failed to answer or to start */
	if (failed != REALTIME_SERVICE_REALTIMED)
		r = bus_name_reachable(c, NATIVE_NAME, deadline);
	if (r > 0)
		service = REALTIME_SERVICE_REALTIMED;
	else if (r == 0 && failed != REALTIME_SERVICE_RTKIT) {
		r = bus_name_reachable(c, RTKIT_NAME, deadline);
		service = REALTIME_SERVICE_RTKIT;
	}
	if (r < 0)
		return r;
	if (r == 0)
		return realtime_fail(-ENXIO,
				     "Neither realtimed (" NATIVE_NAME
				     ") nor RealtimeKit (" RTKIT_NAME ") is on the system bus");

	realtime_lock();
	if (c == bus_connection)
		bus_service = service;
	realtime_unlock();
	return service;
}

int realtime_bus_get_property(DBusConnection *c, const char *dest, const char *path,
			      const char *iface, const char *name, realtime_deadline deadline,
			      int64_t *ret)
{
	_cleanup_message_ DBusMessage *reply = NULL;
	DBusMessageIter it, v;
	int r;

	r = realtime_bus_call_method(c, dest, path, DBUS_INTERFACE_PROPERTIES, "Get", deadline,
				     &reply, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
				     DBUS_TYPE_INVALID);
	if (r < 0)
		return r;
	if (!dbus_message_has_signature(reply, "v"))
		return realtime_fail(-EBADMSG, "%s answered %s with signature '%s'", dest, name,
				     dbus_message_get_signature(reply));
	dbus_message_iter_init(reply, &it);
	dbus_message_iter_recurse(&it, &v);
	switch (dbus_message_iter_get_arg_type(&v)) {
	case DBUS_TYPE_INT32: {
		dbus_int32_t i;

		dbus_message_iter_get_basic(&v, &i);
		*ret = i;
		return 0;
	}
	case DBUS_TYPE_INT64: {
		dbus_int64_t x;

		dbus_message_iter_get_basic(&v, &x);
		*ret = x;
		return 0;
	}
	default:
		return realtime_fail(-EBADMSG, "%s answered %s with type '%c'", dest, name,
				     dbus_message_iter_get_arg_type(&v));
	}
}
