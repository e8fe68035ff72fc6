/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How librealtime fails: one table from the D-Bus error names that realtimed,
 * rtkit-daemon and the bus answer with to the negative errno a caller sees
 * (realtime_errno_from_bus_error()), and the calling thread's message
 * (realtime_error_message()), which keeps the service's own words: they
 * name the policy limit and the file:line that set it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-names.h"
#include "realtime-internal.h"
#include "utf8.h"

typedef struct BusErrno {
	const char *name;
	int error;
} BusErrno;

/* The errno is the one a program would expect from the kernel call it
 * stands for (sched_setscheduler(2), setpriority(2), prlimit(2)) where
 * there is one, and otherwise says what the caller can do; realtimed's own
 * names with theirs come from NATIVE_ERRORS. */
#define BUS_ERRNO_NATIVE(code, word, rtkit, err, ...) { NATIVE_ERROR word, -(err) },

/* clang-format off */
static const BusErrno bus_errnos[] = {
	/* realtimed's native errors (realtimed(8)), from common/bus-names.h */
	NATIVE_ERRORS(BUS_ERRNO_NATIVE)

	/* rtkit-daemon answers these (EPERM, EACCES and EBUSY all as
	 * AccessDenied), and so does the bus for its own policy */
	{ DBUS_ERROR_ACCESS_DENIED, -EPERM },
	{ DBUS_ERROR_AUTH_FAILED, -EPERM },
	{ "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", -EPERM },
	{ DBUS_ERROR_INVALID_ARGS, -EINVAL },
	{ DBUS_ERROR_NO_MEMORY, -ENOMEM },
	{ DBUS_ERROR_LIMITS_EXCEEDED, -EDQUOT },
	{ DBUS_ERROR_FAILED, -EIO },

	/* nobody answers: the caller's request was never looked at */
	{ DBUS_ERROR_NO_REPLY, -ETIMEDOUT },
	{ DBUS_ERROR_TIMEOUT, -ETIMEDOUT },
	{ DBUS_ERROR_TIMED_OUT, -ETIMEDOUT },
	{ DBUS_ERROR_SERVICE_UNKNOWN, -ENXIO },
	{ DBUS_ERROR_NAME_HAS_NO_OWNER, -ENXIO },
	{ DBUS_ERROR_NO_SERVER, -ECONNREFUSED },
	{ DBUS_ERROR_FILE_NOT_FOUND, -ECONNREFUSED },
	{ DBUS_ERROR_BAD_ADDRESS, -ECONNREFUSED },
	{ DBUS_ERROR_DISCONNECTED, -ECONNRESET },
	{ DBUS_ERROR_NO_NETWORK, -ECONNREFUSED },

	/* an older or other service than this library knows */
	{ DBUS_ERROR_UNKNOWN_METHOD, -EOPNOTSUPP },
	{ DBUS_ERROR_UNKNOWN_OBJECT, -EOPNOTSUPP },
	{ DBUS_ERROR_UNKNOWN_INTERFACE, -EOPNOTSUPP },
	{ DBUS_ERROR_UNKNOWN_PROPERTY, -EOPNOTSUPP },
	{ DBUS_ERROR_NOT_SUPPORTED, -EOPNOTSUPP },
};
/* clang-format on */

/* Any failure of the bus to start a service through D-Bus activation. */
#define BUS_ERROR_SPAWN "org.freedesktop.DBus.Error.Spawn."

int realtime_errno_from_bus_error(const char *name)
{
	if (!name)
		return -EIO;
	for (size_t i = 0; i < ELEMENTSOF(bus_errnos); i++)
		if (streq(bus_errnos[i].name, name))
			return bus_errnos[i].error;
	if (startswith(name, BUS_ERROR_SPAWN))
		return -ENXIO;
	return -EIO;
}

static __thread char error_message[REALTIME_MESSAGE_MAX];

void realtime_clear_error(void)
{
	error_message[0] = '\0';
}

int realtime_fail(int r, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	utf8_vsnprintf(error_message, sizeof(error_message), format, ap);
	va_end(ap);
	return r;
}

int realtime_fail_bus(const DBusError *error, const char *what)
{
	int r = realtime_errno_from_bus_error(error->name);

	/* libdbus hands over valid UTF-8 only: the service's text as it is */
	if (!isempty(error->message))
		return realtime_fail(r, "%s", error->message);
	return realtime_fail(r, "%s: %s", what, error->name ? error->name : strerror(-r));
}

_public_ const char *realtime_error_message(void)
{
	return error_message;
}
