/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * preload-probe: a program that asks the kernel for realtime scheduling the
 * way JACK or SuperCollider do, run by test-preload.sh under
 * librealtime-preload.so (realtimectl run --threads) as a user whose
 * RLIMIT_RTPRIO is 0. Each case checks what the caller sees (return value,
 * errno) and what the kernel then reports for the thread (sched_getscheduler,
 * sched_getparam, pthread_getschedparam), and prints "ok - ..." or
 * "FAIL - ..." lines; the exit status is 1 when a check failed.
 *
 *   preload-probe CASE [ARG]
 *     setschedparam   pthread_setschedparam on another thread, then lower, then SCHED_OTHER
 *     setschedprio    pthread_setschedprio on a granted thread
 *     setscheduler    sched_setscheduler on the calling thread and on another by tid
 *     setparam        sched_setparam on a granted thread
 *     setattr         sched_setattr, found with dlsym as a program on glibc < 2.41 would
 *     create          pthread_create with explicit SCHED_FIFO attributes
 *     inherit         a granted thread creates one with inherited scheduling
 *     fork            a granted thread forks: the child and its threads are not realtime,
 *                     and an exec'ed program (preload-probe is-other) neither
 *     is-other        exit 0 when the calling thread runs SCHED_OTHER
 *     exec SECS       a thread makes itself SCHED_FIFO 20, prints "pid P", and
 *                     calls execve() (exec-held SECS): the kernel makes it the
 *                     new program's main thread
 *     exec-held SECS  the main thread runs fifo+reset-on-fork 20; prints
 *                     "held", sleeps SECS
 *     many            16 threads at once each make themselves SCHED_FIFO
 *     refused PRIO    SCHED_FIFO PRIO beyond policy: EPERM in every form, no thread runs
 *     absent          realtimed not there: EPERM, within ARG milliseconds
 *     allowed         the kernel allows it (CAP_SYS_NICE): done by the kernel, no
 *                     SCHED_RESET_ON_FORK (which only realtimed sets)
 *     mlockall        mlockall(MCL_CURRENT | MCL_FUTURE): prints its outcome, exits 0
 *                     when it succeeded
 * Every realtime thread here sleeps; nothing spins.
 */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sched-attr.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

static int failed;

#define CHECK(cond, ...)                                  \
	do {                                              \
		if (cond) {                               \
			printf("ok   - ");                \
		} else {                                  \
			printf("FAIL - ");                \
			failed++;                         \
		}                                         \
		printf(__VA_ARGS__);                      \
		printf(" [%s:%d]\n", __func__, __LINE__); \
	} while (0)

static const char *policy_name(int p)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s",
		 (p & ~SCHED_RESET_ON_FORK) == SCHED_FIFO    ? "fifo"
		 : (p & ~SCHED_RESET_ON_FORK) == SCHED_RR    ? "rr"
		 : (p & ~SCHED_RESET_ON_FORK) == SCHED_OTHER ? "other"
							     : "?",
		 p & SCHED_RESET_ON_FORK ? "+reset-on-fork" : "");
	return buf;
}

/* What the kernel runs tid with: policy (flag included) and priority. */
static bool kernel_is(pid_t tid, int policy, int prio, const char *what)
{
	struct sched_param sp = {};
	int p = sched_getscheduler(tid);

	sched_getparam(tid, &sp);
	CHECK(p == policy && sp.sched_priority == prio,
	      "%s: the kernel runs thread %d %s %d (want %s %d)", what, tid, policy_name(p),
	      sp.sched_priority, policy_name(policy), prio);
	return p == policy && sp.sched_priority == prio;
}

static void pthread_is(pthread_t t, int policy, int prio, const char *what)
{
	struct sched_param sp = {};
	int p = -1, r = pthread_getschedparam(t, &p, &sp);

	CHECK(r == 0 && p == policy && sp.sched_priority == prio,
	      "%s: pthread_getschedparam says %s %d (want %s %d)", what, policy_name(p),
	      sp.sched_priority, policy_name(policy), prio);
}

