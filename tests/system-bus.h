/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The system-bus connection of the test and bench clients (rt-client,
 * demoted-listen, bus-fuzz, the benches of bench/), header-only because the
 * benches are built by their scripts with a bare cc line.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdio.h>

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
