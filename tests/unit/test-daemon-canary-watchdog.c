/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/canary-watchdog.c, the canary and watchdog threads'
 * timing, on the real /proc: a child of canary-fixture.c supervises one of
 * its own sleeping threads, and the test plays the scheduler by stopping
 * the child's canary thread with ptrace:
 *   - stopped for good (starvation with RT throttling off), the target
 *     asleep: the watchdog fires, but blames and demotes no one, at the
 *     first firing and at the next, and the process keeps its
 *     RLIMIT_RTPRIO (a false alarm of fair load takes realtime from no one);
 *   - running 50 ms of every second, what RT throttling (6.1) and the fair
 *     deadline server (6.12) leave a starving SCHED_OTHER thread: it fires
 *     within CanaryWatchdogSec + 1 s all the same;
 *   - stopped 60 ms of every 100 ms, a CPU shared with busy but sleeping
 *     realtime work: a late canary is not a starving one, it does not fire;
 *   - the whole child stopped (SIGSTOP) for three windows: it does not fire.
 * Exits 77 when ptrace is not allowed here.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "canary-fixture.h"
#include "check-main.h"

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

int main(void)
{
	return canary_check_run("daemon-canary-watchdog", "watchdog",
				CHECK_TESTS(test_stopped_daemon_is_not_starvation,
					    test_starving_canary_without_realtime,
					    test_throttled_canary_fires,
					    test_late_canary_is_not_starving),
				true);
}
