/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/sched-util.c: the ways down never raise a thread.
 * sched_reset() (the demotion) leaves a thread that is not realtime as it
 * is and takes a realtime one to SCHED_OTHER at its own nice level;
 * sched_restore() puts back what a thread had before its grant, but never
 * above what it runs with now. The targets are threads of this test; only
 * the realtime case needs CAP_SYS_NICE (skipped without it), and its thread
 * sleeps: nothing here spins.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-main.h"
#include "sched-util.h"

/* A thread that sleeps until the test is done with it. */
typedef struct Sleeper {
	pthread_t thread;
	pid_t tid;
	int pipe[2];
} Sleeper;

static void *sleeper_main(void *userdata)
{
	Sleeper *s = userdata;
	char c;

	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void sleeper_start(Sleeper *s)
{
	ck_assert_int_eq(pipe(s->pipe), 0);
	s->tid = 0;
	ck_assert_int_eq(pthread_create(&s->thread, NULL, sleeper_main, s), 0);
	while (__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
}

static void sleeper_stop(Sleeper *s)
{
	SchedState st;

	close(s->pipe[1]);
	pthread_join(s->thread, NULL);
	close(s->pipe[0]);
	/* pthread_join() returns a moment before the kernel lets go of the tid */
	for (int i = 0; i < 5000 && sched_get_state(s->tid, &st) == 0; i++)
		usleep(1000);
}

/* As a thread would set itself: policy, then nice level. */
static void set(pid_t tid, int policy, int nice)
{
	struct sched_param sp = {};

	ck_assert_int_eq(sched_setscheduler(tid, policy, &sp), 0);
	ck_assert_int_eq(setpriority(PRIO_PROCESS, (id_t)tid, nice), 0);
}

/* A sleeping thread at nice, then SCHED_FIFO prio, as a grant would make it.
 * false (and no thread) without CAP_SYS_NICE: the caller skips that part. */
static bool fifo_sleeper_start(Sleeper *s, int nice, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	sleeper_start(s);
	set(s->tid, SCHED_OTHER, nice);
	if (sched_setscheduler(s->tid, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0) {
		printf("SKIP part: no CAP_SYS_NICE to make a thread SCHED_FIFO (%m)\n");
		sleeper_stop(s);
		return false;
	}
	return true;
}

static void assert_state(pid_t tid, int policy, int priority, int nice)
{
	SchedState s;

	ck_assert_int_eq(sched_get_state(tid, &s), 0);
	ck_assert_int_eq(s.policy, policy);
	ck_assert_int_eq(s.priority, priority);
	ck_assert_int_eq(s.nice, nice);
}

START_TEST(test_get_state)
{
	Sleeper s;
	SchedState st;

	sleeper_start(&s);
	set(s.tid, SCHED_BATCH, 6);
	ck_assert_int_eq(sched_get_state(s.tid, &st), 0);
	ck_assert_int_eq(st.policy, SCHED_BATCH);
	ck_assert_int_eq(st.priority, 0);
	ck_assert_int_eq(st.nice, 6);
	ck_assert(!st.reset_on_fork);
	ck_assert(sched_state_known(&st));
	ck_assert(!sched_state_known(&SCHED_STATE_UNKNOWN));
	sleeper_stop(&s);
	ck_assert_int_eq(sched_get_state(s.tid, &st), -ESRCH);
}
END_TEST

START_TEST(test_reset_leaves_other_threads)
{
	Sleeper s;

	sleeper_start(&s);
	/* nice 19, SCHED_IDLE, SCHED_BATCH at nice 7: none is realtime, and
	 * each would be raised by SCHED_OTHER at nice 0 */
	set(s.tid, SCHED_OTHER, 19);
	ck_assert_int_eq(sched_reset(s.tid), 0);
	assert_state(s.tid, SCHED_OTHER, 0, 19);
	set(s.tid, SCHED_IDLE, 19);
	ck_assert_int_eq(sched_reset(s.tid), 0);
	assert_state(s.tid, SCHED_IDLE, 0, 19);
	sleeper_stop(&s);

	sleeper_start(&s);
	set(s.tid, SCHED_BATCH, 7);
	ck_assert_int_eq(sched_reset(s.tid), 0);
	assert_state(s.tid, SCHED_BATCH, 0, 7);
	sleeper_stop(&s);
}
END_TEST

START_TEST(test_reset_realtime_keeps_nice)
{
	Sleeper s;

	if (!fifo_sleeper_start(&s, 12, 1))
		return;
	assert_state(s.tid, SCHED_FIFO, 1, 12);
	ck_assert_int_eq(sched_reset(s.tid), 0);
	/* SCHED_OTHER at the nice level it had under SCHED_FIFO, not nice 0 */
	assert_state(s.tid, SCHED_OTHER, 0, 12);
	sleeper_stop(&s);
}
END_TEST

START_TEST(test_restore)
{
	SchedState before = { .policy = SCHED_OTHER, .nice = 10 };
	Sleeper s;

	sleeper_start(&s);
	set(s.tid, SCHED_OTHER, 5);
	/* back to what it had: nice 10 */
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_NICE, &before), 0);
	assert_state(s.tid, SCHED_OTHER, 0, 10);
	/* a "before" better than now is a raise: the thread stays */
	before.nice = 0;
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_NICE, &before), 0);
	assert_state(s.tid, SCHED_OTHER, 0, 10);
	/* SCHED_IDLE before the grant: SCHED_IDLE again */
	before = (SchedState){ .policy = SCHED_IDLE, .nice = 11 };
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_FIFO, &before), 0);
	assert_state(s.tid, SCHED_IDLE, 0, 11);
	/* and never from SCHED_IDLE back up to SCHED_OTHER, nor to realtime */
	before = (SchedState){ .policy = SCHED_OTHER, .nice = 11 };
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_NICE, &before), 0);
	assert_state(s.tid, SCHED_IDLE, 0, 11);
	before = (SchedState){ .policy = SCHED_FIFO, .priority = 10 };
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_FIFO, &before), 0);
	assert_state(s.tid, SCHED_IDLE, 0, 11);
	sleeper_stop(&s);

	/* unknown (an adopted v1 grant): a nice grant goes to nice 0, never up */
	sleeper_start(&s);
	set(s.tid, SCHED_OTHER, 3);
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_NICE, &SCHED_STATE_UNKNOWN), 0);
	assert_state(s.tid, SCHED_OTHER, 0, 3);
	set(s.tid, SCHED_BATCH, 4);
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_RR, &SCHED_STATE_UNKNOWN), 0);
	assert_state(s.tid, SCHED_BATCH, 0, 4);
	sleeper_stop(&s);

	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_NICE, &before), -ESRCH);
}
END_TEST

START_TEST(test_restore_realtime)
{
	SchedState before;
	Sleeper s;

	if (!fifo_sleeper_start(&s, 8, 20))
		return;
	/* realtime before the grant, by its own right: it goes back there */
	before = (SchedState){ .policy = SCHED_RR, .priority = 5, .nice = 8 };
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_FIFO, &before), 0);
	assert_state(s.tid, SCHED_RR, 5, 8);
	/* unknown: SCHED_OTHER at its own nice level */
	ck_assert_int_eq(sched_restore(s.tid, POLICY_GRANT_RR, &SCHED_STATE_UNKNOWN), 0);
	assert_state(s.tid, SCHED_OTHER, 0, 8);
	sleeper_stop(&s);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-sched-util", "sched",
			      CHECK_TESTS(test_get_state, test_reset_leaves_other_threads,
					  test_reset_realtime_keeps_nice, test_restore,
					  test_restore_realtime),
			      NULL, NULL);
}
