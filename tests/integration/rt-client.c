/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client: a small libdbus client of realtimed for the integration tests
 * and scripts/demo.
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
 *
 *   rt-client spin SECS [DELAY_MS] [--go FILE] [--self-fifo PRIO] [--repromote MS]
 *	Prints "pid P", sleeps DELAY_MS (or, with --go, until FILE exists, so
 *	that several start together), then busy-loops: the runaway that the VM tier makes
 *	SCHED_FIFO to trigger the canary. Once it has run realtime and is
 *	demoted again, it prints "demoted after N ms of realtime
 *	(CLOCK_MONOTONIC T0 to T1 ms)" and exits 0;
 *	after SECS seconds of wall time it gives up (exit 1), its own safety
 *	net. Never make it realtime on a host.
 *	--self-fifo PRIO: it makes itself SCHED_FIFO PRIO after DELAY_MS,
 *	through its own RLIMIT_RTPRIO (a realtime thread realtimed never
 *	granted). --repromote MS: once demoted, it keeps spinning and calling
 *	sched_setscheduler(SCHED_FIFO) at the priority it had for MS more
 *	milliseconds, as a runaway that fights back would; it prints
 *	"repromote: refused N times (ERROR)" and exits 0 if the kernel never
 *	let it, or "repromote: took SCHED_FIFO again after N ms", demotes
 *	itself at once (so that the VM lives on) and exits 1.
 *
 *   rt-client hold N [--uids R:E:S] [--main-uids R:E:S]
 *	Starts N sleeping threads, prints "pid P" and "threads T1 .. TN", then
 *	reads commands on stdin: "exit K" ends thread K (1-based) and prints
 *	"exited K"; "quit" or end of input exits. Started as root, each of the
 *	N threads can switch its own real, effective and saved uid (--uids),
 *	and the main thread its own (--main-uids), with the raw setresuid
 *	system call, which changes only the calling thread (glibc's wrapper
 *	changes every thread): a process whose threads run as different users.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

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
	a->tid = gettid_();
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

static int cmd_ask(int argc, char **argv)
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
	dbus_uint64_t pid, tid;
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

	dbus_error_init(&err);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
	if (!bus) {
		fprintf(stderr, "rt-client: cannot connect to the system bus: %s\n", err.message);
		return 2;
	}

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

	pid = (dbus_uint64_t)getpid();
	tid = (dbus_uint64_t)a.tid;
	if (rtkit && want_nice) {
		dbus_int32_t n = nice_level;

		m = dbus_message_new_method_call(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE,
						 "MakeThreadHighPriorityWithPID");
		if (m)
			dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
						 DBUS_TYPE_INT32, &n, DBUS_TYPE_INVALID);
	} else if (rtkit) {
		dbus_uint32_t p = prio;

		m = dbus_message_new_method_call(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE,
						 "MakeThreadRealtimeWithPID");
		if (m)
			dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
						 DBUS_TYPE_UINT32, &p, DBUS_TYPE_INVALID);
	} else if (want_nice) {
		dbus_int32_t n = nice_level;

		m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
						 "MakeThreadHighPriority");
		if (m)
			dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
						 DBUS_TYPE_INT32, &n, DBUS_TYPE_INVALID);
	} else {
		dbus_uint32_t p = prio;

		m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
						 "MakeThreadRealtime");
		if (m)
			dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
						 DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &p,
						 DBUS_TYPE_INVALID);
	}
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

/* hold: sleeping threads that a test points the daemon at. */
struct holder {
	pthread_t thread;
	pid_t tid;
	int pipe[2];
	const uid_t *uids; /* NULL: keep */
};

/* "R:E:S" */
static int parse_uids(const char *s, uid_t ret[3])
{
	unsigned r, e, u;
	char end;

	if (sscanf(s, "%u:%u:%u%c", &r, &e, &u, &end) != 3)
		return -EINVAL;
	ret[0] = r;
	ret[1] = e;
	ret[2] = u;
	return 0;
}

/* This thread only: the raw system call, not glibc's setxid broadcast. */
static int setresuid_thread(const uid_t uids[3])
{
	return (int)syscall(SYS_setresuid, uids[0], uids[1], uids[2]);
}