/* A thread that sleeps until told to go: the target of the grants. */
struct sleeper {
	pthread_t thread;
	pid_t tid;
	int pipe[2];
};

static void *sleeper_main(void *userdata)
{
	struct sleeper *s = userdata;
	char c;

	__atomic_store_n(&s->tid, gettid(), __ATOMIC_SEQ_CST);
	while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void sleeper_start(struct sleeper *s)
{
	*s = (struct sleeper){};
	if (pipe(s->pipe) < 0 || pthread_create(&s->thread, NULL, sleeper_main, s) != 0) {
		perror("sleeper");
		exit(2);
	}
	while (!__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST))
		usleep(1000);
}

static void sleeper_stop(struct sleeper *s)
{
	close(s->pipe[1]);
	pthread_join(s->thread, NULL);
	close(s->pipe[0]);
}

static int case_setschedparam(void)
{
	/* On another thread: granted by realtimed, lowered, back to
	 * SCHED_OTHER; then on the calling thread itself. */
	static const struct {
		bool self;
		int policy, prio;
		const char *what;
	} steps[] = {
		{ false, SCHED_FIFO, 30, "granted by realtimed" },
		{ false, SCHED_FIFO, 20, "lowered" },
		{ false, SCHED_OTHER, 0, "back to SCHED_OTHER" },
		{ true, SCHED_RR, 25, "the calling thread" },
	};
	struct sleeper s;

	sleeper_start(&s);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct sched_param sp = { .sched_priority = steps[i].prio };
		pthread_t t = steps[i].self ? pthread_self() : s.thread;
		pid_t tid = steps[i].self ? gettid() : s.tid;
		int r = pthread_setschedparam(t, steps[i].policy, &sp);

		CHECK(r == 0, "pthread_setschedparam(%s, %d, %d) returns %d",
		      steps[i].self ? "pthread_self()" : "other thread", steps[i].policy,
		      steps[i].prio, r);
		kernel_is(tid, steps[i].policy | SCHED_RESET_ON_FORK, steps[i].prio, steps[i].what);
		pthread_is(t, steps[i].policy, steps[i].prio, steps[i].what);
	}
	sleeper_stop(&s);
	return 0;
}

static int case_setschedprio(void)
{
	struct sleeper s;
	struct sched_param sp = { .sched_priority = 10 };
	int r;

	sleeper_start(&s);
	r = pthread_setschedparam(s.thread, SCHED_FIFO, &sp);
	CHECK(r == 0, "pthread_setschedparam(SCHED_FIFO, 10) returns %d", r);
	r = pthread_setschedprio(s.thread, 40);
	CHECK(r == 0, "pthread_setschedprio(40) returns %d", r);
	kernel_is(s.tid, SCHED_FIFO | SCHED_RESET_ON_FORK, 40, "raised by pthread_setschedprio");
	pthread_is(s.thread, SCHED_FIFO, 40, "raised by pthread_setschedprio");
	sleeper_stop(&s);
	return 0;
}

