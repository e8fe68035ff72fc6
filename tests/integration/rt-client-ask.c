/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client ask: a client that asks realtimed for realtime as an audio
 * application does, and checks what the kernel then shows (rt-client.c
 * lists the other subcommands).
 *
 *   rt-client ask [--rtkit] [--policy fifo|rr] [--prio N] [--nice N] [--hold SEC]
 *                 [--lower N] [--name HEX]
 *	Behaves like a JACK client: starts an "audio" thread, asks the daemon
 *	(native interface, or the RealtimeKit one with --rtkit) to make that
 *	thread realtime (or nice N), then the thread reports the scheduling the
 *	kernel gives it. Like PipeWire, it first lowers its own RLIMIT_RTTIME to
 *	the RTTimeUSecMax the daemon announces. Exit 0: granted and verified,
 *	1: refused (the D-Bus error is printed), 2: anything else. --hold keeps
 *	the process (and its audio thread) alive SEC seconds after the answer,
 *	a refusal included. --lower N: the audio thread watches itself
 *	(busy, as SCHED_OTHER) from the moment it exists, and the instant it
 *	turns realtime it lowers itself to priority N of the same policy (as
 *	any thread may) and sleeps: the daemon's read-back then finds priority
 *	N, not what it set. --lower 0 drops to SCHED_OTHER instead. With
 *	--name, the granted thread then renames itself (prctl PR_SET_NAME) to
 *	the bytes given in hex, any bytes at all, as a hostile client may.
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "rt-client.h"
#include "../system-bus.h"

static const char *policy_name(int p)
{
	switch (p & ~SCHED_RESET_ON_FORK) {
	case SCHED_OTHER:
		return "SCHED_OTHER";
	case SCHED_FIFO:
		return "SCHED_FIFO";
	case SCHED_RR:
		return "SCHED_RR";
	case SCHED_BATCH:
		return "SCHED_BATCH";
	case SCHED_IDLE:
		return "SCHED_IDLE";
	default:
		return "?";
	}
}

/* The audio thread: reports its tid, waits for the verdict, then reports
 * what the kernel says about itself, and stays alive while asked to. */
struct audio {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int lower; /* --lower; -1: not given */
	pid_t tid;
	bool decided;
	int policy;
	int priority;
	int nice;
	const char *name; /* renames itself to this after the verdict, or NULL */
};

static void *audio_thread(void *userdata)
{
	struct audio *a = userdata;
	struct sched_param sp;

	pthread_mutex_lock(&a->lock);
	a->tid = gettid();
	pthread_cond_broadcast(&a->cond);
	if (a->lower >= 0) {
		/* Busy only while SCHED_OTHER, and for at most 30 s: realtime,
		 * it lowers itself at once and goes to sleep below. */
		uint64_t end = (uint64_t)time(NULL) + 30;
		int p;

		pthread_mutex_unlock(&a->lock);
		do
			p = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;
		while (p != SCHED_FIFO && p != SCHED_RR && (uint64_t)time(NULL) < end);
		if (p == SCHED_FIFO || p == SCHED_RR) {
			sp.sched_priority = a->lower;
			/* the daemon set SCHED_RESET_ON_FORK, which a thread may not clear */
			if (sched_setscheduler(
				    0, (a->lower > 0 ? p : SCHED_OTHER) | SCHED_RESET_ON_FORK,
				    &sp) < 0)
				fprintf(stderr, "rt-client: cannot lower myself to %d: %m\n",
					a->lower);
		}
		pthread_mutex_lock(&a->lock);
	}
	while (!a->decided)
		pthread_cond_wait(&a->cond, &a->lock);
	a->policy = sched_getscheduler(0);
	if (sched_getparam(0, &sp) == 0)
		a->priority = sp.sched_priority;
	errno = 0;
	a->nice = getpriority(PRIO_PROCESS, 0);
	if (a->name)
		(void)prctl(PR_SET_NAME, (unsigned long)a->name, 0, 0, 0);
	a->decided = false;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	/* an audio thread would now process buffers; this one just sleeps */
	for (;;)
		pause();
	return NULL;
}

