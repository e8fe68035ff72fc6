// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-fuzz: sends realtimed random calls for a set time, as the
 * unprivileged user it runs as, and checks after every grant that the
 * thread holds no more than policy gives that user (see calls.c for the
 * calls, oracle.c for the checks). Worker threads send batches of calls;
 * between batches a controller thread checks every thread of the fuzzer against
 * policy, checks that each realtime one is supervised (listed by
 * ListGrants), and that the daemon still answers Peer.Ping.
 *
 *   bus-fuzz [--seconds N] [--seed N] [--workers N] [--label NAME]
 *            [--max-prio N] [--policies fifo,rr] [--min-nice N]
 *            [--rttime USEC|infinity] [--memlock BYTES|infinity]
 *            [--burst N] [--burst-sec N] [--sees-all] [--calls KIND,...]
 *
 * The limits are those of the policy the test wrote for this user:
 * RealtimePriority=, Policies=, Nice= (no --min-nice: not set), RTTime=,
 * MemLock=, and [Daemon] ActionsPerBurst= and BurstSec=; --sees-all when
 * polkit gives the user org.realtimed.manage. The seed is printed; the same
 * seed gives the same sequence of calls per worker (the ids they carry
 * differ from run to run). --calls limits the calls to some kinds (names in
 * calls.c), to chase one finding.
 *
 * Exit status: 0 when no violation was seen and the daemon answered to the
 * end, 1 otherwise, 2 when it could not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bus-fuzz.h"
#include "procfs-stat.h"

#define WORKERS_MAX 16
#define BATCH 24
#define VIOLATIONS_SHOWN 5 /* of each kind */

Stats stats;
Limits limits = { .max_prio = 0, .rttime_usec = FUZZ_INFINITY, .memlock = FUZZ_INFINITY };
uid_t self_uid;
pid_t self_pid;
atomic_bool daemon_suspect;

static const char *label = "bus-fuzz";
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char name[128];
	unsigned long n;
} errors[128];
static size_t n_errors;
static struct {
	const char *format;
	unsigned long n;
} kinds[64];
static size_t n_kinds;

static Worker workers[WORKERS_MAX];
static unsigned n_workers = 4;
static pthread_barrier_t batch_done, batch_go;
static atomic_bool stop;

void count_error(const char *name)
{
	size_t i;

	pthread_mutex_lock(&report_lock);
	for (i = 0; i < n_errors; i++)
		if (streq(errors[i].name, name))
			break;
	if (i == n_errors && n_errors < ELEMENTSOF(errors))
		snprintf(errors[n_errors++].name, sizeof(errors[0].name), "%s", name);
	if (i < n_errors)
		errors[i].n++;
	pthread_mutex_unlock(&report_lock);
}

void violation(const Desc *call, const char *format, ...)
{
	char text[600];
	va_list ap;
	size_t i;

	va_start(ap, format);
	vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	stats.violations++;
	pthread_mutex_lock(&report_lock);
	/* a kind is the format string: the first few of each are shown, so
	 * that one finding repeated at every call does not hide another */
	for (i = 0; i < n_kinds && kinds[i].format != format; i++)
		;
	if (i == n_kinds && n_kinds < ELEMENTSOF(kinds))
		kinds[n_kinds++].format = format;
	if (i < n_kinds && ++kinds[i].n <= VIOLATIONS_SHOWN) {
		printf("bus-fuzz[%s]: VIOLATION: %s\n", label, text);
		if (call)
			printf("bus-fuzz[%s]:   after %s\n", label, call->text);
		fflush(stdout);
	}
	pthread_mutex_unlock(&report_lock);
}

void note(const char *format, ...)
{
	char text[600];
	va_list ap;

	va_start(ap, format);
	vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	pthread_mutex_lock(&report_lock);
	printf("bus-fuzz[%s]: %s\n", label, text);
	fflush(stdout);
	pthread_mutex_unlock(&report_lock);
}

static void *worker_main(void *userdata)
{
	Worker *w = userdata;

	while (!stop) {
		for (unsigned i = 0; i < BATCH && !daemon_suspect; i++)
			worker_call(w);
		if (w->flood && !daemon_suspect)
			worker_flood(w);
		w->flood = false;
		pthread_barrier_wait(&batch_done);
		pthread_barrier_wait(&batch_go);
	}
	return NULL;
}

static bool is_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static bool listed(pid_t (*pairs)[2], size_t n, pid_t pid, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (pairs[i][0] == pid && pairs[i][1] == tid)
			return true;
	return false;
}