static int case_setscheduler(void)
{
	struct sleeper s;
	struct sched_param sp = { .sched_priority = 25 };
	int r;

	r = sched_setscheduler(0, SCHED_RR, &sp);
	CHECK(r == 0, "sched_setscheduler(0, SCHED_RR, 25) returns %d (%s)", r,
	      r ? strerror(errno) : "");
	kernel_is(gettid(), SCHED_RR | SCHED_RESET_ON_FORK, 25, "the calling thread");

	sleeper_start(&s);
	sp.sched_priority = 35;
	r = sched_setscheduler(s.tid, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	CHECK(r == 0, "sched_setscheduler(tid, SCHED_FIFO|SCHED_RESET_ON_FORK, 35) returns %d (%s)",
	      r, r ? strerror(errno) : "");
	kernel_is(s.tid, SCHED_FIFO | SCHED_RESET_ON_FORK, 35, "another thread by tid");
	sleeper_stop(&s);

	/* a thread of another process is not for realtimed to grant here */
	sp.sched_priority = 10;
	errno = 0;
	r = sched_setscheduler(getppid(), SCHED_FIFO, &sp);
	CHECK(r == -1 && errno == EPERM, "sched_setscheduler(parent process) returns %d, errno %s",
	      r, strerror(errno));
	return 0;
}

static int case_setparam(void)
{
	struct sched_param sp = { .sched_priority = 5 };
	int r;

	r = sched_setscheduler(0, SCHED_FIFO, &sp);
	CHECK(r == 0, "sched_setscheduler(0, SCHED_FIFO, 5) returns %d", r);
	sp.sched_priority = 45;
	r = sched_setparam(0, &sp);
	CHECK(r == 0, "sched_setparam(0, 45) returns %d (%s)", r, r ? strerror(errno) : "");
	kernel_is(gettid(), SCHED_FIFO | SCHED_RESET_ON_FORK, 45, "raised by sched_setparam");
	return 0;
}

static int case_setattr(void)
{
	int (*setattr)(pid_t, struct sched_attr *, unsigned) = dlsym(RTLD_DEFAULT, "sched_setattr");
	struct sched_attr a = { .size = sizeof(a),
				.sched_policy = SCHED_FIFO,
				.sched_priority = 15 };
	int r;

	CHECK(setattr != NULL,
	      "sched_setattr is found with dlsym (the preload's; glibc %s has none)",
	      gnu_get_libc_version());
	if (!setattr)
		return 0;
	r = setattr(0, &a, 0);
	CHECK(r == 0, "sched_setattr(0, SCHED_FIFO 15) returns %d (%s)", r,
	      r ? strerror(errno) : "");
	kernel_is(gettid(), SCHED_FIFO | SCHED_RESET_ON_FORK, 15, "by sched_setattr");
	return 0;
}

/* What a new thread saw before anything else ran in it. */
struct seen {
	int policy;
	int prio;
	pid_t tid;
	bool ran;
	int hold; /* > 0: the thread waits for this fd's end before it returns */
};

static void *record_main(void *userdata)
{
	struct seen *s = userdata;
	struct sched_param sp = {};

	s->policy = sched_getscheduler(0);
	sched_getparam(0, &sp);
	s->prio = sp.sched_priority;
	s->tid = gettid();
	__atomic_store_n(&s->ran, true, __ATOMIC_SEQ_CST);
	if (s->hold > 0) {
		char c;

		while (read(s->hold, &c, 1) < 0 && errno == EINTR)
			;
	}
	return NULL;
}

static int create_explicit(pthread_t *t, int policy, int prio, struct seen *seen)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t attr;
	int r;

	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, policy);
	pthread_attr_setschedparam(&attr, &sp);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	r = pthread_create(t, &attr, record_main, seen);
	pthread_attr_destroy(&attr);
	return r;
}

static int case_create(void)
{
	struct seen seen = {};
	struct sched_param sp;
	int r, p, hold[2];
	pthread_t t;

	if (pipe(hold) < 0)
		return 2;
	seen.hold = hold[0];
	r = create_explicit(&t, SCHED_FIFO, 45, &seen);
	CHECK(r == 0, "pthread_create(explicit SCHED_FIFO 45) returns %d", r);
	if (r != 0)
		return 0;
	/* the thread is still there until joined: ask the kernel and glibc now */
	while (!__atomic_load_n(&seen.ran, __ATOMIC_SEQ_CST))
		usleep(1000);
	CHECK(seen.policy == (SCHED_FIFO | SCHED_RESET_ON_FORK) && seen.prio == 45,
	      "the start routine runs %s %d from its first instruction (want fifo+reset-on-fork "
	      "45)",
	      policy_name(seen.policy), seen.prio);
	r = pthread_getschedparam(t, &p, &sp);
	CHECK(r == 0 && p == SCHED_FIFO && sp.sched_priority == 45,
	      "pthread_getschedparam agrees: %s %d", policy_name(p), sp.sched_priority);
	close(hold[1]);
	pthread_join(t, NULL);
	return 0;
}

