/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/canary.c, with the watchdog in a forked child. The
 * child supervises one of its own sleeping threads (a demotion only sets
 * SCHED_OTHER, which it already has: nothing realtime runs). The parent
 * plays the scheduler by stopping the canary thread with ptrace
 * (PTRACE_SEIZE + PTRACE_INTERRUPT, then PTRACE_CONT):
 *   - stopped for good (starvation with RT throttling off): one demotion, of
 *     that thread, reported once to the main thread, and the process's
 *     RLIMIT_RTPRIO is 0 afterwards (where it was not 0 before);
 *   - running 50 ms of every second, what RT throttling (6.1) and the fair
 *     deadline server (6.12) leave a starving SCHED_OTHER thread: it fires
 *     within CanaryWatchdogSec + 1 s all the same;
 *   - stopped 35 ms of every 50 ms, a CPU shared with busy but sleeping
 *     realtime work: a late canary is not a starving one, no demotion;
 *   - the whole child stopped (SIGSTOP) for three windows: no demotion.
 * With a fake /proc (the child's sleeping threads as targets, their stat
 * and schedstat files written by a thread of the child that plays the
 * scheduler, one target per CPU):
 *   - the attack of issue 20: granted threads whose stat says SCHED_OTHER
 *     while their schedstat grows by a whole slot per look on every CPU,
 *     the canary cheeping: no demotion;
 *   - granted threads SCHED_FIFO on every CPU, the canary free to run: no
 *     demotion on that alone (its probe gets the CPU time it asks);
 *   - the same with the canary let run 5 ms of every 50 ms (it cheeps,
 *     but a fair thread gets no CPU time to speak of, as behind a runaway
 *     on 6.12): it fires within CanaryWatchdogSec + 1 s;
 *   - runaways of uid 1000 on every CPU beside a SCHED_FIFO thread of uid
 *     2000 at 30% of a CPU, the canary starving: only uid 1000 is blamed
 *     and demoted; a window later, still starving while realtime keeps
 *     less than half of the CPUs busy, uid 2000's thread stays (a false
 *     alarm of fair load takes realtime from no one);
 *   - a realtime thread of uid 3000 that realtimed did not grant, the
 *     canary starving: noted at the first firing, blamed at the next (and
 *     everyone demoted there where it keeps half of the CPUs busy).
 * Also: the threads exist only while there are targets, the watchdog runs
 * SCHED_DEADLINE (or SCHED_FIFO 99 where the kernel refuses that, and then
 * grants are capped at 98), and 100000 updates of the targets do not grow
 * the heap. Exits 77 when ptrace is not allowed here.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "canary.h"
#include "check-main.h"
#include "proc.h"
#include "time-util.h"

#define MSEC 1000ULL
#define PERIOD_USEC (1000 * MSEC)

static int report_fd = -1;

/* The load average of the last minute, for notes. */
static const char *loadavg(void)
{
	static char buf[32];
	FILE *f = fopen("/proc/loadavg", "re");

	if (!f || !fgets(buf, sizeof(buf), f))
		snprintf(buf, sizeof(buf), "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, " ")] = '\0';
	return buf;
}

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (write(report_fd, buf, n) != n)
		_exit(3);
}

static Canary *child_canary;
static CanaryTarget child_target;
static CanarySettings child_settings;

/* The main thread's side, called in the child: reports, then hands the
 * watchdog its target back unless it was demoted, as the manager does. */
