/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The canary tests' forked child and its canary thread held through ptrace;
 * see canary-fixture.h. */
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "canary-fixture.h"
#include "check-main.h"
#include "proc.h"
#include "time-util.h"

int report_fd = -1;

const char *loadavg(void)
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

void report(const char *fmt, ...)
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

void on_fired(const CanaryReport *r, void *userdata)
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

pid_t find_thread(pid_t pid, const char *comm)
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

void *sleeper(void *arg)
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

pid_t child_pid;
static int child_fd = -1;
int threads_idle, threads_running, child_class;
static int ready_target;
unsigned long long child_rtprio;

void spawn_child(void (*body)(int fd, const void *arg), const void *arg, char *buf, size_t size)
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

void start_child(uint64_t period_usec)
{
	char buf[128];

	spawn_child(child_body, &period_usec, buf, sizeof(buf));
	ck_assert_int_eq(sscanf(buf, "ready %d %d %d %d %llu", &ready_target, &threads_idle,
				&threads_running, &child_class, &child_rtprio),
			 5);
}

/* Also reaps a canary thread that is still traced: its exit is ours to
 * collect, and the child's would wait for it. */
void stop_child(void)
{
	kill(child_pid, SIGKILL);
	while (waitpid(-1, NULL, __WALL) != child_pid)
		;
	close(child_fd);
}

void read_report(int ms, char *buf, size_t size)
{
	struct pollfd pfd = { .fd = child_fd, .events = POLLIN };
	ssize_t n;

	buf[0] = 0;
	if (poll(&pfd, 1, ms) != 1)
		return;
	n = read(child_fd, buf, size - 1);
	buf[n > 0 ? n : 0] = 0;
}

pid_t seize_canary(void)
{
	pid_t canary = find_thread(child_pid, "rtd-canary");

	ck_assert_int_gt(canary, 0);
	ck_assert_int_eq(ptrace(PTRACE_SEIZE, canary, NULL, NULL), 0);
	return canary;
}

void canary_pause(pid_t canary)
{
	int status;

	ck_assert_int_eq(ptrace(PTRACE_INTERRUPT, canary, NULL, NULL), 0);
	ck_assert_int_eq(waitpid(canary, &status, __WALL), canary);
}

void canary_resume(pid_t canary)
{
	ck_assert_int_eq(ptrace(PTRACE_CONT, canary, NULL, NULL), 0);
}

uint64_t throttle_canary(pid_t canary, int run_ms, int period_ms, int total_ms, char *buf,
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

/* Can this process ptrace a child here (Yama, containers)? */
static bool ptrace_allowed(void)
{
	pid_t probe;
	int status;

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
		return false;
	}
	kill(probe, SIGKILL);
	waitpid(probe, &status, 0);
	return true;
}

int canary_check_run(const char *suite_name, const char *name, const TTest *const *tests,
		     bool traced)
{
	Suite *s;

	if (traced && !ptrace_allowed())
		return 77;
	s = suite_create(suite_name);
	tcase_set_timeout(check_add_case(s, name, tests), 30);
	return check_run(s);
}
