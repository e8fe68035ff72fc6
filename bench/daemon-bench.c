/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon-bench: the load generator of bench/daemon-bench.sh, which runs it
 * against rtkit-daemon and realtimed in turn on one private bus. It speaks
 * only the RealtimeKit interface (org.freedesktop.RealtimeKit1), so the same
 * client measures both daemons. Every grant goes to a helper thread that
 * sleeps (blocked on a pipe), never to a thread that runs.
 *
 *   daemon-bench ping N            N Peer.Ping round trips: p50/p99 in us
 *   daemon-bench grant N PRIO      N MakeThreadRealtimeWithPID round trips
 *   daemon-bench pair N PRIO       N rounds of one Ping then one grant
 *   daemon-bench rate CLIENTS SECS PRIO
 *                                  CLIENTS processes granting for SECS seconds
 *   daemon-bench burst N PRIO      N back-to-back grants: answered, granted,
 *                                  refused (by error name), unanswered
 *   daemon-bench hold N PRIO       N sleeping threads, each granted; then
 *                                  waits for a line on stdin (or its end)
 *
 * Output: one line "key=value ..." per run, for the script to parse.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "percentile.h"
#include "time-util.h"
#include "../tests/system-bus.h"

/* A thread that only sleeps: the target of every grant. */
struct sleeper {
	pthread_t thread;
	int pipe[2];
	pid_t tid;
};

static void *sleeper_main(void *userdata)
{
	struct sleeper *s = userdata;
	char c;

	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static int sleeper_start(struct sleeper *s)
{
	if (pipe2(s->pipe, O_CLOEXEC) < 0)
		return -errno;
	if (pthread_create(&s->thread, NULL, sleeper_main, s) != 0)
		return -EAGAIN;
	while (__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) == 0)
		usleep(100);
	return 0;
}

static DBusConnection *bus_open(void)
{
	DBusConnection *bus;
	struct rlimit rl = { 200000, 200000 };

	/* rtkit requires RLIMIT_RTTIME <= 200 ms; use it for both daemons */
	(void)setrlimit(RLIMIT_RTTIME, &rl);
	bus = system_bus_open("daemon-bench");
	if (!bus)
		exit(2);
	dbus_connection_set_exit_on_disconnect(bus, false);
	return bus;
}

/* One call; returns 0 on a method return, 1 on an error reply (its name in
 * ret_error), -ETIMEDOUT / -EIO when no answer came. */
static int call(DBusConnection *bus, DBusMessage *m, int timeout_ms, char *ret_error, size_t size)
{
	DBusMessage *reply;
	DBusError err;
	int r;

	dbus_error_init(&err);
	reply = dbus_connection_send_with_reply_and_block(bus, m, timeout_ms, &err);
	if (reply) {
		dbus_message_unref(reply);
		return 0;
	}
	if (streq_ptr(err.name, DBUS_ERROR_NO_REPLY) || streq_ptr(err.name, DBUS_ERROR_TIMEOUT) ||
	    streq_ptr(err.name, DBUS_ERROR_DISCONNECTED))
		r = streq_ptr(err.name, DBUS_ERROR_DISCONNECTED) ? -EIO : -ETIMEDOUT;
	else
		r = 1;
	if (ret_error)
		snprintf(ret_error, size, "%s", err.name ? err.name : "?");
	dbus_error_free(&err);
	return r;
}

/* call() of m (NULL: -ENOMEM), which it unrefs, with the 5 s timeout of
 * the timed runs: *ret_usec is how long the answer took. */
static int timed_call(DBusConnection *bus, DBusMessage *m, char *errname, size_t size,
		      uint64_t *ret_usec)
{
	uint64_t a = now_usec(CLOCK_MONOTONIC);
	int r;

	if (!m)
		return -ENOMEM;
	r = call(bus, m, 5000, errname, size);
	*ret_usec = now_usec(CLOCK_MONOTONIC) - a;
	dbus_message_unref(m);
	return r;
}

/* Counts call()'s answer r: a method return, an error reply, or none. */
static void tally(int r, long *ok, long *err, long *lost)
{
	if (r == 0)
		(*ok)++;
	else if (r == 1)
		(*err)++;
	else
		(*lost)++;
}

static DBusMessage *new_ping(void)
{
	return dbus_message_new_method_call(RTKIT_NAME, RTKIT_PATH, "org.freedesktop.DBus.Peer",
					    "Ping");
}