static void on_fired(const CanaryReport *r, void *userdata)
{
	struct rlimit rl;

	getrlimit(RLIMIT_RTPRIO, &rl);
	report("fired %zu %d esc %d rtprio %llu %llu\n", r->n_demoted,
	       r->n_demoted > 0 ? (int)r->demoted[0].tid : 0, r->escalated,
	       (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
	if (child_canary &&
	    canary_update(child_canary, &child_target, r->n_demoted == 0, &child_settings) < 0)
		_exit(2);
}

static uint64_t now_msec(void)
{
	return now_usec(CLOCK_MONOTONIC) / USEC_PER_MSEC;
}

static int n_threads(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static pid_t find_thread(pid_t pid, const char *comm)
{
	char path[64], buf[32];
	struct dirent *de;
	pid_t found = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    proc_get_comm("/proc", pid, atoi(de->d_name), buf, sizeof(buf)) == 0 &&
		    strcmp(buf, comm) == 0)
			found = atoi(de->d_name);
	closedir(d);
	return found;
}

static void *sleeper(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* The child: one supervised sleeping thread, the canary, an event loop. Its
 * RLIMIT_RTPRIO is lowered to at most 5, so that the clamp shows (root's
 * hard limit is 0 on some hosts: then there is nothing to clamp). */
static void child(int fd, uint64_t period_usec)
{
	CanaryTarget target = { .pid = getpid() };
	CanarySettings settings = { .watchdog_usec = period_usec,
				    .refuse_usec = 3600 * 1000 * MSEC };
	Canary *c = NULL;

	child_settings = settings;
	sd_event *e = NULL;
	struct rlimit rl;
	pthread_t t;
	int before;

	report_fd = fd;
	if (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_max > 0) {
		rl.rlim_max = rl.rlim_max < 5 ? rl.rlim_max : 5;
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_RTPRIO, &rl);
	}
	if (sd_event_default(&e) < 0 || canary_new(e, "/proc", on_fired, NULL, &c) < 0)
		_exit(2);
	pthread_create(&t, NULL, sleeper, &target.tid);
	while (__atomic_load_n(&target.tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	if (procfs_start_time("/proc", target.pid, target.tid, &target.start_time) < 0)
		_exit(2);
	before = n_threads(getpid());
	if (canary_update(c, &target, 1, &settings) < 0)
		_exit(2);
	child_canary = c;
	child_target = target;
	getrlimit(RLIMIT_RTPRIO, &rl);
	report("ready %d %d %d %d %llu\n", (int)target.tid, before, n_threads(getpid()),
	       (int)canary_class(c), (unsigned long long)rl.rlim_max);
	sd_event_loop(e);
	_exit(0);
}

static pid_t child_pid;
static int child_fd = -1;
static int ready_target, threads_idle, threads_running, child_class;
static unsigned long long child_rtprio;

/* Forks a child that runs body(fd, arg), writing to fd, and reads its
 * first line into buf. */
static void spawn_child(void (*body)(int fd, const void *arg), const void *arg, char *buf,
			size_t size)
{
	int p[2];
	struct pollfd pfd;
	ssize_t n;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	child_pid = fork();
	ck_assert_int_ge(child_pid, 0);
	if (child_pid == 0) {
		close(p[0]);
		body(p[1], arg);
	}
	close(p[1]);
	child_fd = p[0];
	pfd = (struct pollfd){ .fd = child_fd, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	n = read(child_fd, buf, size - 1);
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
}

static void child_body(int fd, const void *arg)
{
	child(fd, *(const uint64_t *)arg);
}

static void start_child(uint64_t period_usec)
{
	char buf[128];

	spawn_child(child_body, &period_usec, buf, sizeof(buf));
	ck_assert_int_eq(sscanf(buf, "ready %d %d %d %d %llu", &ready_target, &threads_idle,
				&threads_running, &child_class, &child_rtprio),
			 5);
}

/* Also reaps a canary thread that is still traced: its exit is ours to
 * collect, and the child's would wait for it. */
static void stop_child(void)
{
	kill(child_pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) != child_pid)
		;
	close(child_fd);
}

/* What the child reported within ms: "" if nothing. */
static void read_report(int ms, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = child_fd, .events = POLLIN };
	ssize_t n;

	buf[0] = 0;
	if (poll(&pfd, 1, ms) != 1)
		return;
	n = read(child_fd, buf, size - 1);
	buf[n > 0 ? n : 0] = 0;
}

static pid_t seize_canary(void)
{
	pid_t canary = find_thread(child_pid, "rtd-canary");

	ck_assert_int_gt(canary, 0);
	ck_assert_int_eq(ptrace(PTRACE_SEIZE, canary, NULL, NULL), 0);
	return canary;
}

static void canary_pause(pid_t canary)
{
	int status;

	ck_assert_int_eq(ptrace(PTRACE_INTERRUPT, canary, NULL, NULL), 0);
	ck_assert_int_eq(waitpid(canary, &status, __WALL), canary);
}

static void canary_resume(pid_t canary)
{
	ck_assert_int_eq(ptrace(PTRACE_CONT, canary, NULL, NULL), 0);
}

/* Lets the canary run run_ms of every period_ms, for at most total_ms or
 * until the child reports; returns the time of the report, or 0. */
static uint64_t throttle_canary(pid_t canary, int run_ms, int period_ms, int total_ms, char *buf,
				size_t size)
{
	uint64_t start = now_msec();

	buf[0] = 0;
	while (now_msec() < start + (uint64_t)total_ms) {
		canary_pause(canary);
		read_report(period_ms - run_ms, buf, size);
		canary_resume(canary);
		if (buf[0])
			return now_msec() - start;
		read_report(run_ms, buf, size);
		if (buf[0])
			return now_msec() - start;
	}
	return 0;
}

/* The fake /proc: targets are the child's sleeping threads (a demotion only
 * sets SCHED_OTHER, which they have), their stat and schedstat files are
 * the fake's. */
enum { FAKE_MAX = 64 };

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
 * schedstat, if there is one */
static FakeThread unknown;

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
		if (unknown.t.tid) {
			unknown.runtime += (now - last) * 1000 * unknown.percent / 100;
			fake_schedstat(&unknown);
		}
		last = now;
	}
	return NULL;
}

static int cpus_here(void)
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

/* The child, on the fake /proc: ncpu threads of uid 1000 at policy and
 * 100% of a CPU each, and with_b, one of uid 2000 at SCHED_FIFO and 30%. */
/* A process of uid 3000 whose one thread sleeps at SCHED_FIFO 1 (set
 * here: it needs CAP_SYS_NICE), in the fake /proc at 100% of a CPU: a
 * runaway realtimed did not grant. Dies with the child. False when the
 * kernel refused the policy. */
static bool fake_unknown(void)
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
	fake_stat(g, 0, 77, SCHED_FIFO);
	fake_stat(g, g, 77, SCHED_FIFO);
	unknown = (FakeThread){ .t = { .pid = g, .tid = g, .start_time = 77, .uid = 3000 },
				.policy = SCHED_FIFO,
				.percent = 100 };
	fake_schedstat(&unknown);
	return true;
}

