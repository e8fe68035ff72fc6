/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The canary tests' child on a fake /proc; see canary-fixture.h. */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "canary-fixture.h"
#include "time-util.h"

/* The fake /proc: targets are the child's sleeping threads (a demotion only
 * sets SCHED_OTHER, which they have), their stat and schedstat files are
 * the fake's. */
typedef struct FakeThread {
	CanaryTarget t;
	int policy;	  /* what the fake stat says */
	unsigned percent; /* of a CPU its schedstat grows by */
	uint64_t runtime; /* ns */
} FakeThread;

static char fake_proc[64];
static FakeThread fake[FAKE_MAX];
static size_t n_fake;
/* a realtime thread realtimed did not grant (another process's): its
 * schedstat, if there is one; with FAKE_UNKNOWN_AFTER_FIRING it uses no
 * CPU time until the first firing (its percent is atomic) */
static FakeThread unknown[FAKE_MAX];
static size_t n_unknown;
static FakeUnknown unknown_mode;

static void fake_write(const char *path, const char *text)
{
	char tmp[160];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) < 0)
		_exit(4);
}

/* PROC/PID/task/TID/stat with state R, start time, CPU 0 and policy. */
static void fake_stat(pid_t pid, pid_t tid, uint64_t start, int policy)
{
	char path[128], line[512];
	int n;

	n = snprintf(line, sizeof(line), "%d (fake) R", (int)tid);
	for (int f = 4; f <= 41; f++)
		n += snprintf(line + n, sizeof(line) - n, " %llu",
			      f == 22	? (unsigned long long)start
			      : f == 40 ? (unsigned long long)(policy == SCHED_OTHER ? 0 : 10)
			      : f == 41 ? (unsigned long long)policy
					: 0ULL);
	snprintf(line + n, sizeof(line) - n, "\n");
	if (tid == 0)
		snprintf(path, sizeof(path), "%s/%d/stat", fake_proc, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/%d/task/%d/stat", fake_proc, (int)pid, (int)tid);
	fake_write(path, line);
}

static void fake_schedstat(const FakeThread *f)
{
	char path[128], line[64];

	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", fake_proc, (int)f->t.pid,
		 (int)f->t.tid);
	snprintf(line, sizeof(line), "%llu 0 0\n", (unsigned long long)f->runtime);
	fake_write(path, line);
}

/* The fake scheduler: every 10 ms each thread's schedstat grows by its
 * share of the time that passed. */
static void *fake_scheduler(void *arg)
{
	uint64_t last = now_usec(CLOCK_MONOTONIC);

	for (;;) {
		uint64_t now;

		usleep(10000);
		now = now_usec(CLOCK_MONOTONIC);
		for (size_t i = 0; i < n_fake; i++) {
			fake[i].runtime += (now - last) * 1000 * fake[i].percent / 100;
			fake_schedstat(&fake[i]);
		}
		for (size_t i = 0; i < n_unknown; i++) {
			unknown[i].runtime +=
				(now - last) * 1000 *
				__atomic_load_n(&unknown[i].percent, __ATOMIC_RELAXED) / 100;
			fake_schedstat(&unknown[i]);
		}
		last = now;
	}
	return NULL;
}

int cpus_here(void)
{
	cpu_set_t cpus;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) < 0)
		return 1;
	return CPU_COUNT(&cpus);
}

/* The child's side: each report names whom it blamed and demoted, then
 * the targets left are handed back, as the manager does. */
static Canary *fake_canary;
static CanarySettings fake_settings;