static int get_property_int64(DBusConnection *bus, bool rtkit, const char *prop, int64_t *ret)
{
	const char *iface = rtkit ? RTKIT_IFACE : NATIVE_IFACE;
	DBusMessage *m, *reply;
	DBusMessageIter it, sub;
	DBusError err;
	int r = -EIO;

	dbus_error_init(&err);
	m = dbus_message_new_method_call(rtkit ? RTKIT_NAME : NATIVE_NAME,
					 rtkit ? RTKIT_PATH : NATIVE_PATH,
					 "org.freedesktop.DBus.Properties", "Get");
	if (!m)
		return -ENOMEM;
	if (!dbus_message_append_args(m, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
				      DBUS_TYPE_INVALID)) {
		dbus_message_unref(m);
		return -ENOMEM;
	}
	reply = dbus_connection_send_with_reply_and_block(bus, m, 10000, &err);
	dbus_message_unref(m);
	if (!reply) {
		fprintf(stderr, "rt-client: reading %s failed: %s: %s\n", prop, err.name,
			err.message);
		dbus_error_free(&err);
		return -EIO;
	}
	if (dbus_message_iter_init(reply, &it) &&
	    dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_VARIANT) {
		dbus_message_iter_recurse(&it, &sub);
		switch (dbus_message_iter_get_arg_type(&sub)) {
		case DBUS_TYPE_INT64: {
			dbus_int64_t v;
			dbus_message_iter_get_basic(&sub, &v);
			*ret = v;
			r = 0;
			break;
		}
		case DBUS_TYPE_INT32: {
			dbus_int32_t v;
			dbus_message_iter_get_basic(&sub, &v);
			*ret = v;
			r = 0;
			break;
		}
		default:
			break;
		}
	}
	dbus_message_unref(reply);
	return r;
}

/* "ff41" -> "\xffA"; at most size - 1 bytes (a thread name has 15). */
static int parse_hex(const char *hex, char *buf, size_t size)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;

		if (n + 1 >= size || sscanf(hex, "%2x", &v) != 1 || v == 0)
			return -EINVAL;
		buf[n++] = (char)v;
	}
	if (hex[0] || n == 0)
		return -EINVAL;
	buf[n] = 0;
	return 0;
}

/* The request for audio thread tid of this process: realtime or nice, on
 * the native interface or the RealtimeKit one; NULL when out of memory. */
static DBusMessage *request_new(bool rtkit, bool want_nice, const char *policy, unsigned prio,
				int nice_level, pid_t audio_tid)
{
	dbus_uint64_t pid = (dbus_uint64_t)getpid(), tid = (dbus_uint64_t)audio_tid;
	dbus_uint32_t p = prio;
	dbus_int32_t n = nice_level;
	const char *member =
		rtkit ? (want_nice ? "MakeThreadHighPriorityWithPID" : "MakeThreadRealtimeWithPID")
		      : (want_nice ? "MakeThreadHighPriority" : "MakeThreadRealtime");
	DBusMessage *m;

	m = dbus_message_new_method_call(rtkit ? RTKIT_NAME : NATIVE_NAME,
					 rtkit ? RTKIT_PATH : NATIVE_PATH,
					 rtkit ? RTKIT_IFACE : NATIVE_IFACE, member);
	if (!m)
		return NULL;
	/* pid and tid, then nice, or the policy (native only) and priority */
	dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
				 DBUS_TYPE_INVALID);
	if (want_nice)
		dbus_message_append_args(m, DBUS_TYPE_INT32, &n, DBUS_TYPE_INVALID);
	else if (rtkit)
		dbus_message_append_args(m, DBUS_TYPE_UINT32, &p, DBUS_TYPE_INVALID);
	else
		dbus_message_append_args(m, DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &p,
					 DBUS_TYPE_INVALID);
	return m;
}