/* The same thread in the same state as at the last check of this kind
 * (0: policy, 1: supervision): reported then already. */
static bool seen_before(int kind, const Target *t, const ThreadState *s)
{
	static struct {
		pid_t tid;
		ThreadState s;
	} seen[2][TARGETS_MAX];
	size_t h = (size_t)t->tid % TARGETS_MAX;
	bool same = seen[kind][h].tid == t->tid && seen[kind][h].s.policy == s->policy &&
		    seen[kind][h].s.prio == s->prio && seen[kind][h].s.nice == s->nice;

	seen[kind][h].tid = t->tid;
	seen[kind][h].s = *s;
	return same;
}

/* Is t, with the start time it had, realtime now? */
static bool still_rt(const Target *t, ThreadState *ret)
{
	uint64_t st;

	return thread_start_time(t->pid, t->tid, &st) >= 0 && st == t->start &&
	       thread_state(t->tid, ret) >= 0 && is_rt(ret->policy);
}

/* Every realtime thread of the fuzzer must be one the daemon supervises: a
 * grant is either in the table or undone. A grant in flight (a client that
 * hung up, a caller's credentials or polkit still being asked) may land at
 * any moment, after a list was answered and before the thread is looked
 * at. So a missing thread is looked at first and listed after, in
 * SUPERVISION_ROUNDS rounds 300 ms apart: a grant that lands before a look
 * is in the list that follows it (realtimed applies and records a grant in
 * one step), and only a thread realtime before each list and missing from
 * every list is a violation. */
#define SUPERVISION_ROUNDS 3
static bool check_supervised(DBusConnection *bus, const Target *rt, size_t n_rt)
{
	pid_t(*pairs)[2] = NULL;
	size_t n = 0, n_missing = 0;
	Target missing[TARGETS_MAX];
	ThreadState s[TARGETS_MAX];
	char error[512];

	if (list_grants(bus, &pairs, &n, error, sizeof(error)) < 0) {
		printf("bus-fuzz[%s]: ListGrants failed: %s\n", label, error);
		return !strstr(error, "NoReply") && !strstr(error, "ServiceUnknown") &&
		       !strstr(error, "NameHasNoOwner") && !strstr(error, "Disconnected");
	}
	for (size_t i = 0; i < n_rt; i++)
		if (!listed(pairs, n, rt[i].pid, rt[i].tid))
			missing[n_missing++] = rt[i];
	free(pairs);
	stats.supervised_checks++;

	for (unsigned round = 0; round < SUPERVISION_ROUNDS && n_missing > 0; round++) {
		size_t k = 0;

		usleep(300 * 1000);
		for (size_t i = 0; i < n_missing; i++)
			if (still_rt(&missing[i], &s[k]))
				missing[k++] = missing[i];
		n_missing = k;
		pairs = NULL;
		if (n_missing == 0 || list_grants(bus, &pairs, &n, error, sizeof(error)) < 0)
			return true;
		k = 0;
		for (size_t i = 0; i < n_missing; i++)
			if (!listed(pairs, n, missing[i].pid, missing[i].tid)) {
				s[k] = s[i];
				missing[k++] = missing[i];
			}
		n_missing = k;
		free(pairs);
	}
	for (size_t i = 0; i < n_missing; i++) {
		const Target *t = &missing[i];

		if (seen_before(1, t, &s[i]))
			continue;
		violation(NULL,
			  "thread %d of process %d runs %s %d, but realtimed does not supervise it "
			  "(realtime before each of %u lists 300 ms apart, in none of them)",
			  (int)t->tid, (int)t->pid, procfs_sched_policy_to_string(s[i].policy),
			  s[i].prio, SUPERVISION_ROUNDS);
	}
	return true;
}

/* Between batches: every thread of ours within policy (or no higher than it
 * started), realtime ones supervised, and the daemon answering. false when
 * the daemon is gone. */