static void fake_child(int fd, int policy, bool with_b, bool with_unknown)
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
	if (with_unknown && !fake_unknown()) {
		report("no realtime here\n");
		pause();
	}
	pthread_create(&t, NULL, fake_scheduler, NULL);
	fake_settings = (CanarySettings){ .watchdog_usec = PERIOD_USEC,
					  .refuse_usec = 3600 * 1000 * MSEC,
					  .demote_unknown = with_unknown };
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
	bool with_b, with_unknown;
} FakeArgs;

static void fake_body(int fd, const void *arg)
{
	const FakeArgs *a = arg;

	fake_child(fd, a->policy, a->with_b, a->with_unknown);
}

/* False (a note printed) when the child could not set up realtime. */
static bool start_fake_child_with(int policy, bool with_b, bool with_unknown)
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

static void start_fake_child(int policy, bool with_b)
{
	(void)start_fake_child_with(policy, with_b, false);
}

static void stop_fake_child(void)
{
	char cmd[96];

	stop_child();
	snprintf(cmd, sizeof(cmd), "rm -rf /tmp/canary-fake-%d", (int)child_pid);
	ck_assert_int_eq(system(cmd), 0);
}

/* Issue 20's attack: rr grants on as many threads as CPUs, set back to
 * SCHED_OTHER, spinning at nice -15; the canary gets its wakeups. */
START_TEST(test_lowered_threads_do_not_fire)
{
	char buf[256];

	start_fake_child(SCHED_OTHER, false);
	/* Three windows. The lowered threads hold nothing: no firing blames
	 * their user. (A machine loaded by other work at that moment may
	 * starve the canary itself: a firing that blames and demotes nobody
	 * is what that must give, never a demotion.) */
	for (int k = 0; k < 3; k++) {
		read_report(PERIOD_USEC / 1000, buf, sizeof(buf));
		if (buf[0])
			printf("note: at load %s: %s", loadavg(), buf);
		ck_assert_msg(buf[0] == 0 || strcmp(buf, "fired esc 0 blamed demoted\n") == 0,
			      "granted threads running SCHED_OTHER on every CPU: %s", buf);
	}
	stop_fake_child();
}
END_TEST

/* Realtime threads on every CPU while a fair thread still gets what it
 * asks for: held alone does not fire. */
