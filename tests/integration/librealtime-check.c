// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that uses librealtime as any program would: built by
 * test-librealtime.sh at test time with `cc $(pkg-config --cflags --libs
 * librealtime)`, so the pkg-config file is what finds the header and the
 * library. It calls every function of librealtime.h against whichever
 * service the test put on the bus and checks what the kernel reports
 * for each thread (sched_getscheduler(), sched_getparam(), getpriority(),
 * getrlimit()), not only the return codes.
 *
 * usage: librealtime-check realtimed MAXPRIO MINNICE RTTIME REFUSAL_TEXT
 *        librealtime-check rtkit MAXPRIO MINNICE RTTIME
 * MAXPRIO, MINNICE and RTTIME are what the service must answer for the
 * caller; REFUSAL_TEXT must be part of the message when it refuses
 * MAXPRIO + 1. Prints "ok - ..." or "FAIL - ..." per check; exits 1 when
 * one failed.
 */
#ifndef _GNU_SOURCE /* meson's build (test-pidns.sh) defines it */
#define _GNU_SOURCE /* SCHED_RESET_ON_FORK */
#endif
#include <errno.h>
#include <librealtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf(ok ? "ok - " : "FAIL - ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok)
		printf(" [message: \"%s\"]", realtime_error_message());
	printf("\n");
	fflush(stdout);
	failed += !ok;
}

/* "fifo 70 reset-on-fork", "rr 10", "other 0", as the kernel says */
static const char *sched_of(pid_t tid, char *buf, size_t size)
{
	struct sched_param sp = {};
	int p = sched_getscheduler(tid);

	if (p < 0 || sched_getparam(tid, &sp) < 0) {
		snprintf(buf, size, "error %s", strerror(errno));
		return buf;
	}
	snprintf(buf, size, "%s %d%s",
		 (p & ~SCHED_RESET_ON_FORK) == SCHED_FIFO    ? "fifo"
		 : (p & ~SCHED_RESET_ON_FORK) == SCHED_RR    ? "rr"
		 : (p & ~SCHED_RESET_ON_FORK) == SCHED_OTHER ? "other"
							     : "?",
		 sp.sched_priority, p & SCHED_RESET_ON_FORK ? " reset-on-fork" : "");
	return buf;
}

/* want "other 0" also matches "other 0 reset-on-fork": realtimed keeps
 * the flag on a thread it has put back */
static void expect_sched(pid_t tid, const char *want, const char *what)
{
	char buf[64];
	bool ok;

	sched_of(tid, buf, sizeof(buf));
	ok = strcmp(buf, want) == 0 ||
	     (strcmp(want, "other 0") == 0 && strcmp(buf, "other 0 reset-on-fork") == 0);
	check(ok, "%s: thread %d runs \"%s\" (expected \"%s\")", what, (int)tid, buf, want);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Helper threads sleep in read() until the pipe closes. */
static int park[2];

static void *parked(void *arg)
{
	char c;

	*(volatile pid_t *)arg = gettid_();
	(void)!read(park[0], &c, 1);
	return NULL;
}

static pid_t start_thread(pthread_t *t)
{
	static volatile pid_t tids[16];
	static int n;
	volatile pid_t *slot = &tids[n++];

	pthread_create(t, NULL, parked, (void *)slot);
	while (*slot == 0)
		usleep(1000);
	return *slot;
}

static int nice_of(pid_t tid)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, (id_t)tid);
}

static void check_maxima(int maxprio, int minnice, long long rttime)
{
	int64_t t = -1;
	int m = -1, n = 99, r;

	r = realtime_get_max_realtime_priority(&m);
	check(r == 0 && m == maxprio, "realtime_get_max_realtime_priority: %d, %d (expected %d)", r,
	      m, maxprio);
	r = realtime_get_min_nice_level(&n);
	check(r == 0 && n == minnice, "realtime_get_min_nice_level: %d, %d (expected %d)", r, n,
	      minnice);
	r = realtime_get_rttime_usec_max(&t);
	check(r == 0 && t == rttime, "realtime_get_rttime_usec_max: %d, %lld (expected %lld)", r,
	      (long long)t, rttime);
	r = realtime_get_max_realtime_priority(NULL);
	check(r == -EINVAL, "a NULL result pointer: %d (expected -EINVAL)", r);
}

static void check_arguments(void)
{
	int r;

	r = realtime_make_thread_realtime(0, SCHED_OTHER, 10);
	check(r == -EINVAL, "SCHED_OTHER asked as realtime: %d (expected -EINVAL)", r);
	r = realtime_make_thread_realtime(0, SCHED_FIFO, 0);
	check(r == -EINVAL && strstr(realtime_error_message(), "1..99"),
	      "priority 0: %d (expected -EINVAL, message naming 1..99)", r);
	r = realtime_make_thread_high_priority(0, 20);
	check(r == -EINVAL, "nice 20: %d (expected -EINVAL)", r);
	char before[64], after[64];

	/* pid 1 is no thread of ours: what sched_setscheduler() says of a
	 * thread it cannot find */
	sched_of(1, before, sizeof(before));
	r = realtime_make_thread_realtime(1, SCHED_FIFO, 5);
	check(r == -ESRCH && *realtime_error_message(),
	      "a thread that is not ours (1): %d (expected -ESRCH) \"%s\"", r,
	      realtime_error_message());
	sched_of(1, after, sizeof(after));
	check(strcmp(before, after) == 0, "and it is left alone (\"%s\")", after);
	r = realtime_reset_thread(1);
	check(r == -ESRCH, "reset of a thread that is not ours: %d (expected -ESRCH)", r);
}