static bool check_batch(DBusConnection *bus)
{
	Target all[TARGETS_MAX], rt[TARGETS_MAX];
	size_t n, n_rt = 0;
	char error[512];
	Desc d = { .len = 0 };

	desc_add(&d, "(the check between batches)");
	victims_refresh();
	n = victims_targets(all, ELEMENTSOF(all));
	for (size_t i = 0; i < n; i++) {
		uint64_t st, soft, rttime = FUZZ_INFINITY;
		ThreadState s;
		char why[400];

		if (thread_state(all[i].tid, &s) < 0 ||
		    thread_start_time(all[i].pid, all[i].tid, &st) < 0 || st != all[i].start)
			continue;
		(void)process_limit(all[i].pid, "Max realtime timeout", &soft, &rttime);
		if (state_violates(&limits, &s, all[i].base_policy, all[i].base_nice, rttime, why,
				   sizeof(why)) &&
		    !seen_before(0, &all[i], &s))
			violation(&d, "thread %d of process %d runs %s", (int)all[i].tid,
				  (int)all[i].pid, why);
		if (is_rt(s.policy))
			rt[n_rt++] = all[i];
	}
	if (n_rt > 0 && !check_supervised(bus, rt, n_rt))
		return false;
	if (!daemon_ping(bus, error, sizeof(error))) {
		printf("bus-fuzz[%s]: realtimed does not answer Peer.Ping: %s\n", label, error);
		return false;
	}
	daemon_suspect = false;
	return true;
}

static void print_recent(void)
{
	uint64_t now = now_usec();
	/* the last calls of all workers, oldest first */
	for (;;) {
		Worker *best = NULL;
		unsigned bi = 0;
		uint64_t bt = UINT64_MAX;

		for (unsigned i = 0; i < n_workers; i++) {
			Worker *w = &workers[i];
			unsigned n = w->n_recent < ELEMENTSOF(w->recent) ? w->n_recent
									 : ELEMENTSOF(w->recent);

			for (unsigned k = 0; k < n; k++)
				if (w->recent_usec[k] && w->recent_usec[k] < bt) {
					bt = w->recent_usec[k];
					best = w;
					bi = k;
				}
		}
		if (!best)
			break;
		printf("bus-fuzz[%s]:   %7.3f s ago, worker %u: %s\n", label,
		       (double)(now - bt) / 1e6, best->index, best->recent[bi].text);
		best->recent_usec[bi] = 0;
	}
}

/* RLIMIT_RTTIME's soft limit: a thread of ours ran realtime that long
 * without sleeping. Say which ones are realtime, before the hard limit's
 * SIGKILL. Only system calls here: a lock taken in a handler may be held
 * by the interrupted thread. */
static void on_sigxcpu(int sig)
{
	static const char head[] = "bus-fuzz: SIGXCPU: a realtime thread ran past the soft "
				   "RLIMIT_RTTIME; /proc/self/task/.../stat of each thread:\n";
	char dents[4096], path[64], buf[512];
	int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	(void)!write(STDERR_FILENO, head, sizeof(head) - 1);
	while (dir >= 0 && (n = syscall(SYS_getdents64, dir, dents, sizeof(dents))) > 0)
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(dents + off);
			size_t l = 0;
			int fd;

			off += de->reclen;
			if (de->name[0] == '.')
				continue;
			for (const char *p = "/proc/self/task/"; *p; p++)
				path[l++] = *p;
			for (const char *p = de->name; *p && l < sizeof(path) - 6; p++)
				path[l++] = *p;
			for (const char *p = "/stat"; *p; p++)
				path[l++] = *p;
			path[l] = 0;
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			l = (size_t)read(fd, buf, sizeof(buf));
			close(fd);
			if ((ssize_t)l > 0)
				(void)!write(STDERR_FILENO, buf, l);
		}
	_exit(3);
}

typedef struct Run {
	DBusConnection *bus;
	unsigned seconds;
	uint64_t start;
	unsigned long batches;
} Run;

/* The batches: between two, the checks, and now and then new children,
 * a new look at /proc, a flood. Not a target of the calls. */
static void *controller_main(void *userdata)
{
	Run *run = userdata;
	uint64_t last_churn, last_scan, last_flood;

	last_churn = last_scan = last_flood = run->start;
	while (!stop) {
		uint64_t now;

		pthread_barrier_wait(&batch_done);
		run->batches++;
		if (!check_batch(run->bus)) {
			stats.crashes++;
			printf("bus-fuzz[%s]: CRASH: realtimed stopped answering after %.1f s; the "
			       "last calls sent:\n",
			       label, (double)(now_usec() - run->start) / 1e6);
			print_recent();
			stop = true;
		}
		now = now_usec();
		if (now - run->start >= run->seconds * 1000000ULL)
			stop = true;
		if (!stop && now - last_churn > 3000000) {
			victims_churn();
			last_churn = now;
		}
		if (!stop && now - last_scan > 5000000) {
			victims_scan_system(self_uid);
			last_scan = now;
		}
		if (!stop && now - last_flood > 10000000) {
			workers[run->batches % n_workers].flood = true;
			last_flood = now;
		}
		pthread_barrier_wait(&batch_go);
	}
	return NULL;
}