START_TEST(test_held_alone_does_not_fire)
{
	char buf[256];

	/* The probe must get a quarter of a CPU within a look: on a machine
	 * that other work loads at that moment (a shared test machine) it may
	 * not, which looks the same as a runaway's CPU. Once more, then. */
	for (int attempt = 1; attempt <= 2; attempt++) {
		start_fake_child(SCHED_FIFO, false);
		read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
		stop_fake_child();
		if (buf[0] == 0 || attempt == 2)
			break;
		printf("note: fired on attempt %d at load %s: %s", attempt, loadavg(), buf);
		fflush(stdout);
	}
	ck_assert_msg(buf[0] == 0, "realtime held every CPU, but the canary ran freely: %s", buf);
}
END_TEST

/* As behind a runaway on every CPU on 6.12: the canary cheeps (its short
 * wakeups are served), but gets 10% of the time at most. */
START_TEST(test_held_and_deprived_fires)
{
	char buf[256];
	uint64_t ms;
	pid_t canary;

	/* the fake scheduler's writes may lag on a loaded machine, so that
	 * the looks measure less than the runaways ran: once more, then */
	for (int attempt = 1;; attempt++) {
		start_fake_child(SCHED_FIFO, false);
		canary = seize_canary();
		ms = throttle_canary(canary, 5, 50, 4 * PERIOD_USEC / 1000, buf, sizeof(buf));
		if (strncmp(buf, "fired esc 0 blamed 1000 demoted 1000", 36) == 0 || attempt == 2)
			break;
		printf("note: attempt %d at load %s: %s", attempt, loadavg(), buf);
		fflush(stdout);
		stop_fake_child();
	}
	ck_assert_msg(strncmp(buf, "fired esc 0 blamed 1000 demoted 1000", 36) == 0,
		      "held and deprived did not fire: '%s'", buf);
	ck_assert_msg(ms <= PERIOD_USEC / 1000 + 1000, "fired after %llu ms, want <= %llu",
		      (unsigned long long)ms, PERIOD_USEC / 1000 + 1000);
	printf("held and deprived, the canary let run 5 ms of every 50 ms: fired after %llu ms\n",
	       (unsigned long long)ms);
	stop_fake_child();
}
END_TEST

/* A starving canary, the granted threads of uid 1000 not realtime, a
 * realtime thread of uid 3000 that realtimed did not grant at 100% of a
 * CPU (CanaryDemoteUnknown=yes): nobody blamed at first; the next firing
 * blames uid 3000 by the CPU time its thread used since the first, so
 * that it is refused, and escalates (everyone demoted) only where that
 * one CPU is half of the CPUs or more. */
START_TEST(test_escalation_blames_unknown)
{
	char buf[256];
	pid_t canary;

	if (!start_fake_child_with(SCHED_OTHER, false, true)) {
		stop_fake_child();
		return;
	}
	canary = seize_canary();
	canary_pause(canary);
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "fired esc 0 blamed demoted\n");
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	/* escalated or not (one CPU of two is half, at the edge), uid 3000
	 * is blamed; without the escalation nobody else is demoted */
	ck_assert_msg(strncmp(buf, "fired esc 1 blamed 3000 demoted", 31) == 0 ||
			      strcmp(buf, "fired esc 0 blamed 3000 demoted\n") == 0,
		      "uid 3000 not blamed, or others demoted without an escalation: '%s'", buf);
	stop_fake_child();
}
END_TEST

/* Runaways of uid 1000 on every CPU beside uid 2000's light realtime
 * thread: uid 1000 alone is blamed and demoted; a window later, the
 * canary still starving while realtime keeps less than half of the CPUs
 * busy (30% of one), no escalation: uid 2000's thread stays. */
START_TEST(test_blame_then_no_escalation)
{
	char buf[256], expect[256];
	size_t m;
	pid_t canary;

	m = (size_t)snprintf(expect, sizeof(expect), "fired esc 0 blamed 1000 demoted");
	for (int i = 0; i < cpus_here() && i + 1 < FAKE_MAX; i++)
		m += (size_t)snprintf(expect + m, sizeof(expect) - m, " 1000");
	snprintf(expect + m, sizeof(expect) - m, "\n");
	/* the fake scheduler's writes may lag on a loaded machine, so that a
	 * look measures less than the runaways ran: once more, then */
	for (int attempt = 1;; attempt++) {
		start_fake_child(SCHED_FIFO, true);
		canary = seize_canary();
		canary_pause(canary);
		read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
		if (strcmp(buf, expect) == 0 || attempt == 2)
			break;
		printf("note: attempt %d at load %s: %s", attempt, loadavg(), buf);
		fflush(stdout);
		stop_fake_child();
	}
	ck_assert_str_eq(buf, expect);
	/* still starving a window later, but not for realtime: uid 2000's
	 * thread stays */
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_msg(strcmp(buf, "fired esc 0 blamed demoted\n") == 0,
		      "a starvation realtime did not cause took uid 2000's thread: '%s'", buf);
	stop_fake_child();
}
END_TEST

