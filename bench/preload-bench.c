/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * preload-bench: the load of bench/preload-bench.sh, run with and without
 * librealtime-preload.so. Every scheduling call targets a helper thread
 * that only sleeps (blocked on a pipe); nothing realtime ever runs.
 *
 *   preload-bench allowed N     N pthread_setschedparam() calls that the
 *                               kernel allows (run it with CAP_SYS_NICE),
 *                               SCHED_FIFO 1 and 2 in turn: ns per call
 *   preload-bench refused N     N rounds, under the preload, as a user with
 *                               RLIMIT_RTPRIO 0: one Peer.Ping round trip to
 *                               realtimed (its own private connection), then
 *                               one pthread_setschedparam(SCHED_FIFO 5) that
 *                               the kernel refuses and realtimed grants
 *                               (between rounds the thread goes back to
 *                               SCHED_OTHER, which the kernel allows), then
 *                               one MakeThreadRealtime sent directly (the
 *                               grant without the preload): p50 and p99 of
 *                               each, in us
 *
 * Output: one line "key=value ..." for the script to parse.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "percentile.h"
#include "../tests/system-bus.h"

static uint64_t now_nsec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int sleeper_pipe[2];
static pid_t sleeper_tid;

static void *sleeper_main(void *userdata)
{
	char c;

	__atomic_store_n(&sleeper_tid, gettid(), __ATOMIC_SEQ_CST);
	while (read(sleeper_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static pthread_t sleeper_start(void)
{
	pthread_t t;

	if (pipe(sleeper_pipe) < 0 || pthread_create(&t, NULL, sleeper_main, NULL) != 0) {
		perror("preload-bench: sleeper");
		exit(2);
	}
	while (!__atomic_load_n(&sleeper_tid, __ATOMIC_SEQ_CST))
		usleep(100);
	return t;
}

static int cmd_allowed(long n)
{
	uint64_t *t = calloc((size_t)n, sizeof(uint64_t)), a, total = 0;
	pthread_t s = sleeper_start();

	if (!t)
		return 2;
	for (long i = 0; i < n; i++) {
		struct sched_param sp = { .sched_priority = 1 + (int)(i & 1) };
		int r;

		a = now_nsec();
		r = pthread_setschedparam(s, SCHED_FIFO, &sp);
		t[i] = now_nsec() - a;
		total += t[i];
		if (r != 0) {
			fprintf(stderr, "preload-bench: the kernel refused SCHED_FIFO %d: %s\n",
				sp.sched_priority, strerror(r));
			return 1;
		}
	}
	printf("allowed n=%ld mean_ns=%" PRIu64 " p50_ns=%" PRIu64 " p99_ns=%" PRIu64 "\n", n,
	       total / (uint64_t)n, percentile(t, (size_t)n, 50), percentile(t, (size_t)n, 99));
	return 0;
}

/* Sends m (and unrefs it), waits for the answer: 0 or -errno. */
static int call(DBusConnection *bus, DBusMessage *m, const char *what)
{
	DBusError err;

	if (!m)
		return -ENOMEM;
	if (!bus_call(bus, m, 5000, &err)) {
		fprintf(stderr, "preload-bench: %s: %s\n", what, err.message);
		dbus_error_free(&err);
		return -EIO;
	}
	return 0;
}

static int ping(DBusConnection *bus)
{
	return call(bus,
		    dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH,
						 "org.freedesktop.DBus.Peer", "Ping"),
		    "Ping");
}

/* realtimed's MakeThreadRealtime on the bench's own connection, as a
 * program that speaks D-Bus would ask: the grant without the preload. */
static int grant_direct(DBusConnection *bus, pid_t tid)
{
	dbus_uint64_t p = 0, t = (dbus_uint64_t)tid;
	dbus_uint32_t prio = 5;
	const char *policy = "fifo";
	DBusMessage *m;

	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
					 "MakeThreadRealtime");
	if (m && !dbus_message_append_args(m, DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t,
					   DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
					   DBUS_TYPE_INVALID)) {
		dbus_message_unref(m);
		m = NULL;
	}
	return call(bus, m, "MakeThreadRealtime");
}

static int to_other(pthread_t s)
{
	struct sched_param other = { .sched_priority = 0 };
	int r = pthread_setschedparam(s, SCHED_OTHER, &other);

	if (r != 0)
		fprintf(stderr, "preload-bench: back to SCHED_OTHER: %s\n", strerror(r));
	return r;
}

static int cmd_refused(long n)
{
	uint64_t *tp = calloc((size_t)n, sizeof(uint64_t));
	uint64_t *tg = calloc((size_t)n, sizeof(uint64_t));
	uint64_t *td = calloc((size_t)n, sizeof(uint64_t));
	pthread_t s = sleeper_start();
	DBusConnection *bus;
	long refused = 0;

	if (!tp || !tg || !td)
		return 2;
	bus = system_bus_open("preload-bench");
	if (!bus)
		return 2;
	dbus_connection_set_exit_on_disconnect(bus, false);
	for (long i = 0; i < n; i++) {
		struct sched_param fifo = { .sched_priority = 5 };
		uint64_t a;
		int r;

		/* back to SCHED_OTHER each time: the kernel allows it, nothing is asked */
		if (to_other(s) != 0)
			return 1;
		a = now_nsec();
		if (ping(bus) < 0)
			return 1;
		tp[i] = now_nsec() - a;
		a = now_nsec();
		r = pthread_setschedparam(s, SCHED_FIFO, &fifo);
		tg[i] = now_nsec() - a;
		if (r != 0)
			refused++;
		if (to_other(s) != 0)
			return 1;
		a = now_nsec();
		if (grant_direct(bus, sleeper_tid) < 0)
			return 1;
		td[i] = now_nsec() - a;
	}
	printf("refused n=%ld not_granted=%ld ping_p50_us=%.1f ping_p99_us=%.1f grant_p50_us=%.1f "
	       "grant_p99_us=%.1f direct_p50_us=%.1f direct_p99_us=%.1f\n",
	       n, refused, percentile(tp, (size_t)n, 50) / 1000.0,
	       percentile(tp, (size_t)n, 99) / 1000.0, percentile(tg, (size_t)n, 50) / 1000.0,
	       percentile(tg, (size_t)n, 99) / 1000.0, percentile(td, (size_t)n, 50) / 1000.0,
	       percentile(td, (size_t)n, 99) / 1000.0);
	return refused ? 1 : 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;

	if (argc == 3 && !strcmp(argv[1], "allowed") && n > 0)
		return cmd_allowed(n);
	if (argc == 3 && !strcmp(argv[1], "refused") && n > 0)
		return cmd_refused(n);
	fprintf(stderr, "usage: preload-bench allowed|refused N\n");
	return 2;
}