static int cmp_errors(const void *a, const void *b)
{
	const typeof(errors[0]) *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

static void print_report(double secs, unsigned long batches)
{
	printf("bus-fuzz[%s]: stat seconds %.1f\n", label, secs);
	printf("bus-fuzz[%s]: stat batches %lu\n", label, batches);
#define STAT(f) printf("bus-fuzz[%s]: stat " #f " %lu\n", label, (unsigned long)stats.f)
	STAT(calls);
	STAT(ok);
	STAT(grants_checked);
	STAT(limits_checked);
	STAT(supervised_checks);
	STAT(violations);
	STAT(crashes);
	STAT(timeouts);
	STAT(disconnects);
	STAT(connections);
	STAT(floods);
	STAT(flood_rate_limited);
	STAT(renames);
	STAT(races);
#undef STAT
	for (size_t i = 0; i < n_kinds; i++)
		printf("bus-fuzz[%s]: violation %lu x \"%.100s\"\n", label, kinds[i].n,
		       kinds[i].format);
	qsort(errors, n_errors, sizeof(errors[0]), cmp_errors);
	for (size_t i = 0; i < n_errors; i++)
		printf("bus-fuzz[%s]: error %s %lu\n", label, errors[i].name, errors[i].n);
}

static uint64_t parse_u64_or_infinity(const char *s)
{
	if (streq(s, "infinity") || streq(s, "unlimited"))
		return FUZZ_INFINITY;
	return strtoull(s, NULL, 10);
}

static int parse_args(int argc, char **argv, unsigned *seconds, uint64_t *seed)
{
	enum {
		O_SECONDS = 256,
		O_SEED,
		O_WORKERS,
		O_LABEL,
		O_MAX_PRIO,
		O_POLICIES,
		O_MIN_NICE,
		O_RTTIME,
		O_MEMLOCK,
		O_BURST,
		O_BURST_SEC,
		O_SEES_ALL,
		O_CALLS,
	};
	static const struct option options[] = {
		{ "seconds", required_argument, NULL, O_SECONDS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "workers", required_argument, NULL, O_WORKERS },
		{ "label", required_argument, NULL, O_LABEL },
		{ "max-prio", required_argument, NULL, O_MAX_PRIO },
		{ "policies", required_argument, NULL, O_POLICIES },
		{ "min-nice", required_argument, NULL, O_MIN_NICE },
		{ "rttime", required_argument, NULL, O_RTTIME },
		{ "memlock", required_argument, NULL, O_MEMLOCK },
		{ "burst", required_argument, NULL, O_BURST },
		{ "burst-sec", required_argument, NULL, O_BURST_SEC },
		{ "sees-all", no_argument, NULL, O_SEES_ALL },
		{ "calls", required_argument, NULL, O_CALLS },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
		switch (c) {
		case O_SECONDS:
			*seconds = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_SEED:
			*seed = strtoull(optarg, NULL, 0);
			break;
		case O_WORKERS:
			n_workers = (unsigned)strtoul(optarg, NULL, 10);
			if (n_workers < 1 || n_workers > WORKERS_MAX) {
				fprintf(stderr, "bus-fuzz: --workers is 1..%d\n", WORKERS_MAX);
				return -EINVAL;
			}
			break;
		case O_LABEL:
			label = optarg;
			break;
		case O_MAX_PRIO:
			limits.max_prio = atoi(optarg);
			break;
		case O_POLICIES:
			limits.policies = (strstr(optarg, "fifo") ? FUZZ_FIFO : 0) |
					  (strstr(optarg, "rr") ? FUZZ_RR : 0);
			break;
		case O_MIN_NICE:
			limits.nice_set = true;
			limits.min_nice = atoi(optarg);
			break;
		case O_RTTIME:
			limits.rttime_usec = parse_u64_or_infinity(optarg);
			break;
		case O_MEMLOCK:
			limits.memlock = parse_u64_or_infinity(optarg);
			break;
		case O_BURST:
			limits.burst = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_BURST_SEC:
			limits.burst_sec = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case O_SEES_ALL:
			limits.sees_all = true;
			break;
		case O_CALLS:
			if (calls_select(optarg) < 0)
				return -EINVAL;
			break;
		default:
			fprintf(stderr, "bus-fuzz: unknown option; see the comment atop main.c\n");
			return -EINVAL;
		}
	if (optind < argc) {
		fprintf(stderr, "bus-fuzz: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seconds = 60;
	uint64_t seed;
	Run run = { 0 };
	pthread_t controller;
	DBusConnection *bus;
	struct rlimit rl;
	DBusError e;
	char error[512];
	int r;

	if (argc == 3 && streq(argv[1], "--victim"))
		return victim_main((unsigned)strtoul(argv[2], NULL, 10));

	self_uid = getuid();
	self_pid = getpid();
	seed = (uint64_t)time(NULL) ^ ((uint64_t)self_pid << 32);
	if (parse_args(argc, argv, &seconds, &seed) < 0)
		return 2;
	printf("bus-fuzz[%s]: seed %" PRIu64 " (rerun with --seed %" PRIu64 "), %u s, %u workers, "
	       "uid %u, pid %d\n",
	       label, seed, seed, seconds, n_workers, (unsigned)self_uid, (int)self_pid);
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXCPU, on_sigxcpu);

	/* The host's safety net: a fuzzer thread that ran realtime for 2 s
	 * without sleeping gets SIGXCPU. The hard limit stays, so that the
	 * daemon's own lowering of RLIMIT_RTTIME is exercised. */
	if (getrlimit(RLIMIT_RTTIME, &rl) == 0 && rl.rlim_cur > 2000000) {
		rl.rlim_cur = 2000000;
		(void)setrlimit(RLIMIT_RTTIME, &rl);
	}

	if (!dbus_threads_init_default()) {
		fprintf(stderr, "bus-fuzz: dbus_threads_init_default() failed\n");
		return 2;
	}
	dbus_error_init(&e);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &e);
	if (!bus) {
		fprintf(stderr, "bus-fuzz: cannot connect to the system bus: %s\n", e.message);
		return 2;
	}
	dbus_connection_set_exit_on_disconnect(bus, FALSE);
	if (!daemon_ping(bus, error, sizeof(error))) {
		fprintf(stderr, "bus-fuzz: realtimed does not answer before the run: %s\n", error);
		return 2;
	}

	r = victims_start(2, 4);
	if (r < 0) {
		fprintf(stderr, "bus-fuzz: could not start the victim threads: %s\n", strerror(-r));
		return 2;
	}
	/* As PipeWire does, lower the hard RLIMIT_RTTIME to what policy allows:
	 * without CAP_SYS_RESOURCE (a container) the daemon cannot lower it for
	 * us and refuses realtime. The first children keep theirs, for the
	 * daemon to lower where it may. */
	if (limits.rttime_usec != FUZZ_INFINITY && getrlimit(RLIMIT_RTTIME, &rl) == 0 &&
	    rl.rlim_max > limits.rttime_usec) {
		rl.rlim_max = limits.rttime_usec;
		if (rl.rlim_cur > rl.rlim_max / 2)
			rl.rlim_cur = rl.rlim_max / 2;
		(void)setrlimit(RLIMIT_RTTIME, &rl);
	}
	victims_scan_system(self_uid);

	pthread_barrier_init(&batch_done, NULL, n_workers + 1);
	pthread_barrier_init(&batch_go, NULL, n_workers + 1);
	for (unsigned i = 0; i < n_workers; i++) {
		Worker *w = &workers[i];

		w->index = i;
		rng_seed(&w->rng, seed, i);
		w->bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &e);
		if (!w->bus) {
			fprintf(stderr, "bus-fuzz: cannot connect to the system bus: %s\n",
				e.message);
			return 2;
		}
		dbus_connection_set_exit_on_disconnect(w->bus, FALSE);
		r = pthread_create(&w->thread, NULL, worker_main, w);
		if (r != 0) {
			fprintf(stderr, "bus-fuzz: pthread_create: %s\n", strerror(r));
			return 2;
		}
	}

	run.bus = bus;
	run.seconds = seconds;
	run.start = now_usec();
	/* the main thread only waits: as pid 0, tid 0 it is a target, and it
	 * must not work (allocate, lock) while a grant makes it realtime */
	r = pthread_create(&controller, NULL, controller_main, &run);
	if (r != 0) {
		fprintf(stderr, "bus-fuzz: pthread_create: %s\n", strerror(r));
		return 2;
	}
	pthread_join(controller, NULL);
	self_drop_realtime();
	for (unsigned i = 0; i < n_workers; i++) {
		pthread_join(workers[i].thread, NULL);
		bus_close_private(workers[i].bus);
	}
	victims_stop();
	if (!stats.crashes && !daemon_ping(bus, error, sizeof(error))) {
		stats.crashes++;
		printf("bus-fuzz[%s]: CRASH: realtimed does not answer at the end: %s\n", label,
		       error);
	}
	bus_close_private(bus);
	print_report((double)(now_usec() - run.start) / 1e6, run.batches);
	return stats.violations || stats.crashes ? 1 : 0;
}
