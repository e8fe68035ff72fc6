/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fairness-bench: the two sides of bench/fairness-bench.sh. One user
 * floods every method realtimed serves; another user's grants are timed
 * meanwhile, and without the flood, to see whether one user can take
 * realtime (or its speed) away from another.
 *
 *   fairness-bench victim own N PRIO
 *       N rounds, 10 ms apart, of MakeThreadRealtime(0, TID, "rr", PRIO) on
 *       a thread of its own that sleeps, then ResetThread(0, TID)
 *   fairness-bench victim fresh N PRIO
 *       the same on the main thread of a new child process each round
 *       (that sleeps too), so that a user whom polkit authorizes is asked
 *       about each time (polkit's "yes" is cached per process)
 *   fairness-bench victim bus N PRIO
 *       N rounds, 10 ms apart, of the bus's own GetId: no realtimed in it,
 *       the floor that any service's round trip shares under the flood
 *   fairness-bench flood CONNECTIONS DEPTH SECS OTHER_UID
 *       CONNECTIONS connections, each with DEPTH calls in flight, cycling
 *       through: grants past the user's limits (realtime and nice, native
 *       and rtkit), ListAllGrants, Explain of OTHER_UID, Reload, Explain
 *       of itself, ListGrants, Properties Get/GetAll; for SECS seconds or
 *       until SIGTERM
 *   fairness-bench closeflood THREADS CALLS SECS OTHER_UID
 *       THREADS threads, each opening a connection that sends CALLS of
 *       those calls wanting no reply and closes at once, again and again
 *       (issue 31), for SECS seconds or until SIGTERM
 *
 * Output: one line "key=value ..." per run. A victim's grant is timed from
 * send to answer; its errors are counted by D-Bus name. Every grant goes
 * to a thread blocked on a pipe or a process in pause(): nothing it
 * grants runs.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "percentile.h"
#include "time-util.h"
#include "../tests/close-flood.h"
#include "../tests/system-bus.h"
#include "../tests/sleeper.h"

#define CALL_TIMEOUT_MS 30000
#define FLOOD_THREADS 80 /* above the default ThreadsPerUserMax=64 */
#define CONNECTIONS_MAX 64

/* Error names and how often each came. */
typedef struct Errors {
	char name[16][128];
	char message[16][256]; /* the first message of each name */
	long n[16];
	size_t count;
	long other;
} Errors;

static void errors_add_n(Errors *e, const char *name, long n)
{
	for (size_t i = 0; i < e->count; i++)
		if (streq(e->name[i], name)) {
			e->n[i] += n;
			return;
		}
	if (e->count == ELEMENTSOF(e->name)) {
		e->other += n;
		return;
	}
	snprintf(e->name[e->count], sizeof(e->name[0]), "%s", name);
	e->n[e->count++] = n;
}

static void errors_add(Errors *e, const char *name)
{
	errors_add_n(e, name, 1);
}

static void errors_add_message(Errors *e, const char *name, const char *message)
{
	errors_add(e, name);
	for (size_t i = 0; i < e->count; i++)
		if (streq(e->name[i], name) && !e->message[i][0])
			snprintf(e->message[i], sizeof(e->message[i]), "%s", message);
}

/* "Name:count,Name:count" without the common prefixes, or "-". */
static void errors_print(const Errors *e, const char *key)
{
	printf(" %s=", key);
	if (e->count == 0 && !e->other) {
		printf("-");
		return;
	}
	for (size_t i = 0; i < e->count; i++) {
		const char *s = strrchr(e->name[i], '.');

		printf("%s%s:%ld", i ? "," : "", s ? s + 1 : e->name[i], e->n[i]);
	}
	if (e->other)
		printf(",other:%ld", e->other);
}

/* A thread that only sleeps, on a pipe of its own: the target of the
 * grants. */
typedef struct Sleeper {
	SleeperThread thread;
	int pipe[2];
} Sleeper;

static int sleeper_start(Sleeper *s)
{
	if (pipe2(s->pipe, O_CLOEXEC) < 0)
		return -errno;
	return -sleeper_thread_start(&s->thread, s->pipe[0], NULL);
}

static DBusConnection *bus_open(void)
{
	DBusConnection *bus;

	bus = system_bus_open("fairness-bench");
	if (!bus)
		exit(2);
	dbus_connection_set_exit_on_disconnect(bus, false);
	return bus;
}

