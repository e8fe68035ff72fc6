// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-rlimit.c: the one table of rlimits policy
 * sets (resource, key, names, the ceiling first) and the rlimit value each
 * grant implies, including RLIMIT_RTPRIO 0 without fifo and unset keys;
 * how a limit is written for people ("infinity").
 */
#include <check.h>
#include <inttypes.h>
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"

START_TEST(test_grant_rlimit)
{
	/* What full_default gives user "x" and full_audio a member of group
	 * 29. Policies=rr: RLIMIT_RTPRIO would open SCHED_FIFO too, so none.
	 * The kernel's encoding: RLIMIT_NICE = 20 - nice. */
	static const struct {
		int resource;
		uint64_t want[2];
	} limits[] = {
		{ RLIMIT_RTPRIO, { 0, 95 } },
		{ RLIMIT_NICE, { 35, 39 } },
		{ RLIMIT_MEMLOCK, { UINT64_C(64) << 20, RLIM_INFINITY } },
		{ RLIMIT_RTTIME, { 200000, RLIM_INFINITY } },
	};
	const gid_t audio[] = { 29 };
	PolicyGrant g;
	uint64_t v;

	for (size_t i = 0; i < 2; i++) {
		_cleanup_(policy_freep) Policy *p = load_text(i ? full_audio : full_default, NULL);

		eval(p, "x", 1, audio, i, &g);
		for (size_t l = 0; l < ELEMENTSOF(limits); l++) {
			ck_assert_int_eq(policy_grant_rlimit(&g, limits[l].resource, &v), 0);
			ck_assert_msg(v == limits[l].want[i],
				      "limit %d: %" PRIu64 ", want %" PRIu64, limits[l].resource, v,
				      limits[l].want[i]);
		}
	}

	g.nice = -20;
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 40);
	g.nice = 19;
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 1);
}
END_TEST

START_TEST(test_grant_rlimit_unset)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;
	uint64_t v = 4242;

	p = load_text("[Default]\nNice=-5\n", NULL);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), -ENODATA);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_MEMLOCK, &v), -ENODATA);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTTIME, &v), -ENODATA);
	ck_assert_uint_eq(v, 4242);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 25);
	/* Resources policy has nothing to say about. */
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NOFILE, &v), -EINVAL);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_CPU, &v), -EINVAL);
	ck_assert_uint_eq(v, 25);
}
END_TEST

/* The one rlimit table: each rlimit behind its key, named as the kernel's
 * /proc/PID/limits names it, and the ceiling before the rights. */
START_TEST(test_rlimit_format)
{
	static const struct {
		uint64_t v;
		const char *text;
	} cases[] = { { RLIM_INFINITY, "infinity" }, { 0, "0" }, { 67108864, "67108864" } };
	char buf[32];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		policy_rlimit_format(cases[i].v, buf, sizeof(buf));
		ck_assert_str_eq(buf, cases[i].text);
	}
}
END_TEST

START_TEST(test_rlimit_table)
{
	char limits[4096];
	FILE *f;
	size_t n;

	f = fopen("/proc/self/limits", "re");
	ck_assert_ptr_nonnull(f);
	n = fread(limits, 1, sizeof(limits) - 1, f);
	limits[n] = '\0';
	fclose(f);

	static const struct {
		int resource;
		PolicyKey key;
	} want[POLICY_RLIMIT_MAX] = {
		{ RLIMIT_RTTIME, POLICY_KEY_RTTIME },
		{ RLIMIT_RTPRIO, POLICY_KEY_REALTIME_PRIORITY },
		{ RLIMIT_MEMLOCK, POLICY_KEY_MEMLOCK },
		{ RLIMIT_NICE, POLICY_KEY_NICE },
	};

	for (size_t i = 0; i < POLICY_RLIMIT_MAX; i++) {
		const PolicyRlimit *l = policy_rlimit(i);

		ck_assert_ptr_nonnull(l);
		ck_assert_int_eq(l->resource, want[i].resource);
		ck_assert_int_eq(l->key, want[i].key);
		ck_assert_msg(startswith(l->name, "RLIMIT_"), "%s", l->name);
		ck_assert_msg(strstr(limits, l->proc_name), "no \"%s\" in /proc/self/limits",
			      l->proc_name);
		ck_assert_ptr_nonnull(policy_key_to_string(l->key));
		/* only RLIMIT_RTTIME is a ceiling, and it comes first */
		ck_assert(l->ceiling == (l->resource == RLIMIT_RTTIME));
		ck_assert(l->ceiling == (i == 0));
	}
	ck_assert_ptr_null(policy_rlimit(POLICY_RLIMIT_MAX));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-rlimit");

	policy_test_case(s, "rlimit",
			 CHECK_TESTS(test_grant_rlimit, test_grant_rlimit_unset, test_rlimit_table,
				     test_rlimit_format));
	return policy_test_run(s);
}
