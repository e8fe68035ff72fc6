/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus error name -> realtimectl exit status and hint (see bus-error.h).
 */
#include <stddef.h>

#include "bus-error.h"
#include "bus-names.h"
#include "ctl.h"
#include "macro.h"

typedef struct BusErrorInfo {
	const char *name;
	int exit_status;
	const char *hint;
} BusErrorInfo;

#define CTL_NATIVE_ERROR(code, word, rtkit, err, exit_status, hint) \
	{ NATIVE_ERROR word, exit_status, hint },

/* clang-format off */
static const BusErrorInfo bus_errors[] = {
	/* realtimed's own errors (realtimed(8)), from common/bus-names.h */
	NATIVE_ERRORS(CTL_NATIVE_ERROR)

	/* The bus, on realtimed's behalf */
	{ "org.freedesktop.DBus.Error.ServiceUnknown", CTL_EXIT_UNREACHABLE,
	  "realtimed is not running: start it with 'systemctl start realtimed'." },
	{ "org.freedesktop.DBus.Error.NameHasNoOwner", CTL_EXIT_UNREACHABLE,
	  "realtimed is not running: start it with 'systemctl start realtimed'." },
	{ "org.freedesktop.DBus.Error.Spawn.ChildExited", CTL_EXIT_UNREACHABLE,
	  "realtimed failed to start: see 'journalctl -u realtimed'." },
	{ "org.freedesktop.DBus.Error.Spawn.ServiceNotFound", CTL_EXIT_UNREACHABLE,
	  "realtimed is not installed as a D-Bus service: reinstall it, or start it with "
	  "'systemctl start realtimed'." },
	{ "org.freedesktop.DBus.Error.NoReply", CTL_EXIT_UNREACHABLE,
	  "realtimed did not answer in time: see 'journalctl -u realtimed'." },
	{ "org.freedesktop.DBus.Error.Timeout", CTL_EXIT_UNREACHABLE,
	  "realtimed did not answer in time: see 'journalctl -u realtimed'." },
	{ "org.freedesktop.DBus.Error.TimedOut", CTL_EXIT_UNREACHABLE,
	  "realtimed did not answer in time: see 'journalctl -u realtimed'." },
	{ "org.freedesktop.DBus.Error.NoServer", CTL_EXIT_UNREACHABLE,
	  "The system bus is not running: start it with 'systemctl start dbus'." },
	{ "org.freedesktop.DBus.Error.FileNotFound", CTL_EXIT_UNREACHABLE,
	  "The system bus is not running: start it with 'systemctl start dbus'." },
	{ "org.freedesktop.DBus.Error.Disconnected", CTL_EXIT_UNREACHABLE,
	  "The system bus went away: check 'systemctl status dbus'." },
	{ "org.freedesktop.DBus.Error.AccessDenied", CTL_EXIT_REFUSED,
	  "The bus policy refused the call: is realtimed's D-Bus policy installed in "
	  "/usr/share/dbus-1/system.d?" },
	{ "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired", CTL_EXIT_REFUSED,
	  "This needs an administrator: run it as root, or with a polkit agent running "
	  "(pkttyagent)." },
	{ "org.freedesktop.DBus.Error.InvalidArgs", CTL_EXIT_USAGE, NULL },
	{ "org.freedesktop.DBus.Error.UnknownMethod", CTL_EXIT_FAILED,
	  "realtimed does not know this call: realtimectl and realtimed are of different "
	  "versions." },
	{ "org.freedesktop.DBus.Error.NoMemory", CTL_EXIT_FAILED, NULL },
};
/* clang-format on */

/* Any failure of the bus to start realtimed through D-Bus activation. */
static const BusErrorInfo bus_error_spawn = {
	"org.freedesktop.DBus.Error.Spawn.", CTL_EXIT_UNREACHABLE,
	"The bus could not start realtimed: see 'journalctl -u realtimed', or start it with "
	"'systemctl start realtimed'."
};

static const BusErrorInfo *bus_error_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(bus_errors); i++)
		if (streq(bus_errors[i].name, name))
			return &bus_errors[i];
	if (startswith(name, bus_error_spawn.name))
		return &bus_error_spawn;
	return NULL;
}

int bus_error_exit_status(const char *name)
{
	const BusErrorInfo *e = bus_error_find(name);

	return e ? e->exit_status : CTL_EXIT_FAILED;
}

const char *bus_error_hint(const char *name)
{
	const BusErrorInfo *e = bus_error_find(name);

	return e ? e->hint : NULL;
}
