/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client rounds: latency of realtimed as a client sees it, for the
 * tests that must show that nothing stalls it (test-nss-hang.sh).
 *
 *   rt-client rounds N [--prio P]
 *	N rounds of one Peer.Ping, then one native MakeThreadRealtime (fifo
 *	P, default 1) for a sleeping thread of its own, each timed from send
 *	to answer. Prints "ping US" and "grant US" (or "grant-error NAME:
 *	MESSAGE") per round, one line each, for the script to sort. Calls
 *	wait up to 60 s: a stalled daemon shows as a long round, not a
 *	timeout. Exit 0 when every grant was answered with success, 1 if
 *	one was refused, 2 on anything else.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "rt-client.h"
#include "time-util.h"
#include "../system-bus.h"
#include "../sleeper.h"

#define CALL_TIMEOUT_MS 60000

static int sleeper_pipe[2];
static SleeperThread sleeper;

/* Sends m and waits for its answer; prints "WHAT US" or "WHAT-error ...". */
static int timed_call(DBusConnection *bus, DBusMessage *m, const char *what)
{
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	DBusMessage *reply;
	DBusError err;

	dbus_error_init(&err);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &err);
	dbus_message_unref(m);
	if (!reply) {
		printf("%s-error %s: %s\n", what, err.name, err.message);
		dbus_error_free(&err);
		return 1;
	}
	dbus_message_unref(reply);
	printf("%s %" PRIu64 "\n", what, now_usec(CLOCK_MONOTONIC) - start);
	return 0;
}

int cmd_rounds(int argc, char **argv)
{
	uint32_t prio = 1;
	const char *fifo = "fifo";
	struct rlimit rl = { 200000, 200000 };
	DBusConnection *bus;
	int n, refused = 0;

	if (argc < 3 || (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: rt-client rounds N [--prio P]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++)
		if (streq(argv[i], "--prio") && i + 1 < argc)
			prio = (uint32_t)atoi(argv[++i]);
		else {
			fprintf(stderr, "rt-client: unknown argument %s\n", argv[i]);
			return 2;
		}

	/* under any policy's RTTime, as the clients of realtimed run */
	(void)setrlimit(RLIMIT_RTTIME, &rl);
	if (pipe2(sleeper_pipe, O_CLOEXEC) < 0 ||
	    sleeper_thread_start(&sleeper, sleeper_pipe[0], NULL) != 0) {
		fprintf(stderr, "rt-client: cannot start the sleeping thread\n");
		return 2;
	}

	bus = system_bus_open("rt-client");
	if (!bus)
		return 2;
	for (int i = 0; i < n; i++) {
		uint64_t pid = (uint64_t)getpid(), tid = (uint64_t)sleeper.tid;
		DBusMessage *m;

		m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH,
						 "org.freedesktop.DBus.Peer", "Ping");
		if (!m)
			return 2;
		if (timed_call(bus, m, "ping") != 0)
			return 2;
		m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
						 "MakeThreadRealtime");
		if (!m || !dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64,
						    &tid, DBUS_TYPE_STRING, &fifo, DBUS_TYPE_UINT32,
						    &prio, DBUS_TYPE_INVALID))
			return 2;
		refused |= timed_call(bus, m, "grant");
	}
	fflush(stdout);
	dbus_connection_close(bus);
	dbus_connection_unref(bus);
	return refused ? 1 : 0;
}