START_TEST(test_threads_only_while_supervising)
{
	pid_t watchdog, canary;

	start_child(PERIOD_USEC);
	/* two more threads (canary, watchdog) once a target exists */
	ck_assert_int_eq(threads_running, threads_idle + 2);
	canary = find_thread(child_pid, "rtd-canary");
	watchdog = find_thread(child_pid, "rtd-watchdog");
	ck_assert_int_gt(canary, 0);
	ck_assert_int_gt(watchdog, 0);
	/* the class the watchdog reported is the one it runs in */
	if (child_class == CANARY_CLASS_DEADLINE)
		ck_assert_int_eq(sched_getscheduler(watchdog) & ~SCHED_RESET_ON_FORK,
				 SCHED_DEADLINE);
	else if (child_class == CANARY_CLASS_FIFO)
		ck_assert_int_eq(sched_getscheduler(watchdog) & ~SCHED_RESET_ON_FORK, SCHED_FIFO);
	else
		printf("note: the watchdog cannot run realtime here\n");
	ck_assert_int_eq(sched_getscheduler(canary) & ~SCHED_RESET_ON_FORK, SCHED_OTHER);
	if (geteuid() == 0) {
		/* the canary sets it first thing, maybe after the child reported */
		for (int i = 0; i < 200 && getpriority(PRIO_PROCESS, canary) != -20; i++)
			usleep(10000);
		ck_assert_int_eq(getpriority(PRIO_PROCESS, canary), -20);
	}
	stop_child();
}
END_TEST

START_TEST(test_stopped_daemon_is_not_starvation)
{
	char buf[128];

	start_child(PERIOD_USEC);
	ck_assert_int_eq(kill(child_pid, SIGSTOP), 0);
	usleep(3 * PERIOD_USEC);
	ck_assert_int_eq(kill(child_pid, SIGCONT), 0);
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_msg(buf[0] == 0, "the watchdog fired after SIGSTOP/SIGCONT: %s", buf);
	stop_child();
}
END_TEST

/* A starving canary, and no thread ran realtime (the target sleeps: fair
 * load, a loaded machine): nobody is blamed and nothing demoted, at the
 * first firing and at the next, still starving: no false alarm takes a
 * grant. */