/* One call; 0 on a method return, else the error's name in errors. */
static int call(DBusConnection *bus, DBusMessage *m, Errors *errors)
{
	DBusError err;

	if (bus_call(bus, m, CALL_TIMEOUT_MS, &err))
		return 0;
	errors_add_message(errors, err.name ? err.name : "(none)", err.message ? err.message : "");
	dbus_error_free(&err);
	return -EIO;
}

/* --- victim ---------------------------------------------------------------- */

static DBusMessage *grant_msg(pid_t pid, pid_t tid, unsigned prio)
{
	dbus_uint64_t p = (dbus_uint64_t)pid, t = (dbus_uint64_t)tid;
	dbus_uint32_t pr = prio;
	const char *pol = "rr";

	return bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadRealtime",
			  DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &pol,
			  DBUS_TYPE_UINT32, &pr, DBUS_TYPE_INVALID);
}

static DBusMessage *reset_msg(pid_t pid, pid_t tid)
{
	dbus_uint64_t p = (dbus_uint64_t)pid, t = (dbus_uint64_t)tid;

	return bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ResetThread", DBUS_TYPE_UINT64,
			  &p, DBUS_TYPE_UINT64, &t, DBUS_TYPE_INVALID);
}

/* A child that only waits, and dies with us. */
static pid_t child_start(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return pid;
}

static DBusMessage *getid_msg(void)
{
	return bus_method(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "GetId",
			  DBUS_TYPE_INVALID);
}

/* mode: "own", "fresh" (a new process each round) or "bus" (GetId) */
static int cmd_victim(const char *mode, long n, unsigned prio)
{
	bool fresh = streq(mode, "fresh"), bus_only = streq(mode, "bus");
	_cleanup_free_ uint64_t *t = calloc((size_t)n, sizeof(uint64_t));
	DBusConnection *bus = bus_open();
	Errors grant_errors = {}, reset_errors = {};
	struct rlimit rl = { 200000, 200000 };
	Sleeper s = {};
	long ok = 0, done = 0;
	uint64_t t0 = now_usec(CLOCK_MONOTONIC), max = 0;

	/* RTTime= of [Default] (the user polkit authorizes) is 200 ms */
	(void)setrlimit(RLIMIT_RTTIME, &rl);
	if (!t || sleeper_start(&s) < 0)
		return 2;
	/* bounded in time too: 3 minutes, whatever the flood does */
	for (; done < n && now_usec(CLOCK_MONOTONIC) - t0 < 180 * USEC_PER_SEC; done++) {
		pid_t pid = 0, tid = s.thread.tid;
		uint64_t a, d;
		int r;

		if (fresh) {
			pid = tid = child_start();
			if (pid < 0)
				return 2;
		}
		a = now_usec(CLOCK_MONOTONIC);
		r = call(bus, bus_only ? getid_msg() : grant_msg(pid, tid, prio), &grant_errors);
		d = now_usec(CLOCK_MONOTONIC) - a;
		if (r == 0 && bus_only)
			t[ok++] = d;
		else if (r == 0) {
			t[ok++] = d;
			(void)call(bus, reset_msg(pid, tid), &reset_errors);
		}
		if (d > max)
			max = d;
		if (fresh) {
			kill(pid, SIGKILL);
			(void)waitpid(pid, NULL, 0);
		}
		/* paced, as an audio client is: the rounds spread over the flood */
		usleep(10 * 1000);
	}
	printf("victim mode=%s n=%ld ok=%ld failed=%ld p50_us=%" PRIu64 " p99_us=%" PRIu64
	       " max_us=%" PRIu64 " secs=%.1f",
	       mode, done, ok, done - ok, percentile(t, (size_t)ok, 50),
	       percentile(t, (size_t)ok, 99), max, (double)(now_usec(CLOCK_MONOTONIC) - t0) / 1e6);
	errors_print(&grant_errors, "errors");
	errors_print(&reset_errors, "reset_errors");
	printf("\n");
	for (size_t i = 0; i < grant_errors.count; i++)
		printf("victim_error %s: %s\n", grant_errors.name[i], grant_errors.message[i]);
	return 0;
}

/* --- flood ----------------------------------------------------------------- */

static atomic_bool stop;
static Sleeper flood_sleepers[FLOOD_THREADS];
static uint32_t other_uid;

