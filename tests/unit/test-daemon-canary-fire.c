/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/canary-fire.c and the watchdog's held rule, on a
 * fake /proc (canary-fixture.h: the child's sleeping threads as targets,
 * their stat and schedstat files written by a thread of the child that
 * plays the scheduler, one target per CPU); the test stops the child's
 * canary thread with ptrace:
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
 *   - a runaway of uid 3000 that realtimed did not grant beside uid
 *     2000's light granted thread, the canary starving: uid 3000 is
 *     blamed and demoted at the first firing, uid 2000 never;
 *   - the same runaway starting after a first firing that demoted
 *     nobody: the next firing does not escalate;
 *   - such runaways on every CPU while the canary cheeps but is deprived
 *     (6.12): noted, they count as held, and the probe fires.
 * Exits 77 when ptrace is not allowed here.
 */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "canary-fixture.h"
#include "check-main.h"

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

/* Issue 31's case: a starving canary, the granted threads of uid 1000 not
 * realtime, uid 2000's granted thread at 30% of a CPU, and a runaway of
 * uid 3000 that realtimed did not grant (SCHED_FIFO through its own
 * RLIMIT_RTPRIO; CanaryDemoteUnknown=yes). The watchdog notes the
 * ungranted realtime threads half way to the firing, so the first firing
 * blames uid 3000 and demotes its runaway, nobody else; the canary still
 * starving (the fake's doing), the next firing finds realtime no longer
 * keeps half of the CPUs busy and escalates to no one: uid 2000's thread
 * stays. Before: nobody blamed at the first firing, every user demoted at
 * the second. */
START_TEST(test_ungranted_runaway_blamed_first)
{
	char buf[256];
	pid_t canary;

	/* the fake scheduler's writes may lag on a loaded machine, so that
	 * the runaway seems to use less than 90% of its CPU: once more */
	for (int attempt = 1;; attempt++) {
		if (!start_fake_child_with(SCHED_OTHER, true, FAKE_UNKNOWN_RUNAWAY)) {
			stop_fake_child();
			return;
		}
		canary = seize_canary();
		canary_pause(canary);
		read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
		if (strcmp(buf, "fired esc 0 blamed 3000 demoted\n") == 0 || attempt == 2)
			break;
		printf("note: attempt %d at load %s: %s", attempt, loadavg(), buf);
		fflush(stdout);
		stop_fake_child();
	}
	ck_assert_msg(strcmp(buf, "fired esc 0 blamed 3000 demoted\n") == 0,
		      "the first firing did not blame the ungranted runaway's user alone: '%s'",
		      buf);
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_msg(strcmp(buf, "fired esc 0 blamed demoted\n") == 0,
		      "after uid 3000's demotion, another user's grant was taken: '%s'", buf);
	stop_fake_child();
}
END_TEST

/* A firing that demoted no one is no reason to escalate. The ungranted
 * thread of uid 3000 starts to spin only after the first firing, which
 * therefore blames and demotes nobody; the next firing, within two
 * windows, finds realtime (uid 3000's runaway and uid 2000's thread)
 * keeping half of the CPUs busy: it blames uid 3000 by the CPU time its
 * noted thread used, and demotes nobody else. Before: it escalated, and
 * took uid 2000's grant. */
START_TEST(test_no_escalation_after_empty_firing)
{
	char buf[256];
	pid_t canary;

	if (!start_fake_child_with(SCHED_OTHER, true, FAKE_UNKNOWN_AFTER_FIRING)) {
		stop_fake_child();
		return;
	}
	canary = seize_canary();
	canary_pause(canary);
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "fired esc 0 blamed demoted\n");
	read_report(3 * PERIOD_USEC / 1000, buf, sizeof(buf));
	/* uid 3000 blamed, or (the fake scheduler lagging) not yet: never an
	 * escalation, never uid 2000 */
	ck_assert_msg(strcmp(buf, "fired esc 0 blamed 3000 demoted\n") == 0 ||
			      strcmp(buf, "fired esc 0 blamed demoted\n") == 0,
		      "escalated after a firing that demoted no one: '%s'", buf);
	stop_fake_child();
}
END_TEST

/* As on 6.12, where the fair deadline server serves the canary's short
 * wakeups behind a runaway: runaways of uid 3000 that realtimed did not
 * grant on every CPU; the canary starves for a moment (300 ms), enough
 * for the watchdog to note them, then cheeps on time while it gets 10% of
 * the time at most. Their CPU time counts as held, so the probe finds the
 * fair class deprived: uid 3000 is blamed, nobody else. Before: only
 * granted threads held, no probe ran, and the canary never fired. */
START_TEST(test_ungranted_held_and_deprived_fires)
{
	char buf[256];
	pid_t canary;

	for (int attempt = 1;; attempt++) {
		if (!start_fake_child_with(SCHED_OTHER, true, FAKE_UNKNOWN_EVERY_CPU)) {
			stop_fake_child();
			return;
		}
		canary = seize_canary();
		canary_pause(canary);
		read_report(300, buf, sizeof(buf));
		canary_resume(canary);
		(void)throttle_canary(canary, 5, 50, 4 * PERIOD_USEC / 1000, buf, sizeof(buf));
		if (strcmp(buf, "fired esc 0 blamed 3000 demoted\n") == 0 || attempt == 2)
			break;
		printf("note: attempt %d at load %s: %s", attempt, loadavg(), buf);
		fflush(stdout);
		stop_fake_child();
	}
	ck_assert_msg(strcmp(buf, "fired esc 0 blamed 3000 demoted\n") == 0,
		      "ungranted runaways on every CPU, the fair class deprived: '%s'", buf);
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

int main(void)
{
	return canary_check_run(
		"daemon-canary-fire", "fire",
		CHECK_TESTS(test_lowered_threads_do_not_fire, test_held_alone_does_not_fire,
			    test_held_and_deprived_fires, test_blame_then_no_escalation,
			    test_ungranted_runaway_blamed_first,
			    test_no_escalation_after_empty_firing,
			    test_ungranted_held_and_deprived_fires),
		true);
}