int cmd_ask(int argc, char **argv)
{
	bool rtkit = false, want_nice = false;
	const char *policy = "fifo";
	unsigned prio = 70;
	int nice_level = 0, hold = 0;
	char name[16];
	struct audio a = { .lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER,
			   .lower = -1 };
	pthread_t t;
	DBusConnection *bus;
	DBusMessage *m, *reply;
	DBusError err;
	int64_t rttime;
	int r;

	for (int i = 2; i < argc; i++) {
		if (streq(argv[i], "--rtkit"))
			rtkit = true;
		else if (streq(argv[i], "--policy") && i + 1 < argc)
			policy = argv[++i];
		else if (streq(argv[i], "--prio") && i + 1 < argc)
			prio = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (streq(argv[i], "--nice") && i + 1 < argc) {
			nice_level = atoi(argv[++i]);
			want_nice = true;
		} else if (streq(argv[i], "--hold") && i + 1 < argc)
			hold = atoi(argv[++i]);
		else if (streq(argv[i], "--lower") && i + 1 < argc)
			a.lower = atoi(argv[++i]);
		else if (streq(argv[i], "--name") && i + 1 < argc) {
			if (parse_hex(argv[++i], name, sizeof(name)) < 0) {
				fprintf(stderr,
					"rt-client: --name wants 1..15 non-zero hex bytes\n");
				return 2;
			}
			a.name = name;
		} else {
			fprintf(stderr, "rt-client: unknown argument %s\n", argv[i]);
			return 2;
		}
	}

	bus = system_bus_open("rt-client");
	if (!bus)
		return 2;

	/* Like PipeWire and JACK: run under the RLIMIT_RTTIME the daemon wants. */
	if (!want_nice && get_property_int64(bus, rtkit, "RTTimeUSecMax", &rttime) == 0 &&
	    rttime > 0) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_RTTIME, &rl) == 0 &&
		    (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)rttime)) {
			rl.rlim_cur = rl.rlim_max = (rlim_t)rttime;
			if (setrlimit(RLIMIT_RTTIME, &rl) < 0)
				fprintf(stderr,
					"rt-client: cannot lower RLIMIT_RTTIME to %" PRIi64
					": %m\n",
					rttime);
		}
	}

	r = pthread_create(&t, NULL, audio_thread, &a);
	if (r != 0) {
		fprintf(stderr, "rt-client: cannot start the audio thread: %s\n", strerror(r));
		return 2;
	}
	pthread_mutex_lock(&a.lock);
	while (a.tid == 0)
		pthread_cond_wait(&a.cond, &a.lock);
	pthread_mutex_unlock(&a.lock);

	m = request_new(rtkit, want_nice, policy, prio, nice_level, a.tid);
	if (!m) {
		fprintf(stderr, "rt-client: out of memory\n");
		return 2;
	}
	if (want_nice)
		printf("rt-client %d: asking %s for nice %d on audio thread %d\n", getpid(),
		       rtkit ? RTKIT_NAME : NATIVE_NAME, nice_level, a.tid);
	else
		printf("rt-client %d: asking %s for %s %u on audio thread %d\n", getpid(),
		       rtkit ? RTKIT_NAME : NATIVE_NAME, rtkit ? "realtime" : policy, prio, a.tid);
	fflush(stdout);
	dbus_error_init(&err);
	reply = dbus_connection_send_with_reply_and_block(bus, m, 30000, &err);
	dbus_message_unref(m);
	if (!reply) {
		printf("refused: %s: %s\n", err.name, err.message);
		fflush(stdout);
		dbus_error_free(&err);
		if (hold > 0)
			sleep((unsigned)hold);
		return 1;
	}
	dbus_message_unref(reply);

	pthread_mutex_lock(&a.lock);
	a.decided = true;
	pthread_cond_broadcast(&a.cond);
	while (a.decided)
		pthread_cond_wait(&a.cond, &a.lock);
	pthread_mutex_unlock(&a.lock);

	if (want_nice)
		printf("granted: audio thread %d runs %s nice %d\n", a.tid, policy_name(a.policy),
		       a.nice);
	else
		printf("granted: audio thread %d runs %s priority %d\n", a.tid,
		       policy_name(a.policy), a.priority);
	fflush(stdout);
	r = 0;
	if (want_nice ? a.nice != nice_level
		      : ((a.policy & ~SCHED_RESET_ON_FORK) == SCHED_OTHER ||
			 a.priority != (a.lower >= 0 ? a.lower : (int)prio))) {
		printf("mismatch: the daemon said yes but the kernel shows otherwise\n");
		r = 2;
	}
	fflush(stdout);
	if (hold > 0)
		sleep((unsigned)hold);
	dbus_connection_close(bus);
	dbus_connection_unref(bus);
	return r;
}