START_TEST(test_starving_canary_without_realtime)
{
	char buf[128], expect[64];
	pid_t canary;

	start_child(PERIOD_USEC);
	canary = seize_canary();
	canary_pause(canary);

	read_report(4 * PERIOD_USEC / 1000, buf, sizeof(buf));
	snprintf(expect, sizeof(expect), "fired 0 0 esc 0 rtprio %llu %llu\n", child_rtprio,
		 child_rtprio);
	ck_assert_str_eq(buf, expect);
	/* still starving a window later: no escalation, the target keeps its
	 * grant and its process its RLIMIT_RTPRIO */
	read_report(4 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_str_eq(buf, expect);
	stop_child();
}
END_TEST

/* RT throttling's default, 950 ms of every 1 s for realtime threads. */
START_TEST(test_throttled_canary_fires)
{
	const int window_ms = 2000;
	char buf[128], expect[64];
	uint64_t ms;
	pid_t canary;

	start_child(window_ms * MSEC);
	canary = seize_canary();
	ms = throttle_canary(canary, 50, 1000, 3 * window_ms, buf, sizeof(buf));
	/* the target sleeps: nobody blamed yet (test_starving_canary_without_realtime) */
	snprintf(expect, sizeof(expect), "fired 0 0 esc 0");
	ck_assert_msg(strncmp(buf, expect, strlen(expect)) == 0,
		      "a canary that ran 50 ms per second for %d ms did not fire: '%s'",
		      3 * window_ms, buf);
	ck_assert_msg(ms <= (uint64_t)window_ms + 1000, "fired after %llu ms, want <= %d",
		      (unsigned long long)ms, window_ms + 1000);
	printf("throttled canary: fired after %llu ms (CanaryWatchdogSec %d ms)\n",
	       (unsigned long long)ms, window_ms);
	stop_child();
}
END_TEST

/* A CPU shared with realtime work that sleeps between bursts: the canary
 * is held 60 ms of every 100 ms (a cheep interval), so it is late, but it
 * gets to run every interval. */
START_TEST(test_late_canary_is_not_starving)
{
	const int window_ms = 2000;
	char buf[128];
	pid_t canary;

	start_child(window_ms * MSEC);
	canary = seize_canary();
	(void)throttle_canary(canary, 40, 100, 2 * window_ms, buf, sizeof(buf));
	ck_assert_msg(buf[0] == 0, "a canary held 60 ms of every 100 ms fired: %s", buf);
	stop_child();
}
END_TEST

/* With an affinity that does not span the root domain, the kernel refuses
 * SCHED_DEADLINE: the watchdog falls back to SCHED_FIFO 99 and grants
 * above 98 are refused. */
START_TEST(test_fifo_fallback_caps_grants)
{
	sd_event *e = NULL;
	Canary *c = NULL;
	cpu_set_t one;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(canary_new(e, "/proc", on_fired, NULL, &c), 0);
	if (canary_class(c) != CANARY_CLASS_DEADLINE || sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("note: no SCHED_DEADLINE here (%s) or one CPU: fallback not tested\n",
		       canary_class_to_string(canary_class(c)));
		canary_free(c);
		sd_event_unref(e);
		return;
	}
	ck_assert_int_eq(canary_max_grant_priority(c), 99);
	canary_free(c);

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	ck_assert_int_ge(canary_new(e, "/proc", on_fired, NULL, &c), 0);
	ck_assert_int_eq(canary_class(c), CANARY_CLASS_FIFO);
	ck_assert_int_eq(canary_max_grant_priority(c), 98);
	canary_free(c);
	sd_event_unref(e);
}
END_TEST

/* Bytes the main arena and mmap()ed chunks hold: what canary_update()
 * allocates, since it runs in this thread. */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

START_TEST(test_memory_bounded_by_targets)
{
	enum { UPDATES = 100000, TARGETS_MAX = 16 };
	/* a long period: nothing fires, only the updates allocate */
	const CanarySettings settings = { .watchdog_usec = 3600 * 1000 * MSEC };
	CanaryTarget targets[TARGETS_MAX];
	sd_event *e = NULL;
	Canary *c = NULL;
	size_t base, peak = 0;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_ge(canary_new(e, "/proc", on_fired, NULL, &c), 0);
	for (size_t i = 0; i < TARGETS_MAX; i++)
		targets[i] = (CanaryTarget){ .pid = getpid(), .tid = getpid(), .start_time = i };
	ck_assert_int_ge(canary_update(c, targets, TARGETS_MAX, &settings), 0);
	base = heap_in_use();
	for (unsigned i = 0; i < UPDATES; i++) {
		size_t used;

		/* grants come and go: 1..16 threads watched */
		ck_assert_int_ge(canary_update(c, targets, 1 + i % TARGETS_MAX, &settings), 0);
		used = heap_in_use();
		if (used > peak)
			peak = used;
	}
	ck_assert_msg(peak < base + 64 * 1024,
		      "%u updates of at most %u targets grew the heap from %zu to %zu bytes",
		      UPDATES, TARGETS_MAX, base, peak);
	canary_free(c);
	sd_event_unref(e);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-canary");
	TCase *tc;
	pid_t probe;
	int status;

	/* Can we ptrace a child here (Yama, containers)? */
	probe = fork();
	if (probe == 0) {
		pause();
		_exit(0);
	}
	if (ptrace(PTRACE_SEIZE, probe, NULL, NULL) < 0) {
		printf("SKIP: ptrace is not allowed here (%s); the canary test needs it\n",
		       strerror(errno));
		kill(probe, SIGKILL);
		waitpid(probe, &status, 0);
		return 77;
	}
	kill(probe, SIGKILL);
	waitpid(probe, &status, 0);

	tc = check_add_case(
		s, "canary",
		CHECK_TESTS(test_threads_only_while_supervising,
			    test_stopped_daemon_is_not_starvation,
			    test_starving_canary_without_realtime, test_throttled_canary_fires,
			    test_late_canary_is_not_starving, test_fifo_fallback_caps_grants,
			    test_memory_bounded_by_targets, test_lowered_threads_do_not_fire,
			    test_held_alone_does_not_fire, test_held_and_deprived_fires,
			    test_blame_then_no_escalation, test_escalation_blames_unknown));
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