static void *inherit_main(void *userdata)
{
	struct seen *child = userdata;
	struct sched_param sp = { .sched_priority = 33 };
	pthread_t t;
	int r;

	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	CHECK(r == 0, "the creator got SCHED_FIFO 33 (returns %d)", r);
	r = pthread_create(&t, NULL, record_main, child);
	CHECK(r == 0, "it creates a thread with inherited scheduling (returns %d)", r);
	if (r == 0)
		pthread_join(t, NULL);
	return NULL;
}

static int case_inherit(void)
{
	struct seen child = {};
	pthread_t t;

	pthread_create(&t, NULL, inherit_main, &child);
	pthread_join(t, NULL);
	CHECK(child.ran && child.policy == (SCHED_FIFO | SCHED_RESET_ON_FORK) && child.prio == 33,
	      "the new thread starts its routine as %s %d, its creator's grant (want "
	      "fifo+reset-on-fork 33)",
	      policy_name(child.policy), child.prio);
	return 0;
}

static int case_fork(const char *self)
{
	struct sched_param sp = { .sched_priority = 20 };
	int r, status;
	pid_t pid;

	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	CHECK(r == 0, "the parent got SCHED_FIFO 20 (returns %d)", r);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct seen seen = {};
		pthread_t t;

		failed = 0;
		kernel_is(gettid(), SCHED_OTHER, 0, "the child of fork");
		pthread_create(&t, NULL, record_main, &seen);
		pthread_join(t, NULL);
		CHECK(seen.policy == SCHED_OTHER, "a thread the child creates runs %s",
		      policy_name(seen.policy));
		fflush(stdout);
		if (failed)
			_exit(1);
		execl(self, self, "is-other", NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child and the program it execs run SCHED_OTHER (exit status %d)",
	      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	kernel_is(gettid(), SCHED_FIFO | SCHED_RESET_ON_FORK, 20, "the parent keeps its grant");
	return 0;
}

static int case_is_other(void)
{
	kernel_is(gettid(), SCHED_OTHER, 0, "the program exec'ed by the child");
	return 0;
}

/* exec's thread: asks for realtime through the preload, then execs. */
static void *exec_main(void *userdata)
{
	struct sched_param sp = { .sched_priority = 20 };
	const char *secs = userdata;
	int r;

	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	CHECK(r == 0, "a thread got SCHED_FIFO 20 (returns %d)", r);
	printf("pid %d\n", getpid());
	fflush(stdout);
	execl("/proc/self/exe", "preload-probe", "exec-held", secs, NULL);
	CHECK(0, "execl: %s", strerror(errno));
	exit(1);
}

static int case_exec(const char *secs)
{
	pthread_t t;

	pthread_create(&t, NULL, exec_main, (void *)secs);
	pthread_join(t, NULL); /* the exec ends this program first */
	return 1;
}

static int case_exec_held(const char *secs)
{
	kernel_is(gettid(), SCHED_FIFO | SCHED_RESET_ON_FORK, 20,
		  "the program the granted thread exec'ed, as its main thread");
	printf("held\n");
	fflush(stdout);
	sleep((unsigned)atoi(secs));
	return 0;
}

static void *many_main(void *userdata)
{
	struct sched_param sp = { .sched_priority = 1 + (int)(intptr_t)userdata };
	int *ok = malloc(sizeof(int));

	*ok = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0 &&
	      sched_getscheduler(0) == (SCHED_FIFO | SCHED_RESET_ON_FORK);
	return ok;
}

static int case_many(void)
{
	pthread_t t[16];
	int granted = 0;

	for (intptr_t i = 0; i < 16; i++)
		pthread_create(&t[i], NULL, many_main, (void *)i);
	for (int i = 0; i < 16; i++) {
		void *ok;

		pthread_join(t[i], &ok);
		granted += *(int *)ok;
		free(ok);
	}
	CHECK(granted == 16, "16 threads asking at once: %d granted", granted);
	return 0;
}

static int case_refused(int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	struct seen seen = {};
	pthread_t t;
	int r;

	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	CHECK(r == EPERM, "pthread_setschedparam(SCHED_FIFO %d) returns %d (want EPERM)", prio, r);
	errno = 0;
	r = sched_setscheduler(0, SCHED_FIFO, &sp);
	CHECK(r == -1 && errno == EPERM, "sched_setscheduler(SCHED_FIFO %d) returns %d, errno %s",
	      prio, r, strerror(errno));
	r = create_explicit(&t, SCHED_FIFO, prio, &seen);
	usleep(100000);
	CHECK(r == EPERM && !seen.ran,
	      "pthread_create(explicit SCHED_FIFO %d) returns %d, start routine %s", prio, r,
	      seen.ran ? "ran" : "never ran");
	kernel_is(gettid(), SCHED_OTHER, 0, "nothing changed");
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int case_absent(long bound_ms)
{
	struct sched_param sp = { .sched_priority = 10 };
	long t0 = now_ms(), dt;
	int r;

	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	dt = now_ms() - t0;
	CHECK(r == EPERM,
	      "pthread_setschedparam(SCHED_FIFO 10) returns %d (want EPERM, the kernel's)", r);
	CHECK(dt <= bound_ms, "it returned after %ld ms (want <= %ld)", dt, bound_ms);
	kernel_is(gettid(), SCHED_OTHER, 0, "nothing changed");
	return 0;
}

static int case_allowed(void)
{
	struct sched_param sp = { .sched_priority = 10 };
	struct seen seen = {};
	pthread_t t;
	int r;

	r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	CHECK(r == 0, "pthread_setschedparam(SCHED_FIFO 10) returns %d", r);
	kernel_is(gettid(), SCHED_FIFO, 10, "set by the kernel itself (no SCHED_RESET_ON_FORK)");
	r = create_explicit(&t, SCHED_RR, 12, &seen);
	CHECK(r == 0, "pthread_create(explicit SCHED_RR 12) returns %d", r);
	if (r == 0)
		pthread_join(t, NULL);
	CHECK(seen.policy == SCHED_RR && seen.prio == 12, "that thread ran %s %d",
	      policy_name(seen.policy), seen.prio);
	return 0;
}

static int case_mlockall(void)
{
	int r = mlockall(MCL_CURRENT | MCL_FUTURE);

	printf("mlockall: %s\n", r == 0 ? "ok" : strerror(errno));
	return r == 0 ? 0 : 3;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "setschedparam"))
		r = case_setschedparam();
	else if (!strcmp(c, "setschedprio"))
		r = case_setschedprio();
	else if (!strcmp(c, "setscheduler"))
		r = case_setscheduler();
	else if (!strcmp(c, "setparam"))
		r = case_setparam();
	else if (!strcmp(c, "setattr"))
		r = case_setattr();
	else if (!strcmp(c, "create"))
		r = case_create();
	else if (!strcmp(c, "inherit"))
		r = case_inherit();
	else if (!strcmp(c, "fork"))
		r = case_fork("/proc/self/exe");
	else if (!strcmp(c, "is-other"))
		r = case_is_other();
	else if (!strcmp(c, "exec") && argc > 2)
		r = case_exec(argv[2]);
	else if (!strcmp(c, "exec-held") && argc > 2)
		r = case_exec_held(argv[2]);
	else if (!strcmp(c, "many"))
		r = case_many();
	else if (!strcmp(c, "refused") && argc > 2)
		r = case_refused(atoi(argv[2]));
	else if (!strcmp(c, "absent") && argc > 2)
		r = case_absent(atol(argv[2]));
	else if (!strcmp(c, "allowed"))
		r = case_allowed();
	else if (!strcmp(c, "mlockall"))
		return case_mlockall();
	else {
		fprintf(stderr, "usage: preload-probe CASE [ARG] (see its source)\n");
		return 2;
	}
	return r ? r : failed ? 1 : 0;
}