typedef struct Flooder {
	pthread_t thread;
	unsigned index, depth;
	bool close; /* closeflood: depth calls wanting no reply, then hang up */
	long sent, answered, ok;
	long connections, refused; /* closeflood: made, and refused by dbus-daemon */
	Errors errors;
} Flooder;

enum {
	K_NATIVE_RT,
	K_NATIVE_NICE,
	K_LIST_ALL,
	K_EXPLAIN_OTHER,
	K_RELOAD,
	K_EXPLAIN_SELF,
	K_LIST,
	K_PROP_GET,
	K_PROP_GET_ALL,
	K_RTKIT_RT,
	K_RTKIT_NICE_PID,
	K_RTKIT_PROP_GET_ALL,
	K_MANAGE_AGAIN, /* manage calls are the ones polkit is asked about */
	_K_MAX,
};

static DBusMessage *flood_msg(unsigned k, unsigned i)
{
	dbus_uint64_t pid = 0, tid = (dbus_uint64_t)flood_sleepers[i % FLOOD_THREADS].thread.tid;
	dbus_uint64_t self = (dbus_uint64_t)getpid();
	dbus_uint32_t prio = 1, self_uid = (dbus_uint32_t)getuid();
	dbus_int32_t nice = 0;
	const char *pol = "rr", *native = NATIVE_IFACE, *rtkit = RTKIT_IFACE,
		   *prop = "MaxRealtimePriority";

	switch (k) {
	case K_NATIVE_RT:
		return bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadRealtime",
				  DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_STRING,
				  &pol, DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
	case K_NATIVE_NICE:
		return bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadHighPriority",
				  DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32,
				  &nice, DBUS_TYPE_INVALID);
	case K_LIST_ALL:
	case K_LIST:
	case K_RELOAD:
	case K_MANAGE_AGAIN:
		return bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
				  k == K_LIST_ALL ? "ListAllGrants"
				  : k == K_LIST	  ? "ListGrants"
						  : "Reload",
				  DBUS_TYPE_INVALID);
	case K_EXPLAIN_OTHER:
	case K_EXPLAIN_SELF:
		return bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "Explain",
				  DBUS_TYPE_UINT32, k == K_EXPLAIN_SELF ? &self_uid : &other_uid,
				  DBUS_TYPE_INVALID);
	case K_PROP_GET:
		return bus_method(NATIVE_NAME, NATIVE_PATH, DBUS_INTERFACE_PROPERTIES, "Get",
				  DBUS_TYPE_STRING, &native, DBUS_TYPE_STRING, &prop,
				  DBUS_TYPE_INVALID);
	case K_PROP_GET_ALL:
		return bus_method(NATIVE_NAME, NATIVE_PATH, DBUS_INTERFACE_PROPERTIES, "GetAll",
				  DBUS_TYPE_STRING, &native, DBUS_TYPE_INVALID);
	case K_RTKIT_RT:
		return bus_method(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, "MakeThreadRealtime",
				  DBUS_TYPE_UINT64, &tid, DBUS_TYPE_UINT32, &prio,
				  DBUS_TYPE_INVALID);
	case K_RTKIT_NICE_PID:
		return bus_method(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE,
				  "MakeThreadHighPriorityWithPID", DBUS_TYPE_UINT64, &self,
				  DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32, &nice,
				  DBUS_TYPE_INVALID);
	default:
		return bus_method(RTKIT_NAME, RTKIT_PATH, DBUS_INTERFACE_PROPERTIES, "GetAll",
				  DBUS_TYPE_STRING, &rtkit, DBUS_TYPE_INVALID);
	}
}

static DBusMessage *close_call(unsigned i, void *userdata)
{
	Flooder *f = userdata;
	unsigned next = f->index * 7 + (unsigned)f->connections * f->depth + i;

	return flood_msg(next % _K_MAX, next);
}

/* closeflood: a connection that sends its calls and hangs up, again and
 * again. */
static void closer_main(Flooder *f)
{
	while (!stop) {
		long n = close_flood_round(f->depth, close_call, f);

		if (n < 0) {
			/* dbus-daemon refused the connection: its own limits */
			f->refused++;
			usleep(1000);
			continue;
		}
		f->connections++;
		f->sent += n;
	}
}

/* One connection: DEPTH calls sent, then their answers taken in order,
 * again and again (closeflood: closer_main()). */