static void on_fake_fired(const CanaryReport *r, void *userdata)
{
	CanaryTarget left[FAKE_MAX];
	char buf[256];
	size_t n = 0, m;

	m = (size_t)snprintf(buf, sizeof(buf), "fired esc %d blamed", r->escalated);
	for (size_t i = 0; i < r->n_blamed && m < sizeof(buf); i++)
		m += (size_t)snprintf(buf + m, sizeof(buf) - m, " %u", (unsigned)r->blamed[i].uid);
	if (m < sizeof(buf))
		m += (size_t)snprintf(buf + m, sizeof(buf) - m, " demoted");
	for (size_t i = 0; i < r->n_demoted && m < sizeof(buf); i++)
		m += (size_t)snprintf(buf + m, sizeof(buf) - m, " %u", (unsigned)r->demoted[i].uid);
	report("%s\n", buf);
	if (unknown_mode == FAKE_UNKNOWN_AFTER_FIRING)
		for (size_t i = 0; i < n_unknown; i++)
			__atomic_store_n(&unknown[i].percent, 100, __ATOMIC_RELAXED);
	/* what the watchdog saw, for the log of a failure */
	printf("note: fired: cheeps %u%%, probe %u%%, held %llu ms in %llu ms\n", r->cheeps_percent,
	       r->probe_percent, (unsigned long long)(r->held_usec / 1000),
	       (unsigned long long)(r->window_usec / 1000));
	fflush(stdout);
	for (size_t i = 0; i < n_fake; i++) {
		bool gone = false;

		for (size_t j = 0; j < r->n_demoted; j++)
			gone = gone || r->demoted[j].tid == fake[i].t.tid;
		if (!gone)
			left[n++] = fake[i].t;
	}
	if (canary_update(fake_canary, left, n, &fake_settings) < 0)
		_exit(2);
}

/* A process of uid 3000 whose one thread sleeps at SCHED_FIFO 1 (set
 * here: it needs CAP_SYS_NICE), in the fake /proc at 100% of a CPU: a
 * runaway realtimed did not grant. Dies with the child. False when the
 * kernel refused the policy. */