static void *hold_thread(void *userdata)
{
	struct holder *h = userdata;
	char c;

	if (h->uids && setresuid_thread(h->uids) < 0) {
		fprintf(stderr, "rt-client hold: setresuid in a thread: %m\n");
		exit(2);
	}
	__atomic_store_n(&h->tid, gettid_(), __ATOMIC_SEQ_CST);
	while (read(h->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static int cmd_hold(int argc, char **argv)
{
	_cleanup_free_ struct holder *h = NULL;
	uid_t uids[3], main_uids[3];
	bool set_uids = false, set_main_uids = false;
	char line[64];
	int n;

	if (argc < 3 || (n = atoi(argv[2])) < 1 || n > 1000) {
		fprintf(stderr, "rt-client hold: need a thread count 1..1000\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (streq(argv[i], "--uids") && i + 1 < argc && parse_uids(argv[i + 1], uids) == 0)
			set_uids = true;
		else if (streq(argv[i], "--main-uids") && i + 1 < argc &&
			 parse_uids(argv[i + 1], main_uids) == 0)
			set_main_uids = true;
		else {
			fprintf(stderr, "rt-client hold: bad argument %s\n", argv[i]);
			return 2;
		}
		i++;
	}
	h = calloc((size_t)n, sizeof(*h));
	if (!h)
		return 2;
	for (int i = 0; i < n; i++) {
		h[i].uids = set_uids ? uids : NULL;
		if (pipe2(h[i].pipe, O_CLOEXEC) < 0 ||
		    pthread_create(&h[i].thread, NULL, hold_thread, &h[i]) != 0) {
			fprintf(stderr, "rt-client hold: cannot start thread %d: %m\n", i + 1);
			return 2;
		}
	}
	for (int i = 0; i < n; i++)
		while (__atomic_load_n(&h[i].tid, __ATOMIC_SEQ_CST) == 0)
			usleep(1000);
	if (set_main_uids && setresuid_thread(main_uids) < 0) {
		fprintf(stderr, "rt-client hold: setresuid in the main thread: %m\n");
		return 2;
	}
	printf("pid %d\nthreads", getpid());
	for (int i = 0; i < n; i++)
		printf(" %d", h[i].tid);
	printf("\n");
	fflush(stdout);

	while (fgets(line, sizeof(line), stdin)) {
		int k;

		if (sscanf(line, "exit %d", &k) == 1 && k >= 1 && k <= n && h[k - 1].pipe[1] >= 0) {
			h[k - 1].pipe[1] = safe_close(h[k - 1].pipe[1]);
			pthread_join(h[k - 1].thread, NULL);
			printf("exited %d\n", k);
			fflush(stdout);
		} else if (startswith(line, "quit"))
			break;
	}
	return 0;
}

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static bool is_realtime(void)
{
	int p = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

	return p == SCHED_FIFO || p == SCHED_RR;
}

/* After a demotion: tries to take SCHED_FIFO prio back for ms. */
static int spin_repromote(int prio, int ms)
{
	struct sched_param sp = { .sched_priority = prio };
	uint64_t start = mono_usec(), end = start + (uint64_t)ms * 1000u;
	volatile unsigned long n = 0;
	unsigned refused = 0;
	int error = 0;

	while (mono_usec() < end) {
		for (int i = 0; i < 20000; i++)
			n++;
		if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0) {
			printf("repromote: took SCHED_FIFO %d again after %" PRIu64 " ms\n", prio,
			       (mono_usec() - start) / 1000);
			sp.sched_priority = 0;
			(void)sched_setscheduler(0, SCHED_OTHER, &sp);
			return 1;
		}
		error = errno;
		refused++;
	}
	printf("repromote: refused %u times (%s)\n", refused, strerror(error));
	return 0;
}

/* spin: busy-loop until the deadline, or until made realtime and then
 * demoted again; reports how long it ran realtime. */
static int cmd_spin(int argc, char **argv)
{
	volatile unsigned long n = 0;
	int secs = argc >= 3 ? atoi(argv[2]) : 0;
	int delay_ms = argc >= 4 && argv[3][0] != '-' ? atoi(argv[3]) : 0;
	int self_prio = 0, repromote_ms = 0, rt_prio = 1;
	uint64_t end, rt_since = 0, now;
	const char *go = NULL;

	for (int i = 3; i < argc; i++) {
		if (streq(argv[i], "--go") && i + 1 < argc)
			go = argv[++i];
		else if (streq(argv[i], "--self-fifo") && i + 1 < argc)
			self_prio = atoi(argv[++i]);
		else if (streq(argv[i], "--repromote") && i + 1 < argc)
			repromote_ms = atoi(argv[++i]);
		else if (i > 3 || argv[i][0] == '-') {
			fprintf(stderr, "rt-client spin: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (secs < 1 || secs > 600) {
		fprintf(stderr, "rt-client spin: need 1..600 seconds\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	/* sleep first, so that the test can grant before the spinning starts */
	if (delay_ms > 0)
		usleep((useconds_t)delay_ms * 1000u);
	for (end = mono_usec() + (uint64_t)secs * 1000000u; go && access(go, F_OK) < 0;) {
		if (mono_usec() > end) {
			printf("never started: no %s\n", go);
			return 1;
		}
		usleep(10000);
	}
	if (self_prio > 0) {
		struct sched_param sp = { .sched_priority = self_prio };

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0) {
			printf("could not make itself SCHED_FIFO %d: %s\n", self_prio,
			       strerror(errno));
			return 2;
		}
	}
	end = mono_usec() + (uint64_t)secs * 1000000u;
	do {
		for (int i = 0; i < 20000; i++)
			n++;
		now = mono_usec();
		if (is_realtime()) {
			struct sched_param sp;

			if (rt_since == 0 && sched_getparam(0, &sp) == 0)
				rt_prio = sp.sched_priority;
			if (rt_since == 0)
				rt_since = now;
		} else if (rt_since != 0) {
			printf("demoted after %" PRIu64 " ms of realtime (CLOCK_MONOTONIC %" PRIu64
			       " to %" PRIu64 " ms)\n",
			       (now - rt_since) / 1000, rt_since / 1000, now / 1000);
			fflush(stdout);
			return repromote_ms > 0 ? spin_repromote(rt_prio, repromote_ms) : 0;
		}
	} while (now < end);
	if (rt_since != 0)
		printf("still realtime after %" PRIu64 " ms: not demoted\n",
		       (now - rt_since) / 1000);
	else
		printf("never realtime\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && streq(argv[1], "ask"))
		return cmd_ask(argc, argv);
	if (argc >= 2 && streq(argv[1], "hold"))
		return cmd_hold(argc, argv);
	if (argc >= 2 && streq(argv[1], "spin"))
		return cmd_spin(argc, argv);
	fprintf(stderr, "usage: rt-client ask [--rtkit] [--policy fifo|rr] [--prio N] [--nice N] "
			"[--hold SEC] [--lower N] [--name HEX]\n"
			"       rt-client hold NTHREADS [--uids R:E:S] [--main-uids R:E:S]\n"
			"       rt-client spin SECS [DELAY_MS] [--go FILE] [--self-fifo PRIO] "
			"[--repromote MS]\n");
	return 2;
}