static DBusMessage *new_grant(pid_t tid, unsigned prio)
{
	dbus_uint64_t p = (dbus_uint64_t)getpid(), t = (dbus_uint64_t)tid;
	dbus_uint32_t pr = prio;
	DBusMessage *m;

	m = dbus_message_new_method_call(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE,
					 "MakeThreadRealtimeWithPID");
	if (m && !dbus_message_append_args(m, DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t,
					   DBUS_TYPE_UINT32, &pr, DBUS_TYPE_INVALID)) {
		dbus_message_unref(m);
		m = NULL;
	}
	return m;
}

/* ping N / grant N PRIO: sequential round trips, p50 and p99 */
static int cmd_latency(bool grant, long n, unsigned prio)
{
	_cleanup_free_ uint64_t *t = calloc((size_t)n, sizeof(uint64_t));
	DBusConnection *bus = bus_open();
	struct sleeper s = {};
	long ok = 0, err = 0, lost = 0;
	char errname[256] = "";

	if (!t || sleeper_start(&s) < 0)
		return 2;
	for (long i = 0; i < n; i++) {
		DBusMessage *m = grant ? new_grant(s.tid, prio) : new_ping();
		int r = timed_call(bus, m, errname, sizeof(errname), &t[ok]);

		if (r == -ENOMEM)
			return 2;
		tally(r, &ok, &err, &lost);
	}
	printf("%s n=%ld ok=%ld err=%ld lost=%ld p50_us=%" PRIu64 " p99_us=%" PRIu64
	       " last_error=%s\n",
	       grant ? "grant" : "ping", n, ok, err, lost, percentile(t, (size_t)ok, 50),
	       percentile(t, (size_t)ok, 99), errname[0] ? errname : "-");
	return 0;
}

/* pair N PRIO: N rounds of one Peer.Ping then one grant, alternating, so
 * that both see the same machine load; p50/p99 of each */
static int cmd_pair(long n, unsigned prio)
{
	_cleanup_free_ uint64_t *tp = calloc((size_t)n, sizeof(uint64_t));
	_cleanup_free_ uint64_t *tg = calloc((size_t)n, sizeof(uint64_t));
	DBusConnection *bus = bus_open();
	struct sleeper s = {};
	long np = 0, ng = 0, err = 0, lost = 0;
	char errname[256] = "";

	if (!tp || !tg || sleeper_start(&s) < 0)
		return 2;
	for (long i = 0; i < n; i++) {
		int r = timed_call(bus, new_ping(), errname, sizeof(errname), &tp[np]);

		if (r == -ENOMEM)
			return 2;
		if (r == 0)
			np++;
		r = timed_call(bus, new_grant(s.tid, prio), errname, sizeof(errname), &tg[ng]);
		if (r == -ENOMEM)
			return 2;
		if (r == 0)
			ng++;
		else if (r == 1)
			err++;
		else
			lost++;
	}
	printf("pair n=%ld ping_ok=%ld grant_ok=%ld err=%ld lost=%ld ping_p50_us=%" PRIu64
	       " ping_p99_us=%" PRIu64 " grant_p50_us=%" PRIu64 " grant_p99_us=%" PRIu64
	       " last_error=%s\n",
	       n, np, ng, err, lost, percentile(tp, (size_t)np, 50), percentile(tp, (size_t)np, 99),
	       percentile(tg, (size_t)ng, 50), percentile(tg, (size_t)ng, 99),
	       errname[0] ? errname : "-");
	return 0;
}

/* rate CLIENTS SECS PRIO: concurrent clients, grants per second */
static int cmd_rate(int clients, int secs, unsigned prio)
{
	int fds[64][2];
	long ok = 0, err = 0, lost = 0;

	if (clients < 1 || clients > 64)
		return 2;
	for (int c = 0; c < clients; c++) {
		pid_t pid;

		if (pipe2(fds[c], O_CLOEXEC) < 0)
			return 2;
		pid = fork();
		if (pid < 0)
			return 2;
		if (pid == 0) {
			DBusConnection *bus = bus_open();
			struct sleeper s = {};
			long o = 0, e = 0, l = 0;
			uint64_t end;
			char line[128];

			if (sleeper_start(&s) < 0)
				_exit(2);
			end = now_usec(CLOCK_MONOTONIC) + (uint64_t)secs * 1000000u;
			while (now_usec(CLOCK_MONOTONIC) < end) {
				DBusMessage *m = new_grant(s.tid, prio);
				int r;

				if (!m)
					_exit(2);
				r = call(bus, m, 5000, NULL, 0);
				dbus_message_unref(m);
				tally(r, &o, &e, &l);
			}
			snprintf(line, sizeof(line), "%ld %ld %ld\n", o, e, l);
			if (write(fds[c][1], line, strlen(line)) < 0)
				_exit(2);
			_exit(0);
		}
		close(fds[c][1]);
	}
	for (int c = 0; c < clients; c++) {
		char line[128] = "";
		long o = 0, e = 0, l = 0;
		ssize_t k = read(fds[c][0], line, sizeof(line) - 1);

		if (k > 0 && sscanf(line, "%ld %ld %ld", &o, &e, &l) == 3) {
			ok += o;
			err += e;
			lost += l;
		}
		close(fds[c][0]);
	}
	while (wait(NULL) > 0)
		;
	printf("rate clients=%d secs=%d ok=%ld err=%ld lost=%ld grants_per_s=%.0f\n", clients, secs,
	       ok, err, lost, (double)ok / secs);
	return 0;
}

