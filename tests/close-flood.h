/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The close-at-once flood (issue 31), for the test and the bench that send
 * it (fair-order for test-fair.sh, bench/fairness-bench.c): a new
 * connection, so a new unique name, sends calls that want no reply and
 * hangs up at once, again and again. Header-only, as system-bus.h, because
 * the benches are built with a bare cc line.
 */
#pragma once

#include <dbus/dbus.h>

/* Builds call i of a round; NULL: none. */
typedef DBusMessage *(*CloseFloodCall)(unsigned i, void *userdata);

/* One round: a new connection sends make(0..n-1, userdata), each marked
 * NO_REPLY_EXPECTED, flushes them and closes. Returns the calls sent, -1
 * when it could not connect. */
static inline long close_flood_round(unsigned n, CloseFloodCall make, void *userdata)
{
	DBusConnection *c = dbus_bus_get_private(DBUS_BUS_SYSTEM, NULL);
	long sent = 0;

	if (!c)
		return -1;
	dbus_connection_set_exit_on_disconnect(c, FALSE);
	for (unsigned i = 0; i < n; i++) {
		DBusMessage *m = make(i, userdata);

		if (!m)
			continue;
		dbus_message_set_no_reply(m, TRUE);
		if (dbus_connection_send(c, m, NULL))
			sent++;
		dbus_message_unref(m);
	}
	dbus_connection_flush(c);
	dbus_connection_close(c);
	dbus_connection_unref(c);
	return sent;
}