static void *flooder_main(void *userdata)
{
	Flooder *f = userdata;
	DBusConnection *bus;

	if (f->close) {
		closer_main(f);
		return NULL;
	}
	bus = bus_open();
	DBusPendingCall **p = calloc(f->depth, sizeof(*p));
	unsigned next = f->index * 7;

	if (!p)
		abort();
	while (!stop) {
		for (unsigned i = 0; i < f->depth; i++, next++) {
			DBusMessage *m = flood_msg(next % _K_MAX, next);

			if (!dbus_connection_send_with_reply(bus, m, &p[i], CALL_TIMEOUT_MS))
				p[i] = NULL;
			dbus_message_unref(m);
			f->sent++;
		}
		dbus_connection_flush(bus);
		for (unsigned i = 0; i < f->depth; i++) {
			DBusMessage *reply;

			if (!p[i])
				continue;
			dbus_pending_call_block(p[i]);
			reply = dbus_pending_call_steal_reply(p[i]);
			if (reply) {
				f->answered++;
				if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR)
					errors_add(&f->errors, dbus_message_get_error_name(reply));
				else
					f->ok++;
				dbus_message_unref(reply);
			}
			dbus_pending_call_unref(p[i]);
		}
	}
	free(p);
	dbus_connection_close(bus);
	dbus_connection_unref(bus);
	return NULL;
}

static void on_term(int sig)
{
	stop = true;
}

/* The flood's shared start: its sleeping targets, SIGTERM and SIGINT. */
static int flood_setup(void)
{
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (unsigned i = 0; i < FLOOD_THREADS; i++)
		if (sleeper_start(&flood_sleepers[i]) < 0)
			return -1;
	return 0;
}

/* Waits until SIGTERM or end (CLOCK_MONOTONIC usec), then stops the
 * flood's threads. */
static void flood_wait(uint64_t end)
{
	while (!stop && now_usec(CLOCK_MONOTONIC) < end)
		usleep(50 * 1000);
	stop = true;
}

static int cmd_flood(bool close, unsigned n, unsigned depth, unsigned secs)
{
	static Flooder f[CONNECTIONS_MAX];
	Errors all = {};
	long sent = 0, answered = 0, ok = 0, connections = 0, refused = 0;
	uint64_t t0;

	if (n < 1 || n > CONNECTIONS_MAX || depth < 1 || depth > (close ? 256 : 100) ||
	    flood_setup() < 0)
		return 2;
	t0 = now_usec(CLOCK_MONOTONIC);
	for (unsigned i = 0; i < n; i++) {
		f[i].index = i;
		f[i].depth = depth;
		f[i].close = close;
		if (pthread_create(&f[i].thread, NULL, flooder_main, &f[i]) != 0)
			return 2;
	}
	printf("flood started %s=%u depth=%u\n", close ? "threads" : "connections", n, depth);
	fflush(stdout);
	flood_wait(t0 + (uint64_t)secs * 1000000u);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(f[i].thread, NULL);
		sent += f[i].sent;
		answered += f[i].answered;
		ok += f[i].ok;
		connections += f[i].connections;
		refused += f[i].refused;
		for (size_t k = 0; k < f[i].errors.count; k++)
			errors_add_n(&all, f[i].errors.name[k], f[i].errors.n[k]);
		all.other += f[i].errors.other;
	}
	printf("flood sent=%ld answered=%ld ok=%ld secs=%.1f", sent, answered, ok,
	       (double)(now_usec(CLOCK_MONOTONIC) - t0) / 1e6);
	if (close)
		printf(" connections=%ld refused_connections=%ld", connections, refused);
	errors_print(&all, "errors");
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc == 5 && streq(argv[1], "victim"))
		return cmd_victim(argv[2], atol(argv[3]), (unsigned)atoi(argv[4]));
	if (argc == 6 && (streq(argv[1], "flood") || streq(argv[1], "closeflood"))) {
		other_uid = (uint32_t)strtoul(argv[5], NULL, 10);
		return cmd_flood(streq(argv[1], "closeflood"), (unsigned)atoi(argv[2]),
				 (unsigned)atoi(argv[3]), (unsigned)atoi(argv[4]));
	}
	fprintf(stderr, "usage: see the comment atop bench/fairness-bench.c\n");
	return 2;
}