/* Grants within the maximum, each read back from the kernel, and reset.
 * Over rtkit SCHED_FIFO is granted as SCHED_RR (librealtime(3)). */
static void check_grants(bool rtkit, int maxprio, int minnice)
{
	char want[64];
	pthread_t ta, tb;
	pid_t a = start_thread(&ta), b = start_thread(&tb), self = gettid_();
	int prio = maxprio < 70 ? maxprio : 70;
	int r;

	r = realtime_make_thread_realtime(a, SCHED_FIFO, prio);
	check(r == 0, "realtime_make_thread_realtime(%d, SCHED_FIFO, %d): %d", (int)a, prio, r);
	snprintf(want, sizeof(want), "%s %d reset-on-fork", rtkit ? "rr" : "fifo", prio);
	expect_sched(a, want, rtkit ? "SCHED_FIFO over rtkit is SCHED_RR" : "SCHED_FIFO granted");

	r = realtime_make_thread_realtime(0, SCHED_RR | SCHED_RESET_ON_FORK, maxprio);
	check(r == 0, "realtime_make_thread_realtime(0, SCHED_RR, %d) on the calling thread: %d",
	      maxprio, r);
	snprintf(want, sizeof(want), "rr %d reset-on-fork", maxprio);
	expect_sched(self, want, "SCHED_RR at the maximum");

	/* a child of fork(): no grant leaks to it, and it asks on its own
	 * connection (the parent's is never touched in the child) */
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		char buf[64];
		int rc = 0;

		sched_of(0, buf, sizeof(buf));
		if (strcmp(buf, "other 0") != 0) {
			printf("FAIL - the child of fork() runs \"%s\", not \"other 0\"\n", buf);
			rc = 1;
		}
		r = realtime_make_thread_realtime(0, SCHED_RR, 1);
		sched_of(0, buf, sizeof(buf));
		if (r != 0 || strcmp(buf, "rr 1 reset-on-fork") != 0) {
			printf("FAIL - the child's own request: %d, runs \"%s\" [%s]\n", r, buf,
			       realtime_error_message());
			rc = 1;
		}
		fflush(stdout);
		_exit(rc);
	}
	int status = -1;
	waitpid(child, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "a child of fork() starts SCHED_OTHER and is granted SCHED_RR 1 on its own "
	      "connection");

	r = realtime_reset_thread(a);
	check(r == 0, "realtime_reset_thread(%d): %d", (int)a, r);
	expect_sched(a, "other 0", "reset");
	r = realtime_reset_thread(0);
	check(r == 0, "realtime_reset_thread(0) after the fork: the parent's connection works: %d",
	      r);
	expect_sched(self, "other 0", "the calling thread reset");
	r = realtime_reset_thread(0);
	check(r == -ENOENT && *realtime_error_message(),
	      "a second reset: %d (expected -ENOENT) \"%s\"", r, realtime_error_message());

	r = realtime_make_thread_high_priority(b, minnice);
	check(r == 0 && nice_of(b) == minnice,
	      "realtime_make_thread_high_priority(%d, %d): %d, the thread runs at nice %d", (int)b,
	      minnice, r, nice_of(b));
	expect_sched(b, "other 0", "high priority is SCHED_OTHER");
	r = realtime_reset_thread(b);
	check(r == 0 && nice_of(b) == 0, "reset of the nice grant: %d, nice %d", r, nice_of(b));
}

/* Several threads ask at once, each for itself. */
#define N_RACERS 6
static int racer_result[N_RACERS];
static char racer_sched[N_RACERS][64];

static void *racer(void *arg)
{
	int i = (int)(long)arg;

	racer_result[i] = realtime_make_thread_realtime(0, SCHED_RR, 1 + i);
	sched_of(0, racer_sched[i], sizeof(racer_sched[i]));
	if (racer_result[i] == 0)
		realtime_reset_thread(0);
	return NULL;
}

static void check_threads(void)
{
	pthread_t t[N_RACERS];

	for (long i = 0; i < N_RACERS; i++)
		pthread_create(&t[i], NULL, racer, (void *)i);
	for (int i = 0; i < N_RACERS; i++) {
		char want[64];

		pthread_join(t[i], NULL);
		snprintf(want, sizeof(want), "rr %d reset-on-fork", 1 + i);
		check(racer_result[i] == 0 && strcmp(racer_sched[i], want) == 0,
		      "thread %d of %d asking at once: %d, ran \"%s\"", i + 1, N_RACERS,
		      racer_result[i], racer_sched[i]);
	}
}

