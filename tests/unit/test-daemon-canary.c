/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/canary.c, with the watchdog in a forked child and a
 * 400 ms period. The child supervises one of its own sleeping threads (a
 * demotion only sets SCHED_OTHER, which it already has: nothing realtime
 * runs). The parent then
 *   - stops the whole child (SIGSTOP) for three periods: no demotion;
 *   - stops only the canary thread (PTRACE_SEIZE + PTRACE_INTERRUPT), which
 *     is what starvation looks like to the watchdog: one demotion, of that
 *     thread, reported once to the main thread;
 *   - checks the canary threads exist only while there are targets.
 * Exits 77 when ptrace is not allowed here.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "canary.h"
#include "check-main.h"
#include "proc.h"

#define PERIOD_USEC 400000ULL

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
void daemon_canary_fired(const CanaryTarget *demoted, size_t n, void *userdata)
{
	report("fired %zu %d\n", n, n > 0 ? (int)demoted[0].tid : 0);
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

/* The child: one supervised sleeping thread, the canary, an event loop. */
static void child(int fd)
{
	CanaryTarget target = { .pid = getpid() };
	Canary *c = NULL;
	sd_event *e = NULL;
	pthread_t t;
	int before;

	report_fd = fd;
	if (sd_event_default(&e) < 0 || canary_new(e, "/proc", daemon_canary_fired, NULL, &c) < 0)
		_exit(2);
	pthread_create(&t, NULL, sleeper, &target.tid);
	while (__atomic_load_n(&target.tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	if (proc_get_start_time("/proc", target.pid, target.tid, &target.start_time) < 0)
		_exit(2);
	before = n_threads(getpid());
	if (canary_update(c, &target, 1, PERIOD_USEC) < 0 || !canary_running(c))
		_exit(2);
	report("ready %d %d %d\n", (int)target.tid, before, n_threads(getpid()));
	sd_event_loop(e);
	_exit(0);
}

static pid_t child_pid;
static int child_fd = -1;
static int ready_target, threads_idle, threads_running;

static void start_child(void)
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
		child(p[1]);
	}
	close(p[1]);
	child_fd = p[0];
	pfd = (struct pollfd){ .fd = child_fd, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 5000), 1);
	n = read(child_fd, buf, sizeof(buf) - 1);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(
		sscanf(buf, "ready %d %d %d", &ready_target, &threads_idle, &threads_running), 3);
}

static void stop_child(void)
{
	kill(child_pid, SIGKILL);
	waitpid(child_pid, NULL, 0);
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

START_TEST(test_threads_only_while_supervising)
{
	start_child();
	/* two more threads (canary, watchdog) once a target exists */
	ck_assert_int_eq(threads_running, threads_idle + 2);
	ck_assert(find_thread(child_pid, "rtd-canary") > 0);
	ck_assert(find_thread(child_pid, "rtd-watchdog") > 0);
	stop_child();
}
END_TEST

START_TEST(test_stopped_daemon_is_not_starvation)
{
	char buf[128];

	start_child();
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
	pid_t canary;
	char buf[128], expect[64];
	int status;

	start_child();
	canary = find_thread(child_pid, "rtd-canary");
	ck_assert_int_gt(canary, 0);
	ck_assert_int_eq(ptrace(PTRACE_SEIZE, canary, NULL, NULL), 0);
	ck_assert_int_eq(ptrace(PTRACE_INTERRUPT, canary, NULL, NULL), 0);
	ck_assert_int_eq(waitpid(canary, &status, __WALL), canary);

	read_report(4 * PERIOD_USEC / 1000, buf, sizeof(buf));
	snprintf(expect, sizeof(expect), "fired 1 %d\n", ready_target);
	ck_assert_str_eq(buf, expect);
	/* the target was demoted and reported once; the count restarts, so
	 * with the canary still stopped it may fire again, but not with a
	 * second report of the same thread within the same period */
	ck_assert_int_eq(ptrace(PTRACE_DETACH, canary, NULL, NULL), 0);
	stop_child();
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

	tc = check_add_case(s, "canary",
			    CHECK_TESTS(test_threads_only_while_supervising,
					test_stopped_daemon_is_not_starvation,
					test_starving_canary_fires_once));
	tcase_set_timeout(tc, 20);
	return check_run(s);
}
