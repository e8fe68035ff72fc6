/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a D-Bus error from realtimed (or from the bus on its behalf) means to
 * the user of realtimectl: the exit status of realtimectl(1) and a hint on
 * what to do. Pure string mapping, no libdbus, unit-tested in test-ctl-bus-error.c.
 */
#pragma once

/* Exit status (CTL_EXIT_*) for a D-Bus error name. */
int bus_error_exit_status(const char *name);

/* One sentence on what to do about the error, or NULL when the daemon's
 * own message says it all. */
const char *bus_error_hint(const char *name);