static void check_refusal(int maxprio, const char *text)
{
	pid_t self = gettid_();
	int r;

	r = realtime_make_thread_realtime(0, SCHED_FIFO, maxprio + 1);
	check(r == -EPERM, "priority %d over the maximum %d: %d (expected -EPERM)", maxprio + 1,
	      maxprio, r);
	check(text == NULL || strstr(realtime_error_message(), text) != NULL,
	      "the refusal's message \"%s\" says \"%s\"", realtime_error_message(),
	      text ? text : "");
	expect_sched(self, "other 0", "the refused thread is left alone");
}

static void check_limits_realtimed(void)
{
	struct realtime_limits l = {};
	struct rlimit before, after;
	int r;

	getrlimit(RLIMIT_RTPRIO, &before);
	r = realtime_grant_limits(&l);
	getrlimit(RLIMIT_RTPRIO, &after);
	if (r == -EIO && strstr(realtime_error_message(), "CAP_SYS_RESOURCE")) {
		/* the project's host: root lacks CAP_SYS_RESOURCE, so realtimed
		 * cannot prlimit() another user's process (the vm tier runs
		 * this program where it can) */
		printf("# realtime_grant_limits: realtimed lacks CAP_SYS_RESOURCE here: \"%s\"\n",
		       realtime_error_message());
		check(after.rlim_cur == before.rlim_cur && after.rlim_max == before.rlim_max,
		      "a failed realtime_grant_limits leaves RLIMIT_RTPRIO at %llu",
		      (unsigned long long)after.rlim_max);
		return;
	}
	printf("# realtime_grant_limits: granted\n");
	check(r == 0, "realtime_grant_limits: %d", r);
	check(l.has_rtprio && after.rlim_cur == l.rtprio && after.rlim_max == l.rtprio,
	      "RLIMIT_RTPRIO %llu/%llu as the answer says (%d, %llu)",
	      (unsigned long long)after.rlim_cur, (unsigned long long)after.rlim_max, l.has_rtprio,
	      (unsigned long long)l.rtprio);
	getrlimit(RLIMIT_RTTIME, &after);
	check(l.has_rttime && after.rlim_max == (l.rttime == UINT64_MAX ? RLIM_INFINITY : l.rttime),
	      "RLIMIT_RTTIME %llu as the answer says (%llu)", (unsigned long long)after.rlim_max,
	      (unsigned long long)l.rttime);
	/* the kernel now lets the process do it itself */
	struct sched_param sp = { .sched_priority = 10 };
	r = sched_setscheduler(0, SCHED_FIFO, &sp);
	check(r == 0, "after GrantLimits the kernel itself grants SCHED_FIFO 10: %d", r);
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
}

static void check_limits_rtkit(long long rttime)
{
	struct rlimit rl;
	int r;

	r = realtime_grant_limits(NULL);
	check(r == -EOPNOTSUPP && strstr(realtime_error_message(), "RealtimeKit"),
	      "realtime_grant_limits over rtkit: %d (expected -EOPNOTSUPP) \"%s\"", r,
	      realtime_error_message());
	/* the realtime grants above lowered it, as rtkit demands */
	getrlimit(RLIMIT_RTTIME, &rl);
	check(rl.rlim_max == (rlim_t)rttime && rl.rlim_cur == (rlim_t)rttime,
	      "RLIMIT_RTTIME was lowered to rtkit's RTTimeUSecMax: %llu/%llu",
	      (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
}

int main(int argc, char **argv)
{
	bool rtkit;
	int maxprio, minnice, r;
	long long rttime;

	if (argc < 5 || (strcmp(argv[1], "realtimed") != 0 && strcmp(argv[1], "rtkit") != 0)) {
		fprintf(stderr, "usage: %s realtimed|rtkit MAXPRIO MINNICE RTTIME [REFUSAL_TEXT]\n",
			argv[0]);
		return 2;
	}
	rtkit = strcmp(argv[1], "rtkit") == 0;
	maxprio = atoi(argv[2]);
	minnice = atoi(argv[3]);
	rttime = atoll(argv[4]);
	if (pipe(park) < 0)
		return 2;

	check(strcmp(realtime_error_message(), "") == 0, "no message before any call");
	r = realtime_service();
	check(r == (rtkit ? REALTIME_SERVICE_RTKIT : REALTIME_SERVICE_REALTIMED),
	      "realtime_service: %d (expected %s)", r, rtkit ? "RTKIT" : "REALTIMED");
	check_maxima(maxprio, minnice, rttime);
	check_arguments();
	check_grants(rtkit, maxprio, minnice);
	check_threads();
	check_refusal(maxprio, argc > 5 ? argv[5] : NULL);
	if (rtkit)
		check_limits_rtkit(rttime);
	else
		check_limits_realtimed();

	close(park[1]);
	return failed ? 1 : 0;
}