static bool fake_unknown(size_t i)
{
	struct sched_param sp = { .sched_priority = 1 };
	char path[128];
	pid_t g = fork();

	if (g == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	if (g < 0 || sched_setscheduler(g, SCHED_FIFO, &sp) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/%d", fake_proc, (int)g);
	if (mkdir(path, 0755) < 0)
		_exit(2);
	snprintf(path, sizeof(path), "%s/%d/task", fake_proc, (int)g);
	if (mkdir(path, 0755) < 0)
		_exit(2);
	snprintf(path, sizeof(path), "%s/%d/task/%d", fake_proc, (int)g, (int)g);
	if (mkdir(path, 0755) < 0)
		_exit(2);
	strcat(path, "/status");
	fake_write(path, "Uid:\t3000\t3000\t3000\t3000\n");
	fake_stat(g, 0, 77 + i, SCHED_FIFO);
	fake_stat(g, g, 77 + i, SCHED_FIFO);
	unknown[i] = (FakeThread){ .t = { .pid = g, .tid = g, .start_time = 77 + i, .uid = 3000 },
				   .policy = SCHED_FIFO,
				   .percent = unknown_mode == FAKE_UNKNOWN_AFTER_FIRING ? 0 : 100 };
	fake_schedstat(&unknown[i]);
	return true;
}

/* The child, on the fake /proc: ncpu threads of uid 1000 at policy and
 * 100% of a CPU each, and with_b, one of uid 2000 at SCHED_FIFO and 30%;
 * and fake_unknown()'s process unless FAKE_UNKNOWN_NONE, one per CPU with
 * FAKE_UNKNOWN_EVERY_CPU. */
static void fake_child(int fd, int policy, bool with_b, FakeUnknown with_unknown)
{
	static pid_t tids[FAKE_MAX];
	char path[128];
	sd_event *e = NULL;
	pthread_t t;
	int ncpu = cpus_here();

	report_fd = fd;
	snprintf(fake_proc, sizeof(fake_proc), "/tmp/canary-fake-%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/%d/task", fake_proc, (int)getpid());
	if (mkdir(fake_proc, 0755) < 0)
		_exit(2);
	{
		char mid[128];

		snprintf(mid, sizeof(mid), "%s/%d", fake_proc, (int)getpid());
		if (mkdir(mid, 0755) < 0 || mkdir(path, 0755) < 0)
			_exit(2);
	}
	fake_stat(getpid(), 0, 1, SCHED_OTHER);
	n_fake = (size_t)ncpu + with_b < FAKE_MAX ? (size_t)ncpu + with_b : FAKE_MAX;
	for (size_t i = 0; i < n_fake; i++) {
		bool b = with_b && i == n_fake - 1;
		char dir[160];

		pthread_create(&t, NULL, sleeper, &tids[i]);
		while (__atomic_load_n(&tids[i], __ATOMIC_SEQ_CST) == 0)
			usleep(1000);
		snprintf(dir, sizeof(dir), "%s/%d", path, (int)tids[i]);
		if (mkdir(dir, 0755) < 0)
			_exit(2);
		fake[i] = (FakeThread){ .t = { .pid = getpid(),
					       .tid = tids[i],
					       .start_time = 1000 + i,
					       .uid = b ? 2000 : 1000 },
					.policy = b ? SCHED_FIFO : policy,
					.percent = b ? 30 : 100 };
		fake_stat(getpid(), tids[i], fake[i].t.start_time, fake[i].policy);
		fake_schedstat(&fake[i]);
	}
	unknown_mode = with_unknown;
	n_unknown = with_unknown == FAKE_UNKNOWN_NONE	     ? 0
		    : with_unknown == FAKE_UNKNOWN_EVERY_CPU ? (size_t)ncpu
							     : 1;
	for (size_t i = 0; i < n_unknown && i < FAKE_MAX; i++)
		if (!fake_unknown(i)) {
			report("no realtime here\n");
			pause();
		}
	pthread_create(&t, NULL, fake_scheduler, NULL);
	fake_settings = (CanarySettings){ .watchdog_usec = PERIOD_USEC,
					  .refuse_usec = 3600 * 1000 * MSEC,
					  .demote_unknown = with_unknown != FAKE_UNKNOWN_NONE };
	if (sd_event_default(&e) < 0 ||
	    canary_new(e, fake_proc, on_fake_fired, NULL, &fake_canary) < 0)
		_exit(2);
	{
		CanaryTarget targets[FAKE_MAX];

		for (size_t i = 0; i < n_fake; i++)
			targets[i] = fake[i].t;
		if (canary_update(fake_canary, targets, n_fake, &fake_settings) < 0)
			_exit(2);
	}
	report("ready %d 0 0 %d 0\n", (int)tids[0], (int)canary_class(fake_canary));
	sd_event_loop(e);
	_exit(0);
}

typedef struct FakeArgs {
	int policy;
	bool with_b;
	FakeUnknown with_unknown;
} FakeArgs;

static void fake_body(int fd, const void *arg)
{
	const FakeArgs *a = arg;

	fake_child(fd, a->policy, a->with_b, a->with_unknown);
}

bool start_fake_child_with(int policy, bool with_b, FakeUnknown with_unknown)
{
	FakeArgs a = { .policy = policy, .with_b = with_b, .with_unknown = with_unknown };
	char buf[128];

	spawn_child(fake_body, &a, buf, sizeof(buf));
	if (strcmp(buf, "no realtime here\n") == 0) {
		printf("note: SCHED_FIFO refused here: an unknown realtime thread not tried\n");
		return false;
	}
	ck_assert_msg(strncmp(buf, "ready", 5) == 0, "the child said '%s'", buf);
	return true;
}

void start_fake_child(int policy, bool with_b)
{
	(void)start_fake_child_with(policy, with_b, FAKE_UNKNOWN_NONE);
}

void stop_fake_child(void)
{
	char cmd[96];

	stop_child();
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/canary-fake-%d", (int)child_pid);
	ck_assert_int_eq(system(cmd), 0);
}
