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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

/* The main thread's side, called in the child. */
static void on_fired(const CanaryReport *r, void *userdata)
{
	struct rlimit rl;

	getrlimit(RLIMIT_RTPRIO, &rl);
	report("fired %zu %d rtprio %llu %llu\n", r->n_demoted,
	       r->n_demoted > 0 ? (int)r->demoted[0].tid : 0, (unsigned long long)rl.rlim_cur,
	       (unsigned long long)rl.rlim_max);
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

static void start_child(uint64_t period_usec)
{
	int p[2];
	char buf[128] = "";
	struct pollfd pfd;
	ssize_t n;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	child_pid = fork();
	ck_assert_int_ge(child_pid, 0);
	if (child_pid == 0) {
		close(p[0]);
		child(p[1], period_usec);
	}
	close(p[1]);
	child_fd = p[0];
	pfd = (struct pollfd){ .fd = child_fd, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	n = read(child_fd, buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
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

START_TEST(test_starving_canary_fires_once)
{
	char buf[128], expect[64];
	pid_t canary;

	start_child(PERIOD_USEC);
	canary = seize_canary();
	canary_pause(canary);

	read_report(4 * PERIOD_USEC / 1000, buf, sizeof(buf));
	/* the target was demoted and reported once, and its process may not
	 * take realtime again through RLIMIT_RTPRIO */
	snprintf(expect, sizeof(expect), "fired 1 %d rtprio 0 0\n", ready_target);
	ck_assert_str_eq(buf, expect);
	if (child_rtprio == 0)
		printf("note: RLIMIT_RTPRIO is 0 here already: the clamp is checked in the VM\n");
	/* nothing to watch until the main thread hands new targets: no second report */
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_msg(buf[0] == 0, "a second report: %s", buf);
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
	snprintf(expect, sizeof(expect), "fired 1 %d", ready_target);
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
			    test_stopped_daemon_is_not_starvation, test_starving_canary_fires_once,
			    test_throttled_canary_fires, test_late_canary_is_not_starving,
			    test_fifo_fallback_caps_grants, test_memory_bounded_by_targets));
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
