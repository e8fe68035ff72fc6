/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/check-shield.c, over a fake system bus
 * (ctl-check-fixture.h): realtimed's shield in words (status's line) and
 * shield's verdicts: realtimed not running or too old to say, no shield
 * configured, configured and not held, held, held with irqbalance out of
 * reach or something left undone, refused and failed.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

static CheckBus fake_bus;
static void fake_bus_query(CheckBus *ret)
{
	*ret = fake_bus;
}

/* realtimed is on the bus and says this of its shield. */
static void daemon_says(const char *state, const char *cpus, unsigned grants, unsigned moved)
{
	ShieldHold *h = &fake_bus.shield;

	ctx.bus_query = fake_bus_query;
	fake_bus = (CheckBus){ .reachable = true, .realtimed = true, .realtimed_pid = 42 };
	*h = (ShieldHold){ .known = true, .grants = grants, .moved = moved };
	snprintf(h->state, sizeof(h->state), "%s", state);
	snprintf(h->cpus, sizeof(h->cpus), "%s", cpus);
}

static const char *describe(void)
{
	static char text[1280];

	shield_hold_describe(&fake_bus.shield, text, sizeof(text));
	return text;
}

static void expect(CheckStatus st, const char *value, const char *in_summary)
{
	run("shield");
	assert_result(st, value);
	ck_assert_msg(strstr(res.summary, in_summary), "'%s' not in '%s'", in_summary, res.summary);
}

START_TEST(test_describe)
{
	daemon_says("held", "3", 1, 5);
	ck_assert_str_eq(describe(), "held on CPUs 3 for 1 realtime grant: 5 IRQs moved off them");
	daemon_says("lingering", "2-3", 0, 1);
	ck_assert_str_eq(describe(), "held a few seconds more on CPUs 2-3 for 0 realtime grants: "
				     "1 IRQ moved off them");
	daemon_says("released", "", 0, 0);
	ck_assert_ptr_nonnull(strstr(describe(), "no realtime grant is supervised"));
	daemon_says("refused", "", 1, 0);
	snprintf(fake_bus.shield.problem, sizeof(fake_bus.shield.problem), "it leaves no core");
	ck_assert_str_eq(describe(), "not held: it leaves no core");
	daemon_says("unset", "", 0, 0);
	ck_assert_str_eq(describe(), "not configured ([Daemon] Shield= is none)");
	fake_bus.shield.known = false;
	ck_assert_ptr_nonnull(strstr(describe(), "not known"));
}
END_TEST

START_TEST(test_verdicts)
{
	fake_bus = (CheckBus){ .reachable = true };
	ctx.bus_query = fake_bus_query;
	expect(CHECK_SKIP, "realtimed=not-running", "realtimed is not running");
	daemon_says("held", "3", 1, 5);
	fake_bus.shield.known = false;
	expect(CHECK_SKIP, "realtimed=unknown", "older");

	daemon_says("unset", "", 0, 0);
	expect(CHECK_INFO, "state=unset", "Shield=auto in realtime.conf(5)");
	daemon_says("released", "", 0, 0);
	expect(CHECK_OK, "state=released", "not held: no realtime grant");

	daemon_says("held", "3", 2, 5);
	fake_bus.shield.n_left = 2;
	snprintf(fake_bus.shield.irqbalance, sizeof(fake_bus.shield.irqbalance), "told (pid 9)");
	expect(CHECK_OK, "state=held cpus=3 moved=5 left=2 irqbalance=told",
	       "held on CPUs 3 for 2 realtime grants");
	ck_assert_ptr_nonnull(strstr(res.summary, "the timer tick stay"));

	snprintf(fake_bus.shield.irqbalance, sizeof(fake_bus.shield.irqbalance),
		 "irqbalance (pid 9) runs, but its socket /run/irqbalance/irqbalance9.sock "
		 "does not exist");
	expect(CHECK_WARN, "state=held cpus=3 moved=5 left=2 irqbalance=unreachable",
	       "does not exist");
	ck_assert_ptr_nonnull(strstr(res.hint, "IRQBALANCE_BANNED_CPULIST"));

	daemon_says("held", "3", 1, 5);
	snprintf(fake_bus.shield.problem, sizeof(fake_bus.shield.problem),
		 "CPU 3 has no cpufreq governor or energy-performance preference named fast");
	expect(CHECK_WARN, "state=held cpus=3 moved=5 left=0", "named fast");

	daemon_says("refused", "", 1, 0);
	snprintf(fake_bus.shield.problem, sizeof(fake_bus.shield.problem),
		 "shielding CPUs 1 would leave the rest of the machine (CPUs 0) no whole core");
	expect(CHECK_WARN, "state=refused", "no whole core");
	ck_assert_ptr_nonnull(strstr(res.hint, "one whole core"));
	daemon_says("failed", "", 1, 0);
	expect(CHECK_WARN, "state=failed", "not held: failed");
	ck_assert_ptr_nonnull(strstr(res.hint, "/run/realtime/shield"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check-shield");

	ctl_check_test_case(s, "checks", CHECK_TESTS(test_describe, test_verdicts));
	return policy_test_run(s);
}
