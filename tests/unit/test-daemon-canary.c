/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/canary.c, the main thread's side of the canary
 * watchdog: its threads exist only while there are targets (a child of
 * canary-fixture.c, one target), the watchdog runs SCHED_DEADLINE (or
 * SCHED_FIFO 99 where the kernel refuses that, and then grants are capped
 * at 98), and 100000 updates of the targets do not grow the heap. The
 * watchdog's timing: test-daemon-canary-watchdog.c; what a firing blames:
 * test-daemon-canary-fire.c.
 */
#include <check.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "canary-fixture.h"
#include "check-main.h"

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
	return canary_check_run("daemon-canary", "canary",
				CHECK_TESTS(test_threads_only_while_supervising,
					    test_fifo_fallback_caps_grants,
					    test_memory_bounded_by_targets),
				false);
}