/* burst N PRIO: back to back, count what was answered and how */
static int cmd_burst(long n, unsigned prio, int max_secs)
{
	DBusConnection *bus = bus_open();
	struct sleeper s = {};
	long ok = 0, err = 0, lost = 0, first_refusal = -1, first_lost = -1, i;
	char errname[256] = "", first_err[256] = "";
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	int consecutive_lost = 0;

	if (sleeper_start(&s) < 0)
		return 2;
	for (i = 0; i < n; i++) {
		DBusMessage *m = new_grant(s.tid, prio);
		int r;

		if (!m)
			return 2;
		r = call(bus, m, 2000, errname, sizeof(errname));
		dbus_message_unref(m);
		if (r == 0) {
			ok++;
			consecutive_lost = 0;
		} else if (r == 1) {
			err++;
			consecutive_lost = 0;
			if (first_refusal < 0) {
				first_refusal = i;
				snprintf(first_err, sizeof(first_err), "%s", errname);
			}
		} else {
			lost++;
			if (first_lost < 0)
				first_lost = i;
			/* a daemon that stopped answering: do not wait 2 s 100,000 times */
			if (++consecutive_lost >= 5 || r == -EIO)
				break;
		}
		if (max_secs > 0 &&
		    now_usec(CLOCK_MONOTONIC) - start > (uint64_t)max_secs * 1000000u)
			break;
	}
	printf("burst n=%ld sent=%ld ok=%ld refused=%ld unanswered=%ld first_refusal_at=%ld "
	       "first_refusal=%s "
	       "first_unanswered_at=%ld secs=%.1f\n",
	       n, i < n ? i + 1 : n, ok, err, lost, first_refusal, first_err[0] ? first_err : "-",
	       first_lost, (double)(now_usec(CLOCK_MONOTONIC) - start) / 1e6);
	return 0;
}

/* hold N PRIO: N granted sleeping threads, until stdin closes */
static int cmd_hold(long n, unsigned prio)
{
	DBusConnection *bus = bus_open();
	_cleanup_free_ struct sleeper *s = calloc((size_t)n, sizeof(*s));
	long ok = 0;
	char errname[256] = "", buf[16];

	if (!s)
		return 2;
	for (long i = 0; i < n; i++) {
		DBusMessage *m;

		if (sleeper_start(&s[i]) < 0)
			return 2;
		m = new_grant(s[i].tid, prio);
		if (!m)
			return 2;
		if (call(bus, m, 5000, errname, sizeof(errname)) == 0)
			ok++;
		dbus_message_unref(m);
	}
	printf("hold n=%ld granted=%ld last_error=%s\n", n, ok, errname[0] ? errname : "-");
	fflush(stdout);
	/* until a line comes or stdin closes */
	while (read(STDIN_FILENO, buf, sizeof(buf)) < 0 && errno == EINTR)
		;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && streq(argv[1], "ping"))
		return cmd_latency(false, atol(argv[2]), 0);
	if (argc == 4 && streq(argv[1], "grant"))
		return cmd_latency(true, atol(argv[2]), (unsigned)atoi(argv[3]));
	if (argc == 4 && streq(argv[1], "pair"))
		return cmd_pair(atol(argv[2]), (unsigned)atoi(argv[3]));
	if (argc == 5 && streq(argv[1], "rate"))
		return cmd_rate(atoi(argv[2]), atoi(argv[3]), (unsigned)atoi(argv[4]));
	if ((argc == 4 || argc == 5) && streq(argv[1], "burst"))
		return cmd_burst(atol(argv[2]), (unsigned)atoi(argv[3]),
				 argc == 5 ? atoi(argv[4]) : 0);
	if (argc == 4 && streq(argv[1], "hold"))
		return cmd_hold(atol(argv[2]), (unsigned)atoi(argv[3]));
	fprintf(stderr, "usage: daemon-bench ping N | grant N PRIO | rate CLIENTS SECS PRIO | "
			"pair N PRIO | burst N PRIO [MAXSECS] | hold N PRIO\n");
	return 2;
}
