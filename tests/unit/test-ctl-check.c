/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl check's table (realtimectl/check.c): it has
 * exactly the ids realtimectl(1) documents, and over an empty tree every
 * check gives a status, a summary, and a hint for each warn or fail. The
 * checks themselves: test-ctl-check-kernel.c, -system.c and -user.c, each
 * over a canned tree (ctl-check-fixture.h).
 */
#include <check.h>
#include <string.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

START_TEST(test_table_ids)
{
	/* one id a line, as check.c's table: a new check is one line here */
	/* clang-format off */
	static const char *const ids[] = {
		"kernel-preempt",
		"threadirqs",
		"rt-throttling",
		"rt-group-sched",
		"sched-ext",
		"swappiness",
		"cpu-governor",
		"cpu-dma-latency",
		"shield",
		"smt",
		"mitigations",
		"timer",
		"rlimit-rtprio",
		"rlimit-memlock",
		"rlimit-rttime",
		"audio-group",
		"daemon",
		"refusals",
		"rtkit-conflict",
		"limits-conflict",
		"policy",
		"irq-priorities",
		"irq-sharing",
		"irq-below-audio",
		"realtime-module",
		"filesystem",
	};
	/* clang-format on */

	ck_assert_uint_eq(check_table_n, ELEMENTSOF(ids));
	for (size_t i = 0; i < ELEMENTSOF(ids); i++)
		ck_assert_str_eq(check_table[i].id, ids[i]);
	ck_assert_ptr_null(check_find("nonexistent"));
	ck_assert_str_eq(check_status_to_string(CHECK_SKIP), "skip");
}
END_TEST

START_TEST(test_empty_tree)
{
	/* nothing under the root: every check says something, none crashes */
	for (size_t i = 0; i < check_table_n; i++)
		run(check_table[i].id);
	run("swappiness");
	assert_result(CHECK_SKIP, "");
	ck_assert_ptr_nonnull(strstr(res.summary, "/proc/sys/vm/swappiness"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check");

	ctl_check_test_case(s, "checks", CHECK_TESTS(test_table_ids, test_empty_tree));
	return policy_test_run(s);
}
