// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-allow.h: the table of grant decisions
 * (kind x value x what policy sets), the reason each refusal carries (key,
 * limit, source), the texts realtimed answers with (which the integration
 * tests grep), the rlimit rules that follow from the same decision
 * (RLIMIT_RTPRIO only with fifo in Policies=), and the "[Default] needs
 * polkit" rule. Grants are built by hand: no files, no NSS.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "check-main.h"
#include "macro.h"
#include "policy-allow.h"

#define FILE_A "/etc/realtime/realtime.conf"

/* RealtimePriority=50, Policies=<policies>, Nice=-10, each from FILE_A:<line>.
 * A policies of 0 leaves Policies= unset. */
static PolicyGrant grant(unsigned policies)
{
	PolicyGrant g = {};

	g.set[POLICY_KEY_REALTIME_PRIORITY] = true;
	g.realtime_priority = 50;
	g.source[POLICY_KEY_REALTIME_PRIORITY] = (PolicySource){ FILE_A, 3, "Group audio" };
	if (policies) {
		g.set[POLICY_KEY_POLICIES] = true;
		g.policies = policies;
		g.source[POLICY_KEY_POLICIES] = (PolicySource){ FILE_A, 4, "Group audio" };
	}
	g.set[POLICY_KEY_NICE] = true;
	g.nice = -10;
	g.source[POLICY_KEY_NICE] = (PolicySource){ FILE_A, 5, "Group audio" };
	return g;
}

static const struct {
	unsigned policies; /* Policies= (0: unset) */
	PolicyGrantKind kind;
	int value;
	int expect;		    /* 0, -EPERM or -EINVAL */
	PolicyRefusalReason reason; /* when refused */
	const char *text;	    /* policy_refusal_format() for user "bob" */
} cases[] = {
	/* realtime within RealtimePriority=50 and Policies= */
	{ POLICY_SCHED_FIFO | POLICY_SCHED_RR, POLICY_GRANT_FIFO, 1, 0 },
	{ POLICY_SCHED_FIFO | POLICY_SCHED_RR, POLICY_GRANT_FIFO, 50, 0 },
	{ POLICY_SCHED_FIFO | POLICY_SCHED_RR, POLICY_GRANT_RR, 50, 0 },
	{ POLICY_SCHED_RR, POLICY_GRANT_RR, 20, 0 },
	{ POLICY_SCHED_FIFO, POLICY_GRANT_FIFO, 20, 0 },
	/* above the limit: the limit and its file:line */
	{ POLICY_SCHED_FIFO | POLICY_SCHED_RR, POLICY_GRANT_FIFO, 51, -EPERM,
	  POLICY_REFUSAL_PRIORITY, "priority 51 exceeds the limit 50 for user bob (" FILE_A ":3)" },
	{ POLICY_SCHED_RR, POLICY_GRANT_RR, 99, -EPERM, POLICY_REFUSAL_PRIORITY,
	  "priority 99 exceeds the limit 50 for user bob (" FILE_A ":3)" },
	/* a policy Policies= lacks, or no Policies= at all */
	{ POLICY_SCHED_RR, POLICY_GRANT_FIFO, 10, -EPERM, POLICY_REFUSAL_SCHED_POLICY,
	  "policy fifo is not allowed for user bob (" FILE_A ":4)" },
	{ POLICY_SCHED_FIFO, POLICY_GRANT_RR, 10, -EPERM, POLICY_REFUSAL_SCHED_POLICY,
	  "policy rr is not allowed for user bob (" FILE_A ":4)" },
	{ 0, POLICY_GRANT_RR, 10, -EPERM, POLICY_REFUSAL_SCHED_POLICY,
	  "policy rr is not allowed for user bob (no policy file sets Policies=)" },
	/* values no policy can allow: an invalid argument, not a refusal of policy */
	{ POLICY_SCHED_FIFO, POLICY_GRANT_FIFO, 0, -EINVAL, POLICY_REFUSAL_RANGE,
	  "priority 0 is out of range 1..99" },
	{ POLICY_SCHED_FIFO, POLICY_GRANT_FIFO, 100, -EINVAL, POLICY_REFUSAL_RANGE,
	  "priority 100 is out of range 1..99" },
	{ POLICY_SCHED_RR, POLICY_GRANT_RR, -1, -EINVAL, POLICY_REFUSAL_RANGE,
	  "priority -1 is out of range 1..99" },
	{ POLICY_SCHED_FIFO, POLICY_GRANT_NICE, -21, -EINVAL, POLICY_REFUSAL_RANGE,
	  "nice level -21 is out of range -20..19" },
	{ POLICY_SCHED_FIFO, POLICY_GRANT_NICE, 20, -EINVAL, POLICY_REFUSAL_RANGE,
	  "nice level 20 is out of range -20..19" },
	/* nice: at or above Nice=-10 */
	{ POLICY_SCHED_RR, POLICY_GRANT_NICE, -10, 0 },
	{ POLICY_SCHED_RR, POLICY_GRANT_NICE, 19, 0 },
	{ POLICY_SCHED_RR, POLICY_GRANT_NICE, 0, 0 },
	{ POLICY_SCHED_RR, POLICY_GRANT_NICE, -11, -EPERM, POLICY_REFUSAL_NICE,
	  "nice level -11 is below the limit -10 for user bob (" FILE_A ":5)" },
	{ POLICY_SCHED_RR, POLICY_GRANT_NICE, -20, -EPERM, POLICY_REFUSAL_NICE,
	  "nice level -20 is below the limit -10 for user bob (" FILE_A ":5)" },
};

START_TEST(test_table)
{
	PolicyGrant g = grant(cases[_i].policies);
	PolicyRefusal r = { .reason = _POLICY_REFUSAL_INVALID };
	char text[512];

	ck_assert_int_eq(policy_grant_allows(&g, cases[_i].kind, cases[_i].value, &r),
			 cases[_i].expect);
	if (cases[_i].expect == 0) {
		/* untouched on success */
		ck_assert_int_eq(r.reason, _POLICY_REFUSAL_INVALID);
		return;
	}
	ck_assert_int_eq(r.reason, cases[_i].reason);
	ck_assert_int_eq(r.kind, cases[_i].kind);
	ck_assert_int_eq(r.value, cases[_i].value);
	ck_assert_int_eq(policy_refusal_format(&r, "bob", text, sizeof(text)), 0);
	ck_assert_str_eq(text, cases[_i].text);
	/* NULL asks for the answer alone */
	ck_assert_int_eq(policy_grant_allows(&g, cases[_i].kind, cases[_i].value, NULL),
			 cases[_i].expect);
}
END_TEST

START_TEST(test_no_realtime)
{
	PolicyGrant g = grant(POLICY_SCHED_FIFO);
	PolicyRefusal r;
	char text[512];

	/* RealtimePriority=0 is "no realtime", whatever Policies= says */
	g.realtime_priority = 0;
	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_FIFO, 1, &r), -EPERM);
	ck_assert_int_eq(r.reason, POLICY_REFUSAL_NO_REALTIME);
	ck_assert_int_eq(r.key, POLICY_KEY_REALTIME_PRIORITY);
	ck_assert_int_eq(policy_refusal_format(&r, "bob", text, sizeof(text)), 0);
	ck_assert_str_eq(text, "realtime scheduling is not allowed for user bob (" FILE_A ":3)");

	/* and unset: the text says that no file sets it */
	g.set[POLICY_KEY_REALTIME_PRIORITY] = false;
	g.source[POLICY_KEY_REALTIME_PRIORITY] = (PolicySource){};
	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_RR, 1, &r), -EPERM);
	ck_assert_int_eq(r.reason, POLICY_REFUSAL_NO_REALTIME);
	ck_assert_int_eq(policy_refusal_format(&r, "bob", text, sizeof(text)), 0);
	ck_assert_str_eq(text, "realtime scheduling is not allowed for user bob (no policy file "
			       "sets RealtimePriority=)");

	/* a nice level does not need realtime */
	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_NICE, -5, &r), 0);
}
END_TEST

START_TEST(test_no_nice)
{
	PolicyGrant g = grant(POLICY_SCHED_FIFO);
	PolicyRefusal r;
	char text[512];

	g.set[POLICY_KEY_NICE] = false;
	g.source[POLICY_KEY_NICE] = (PolicySource){};
	/* with Nice= unset no nice level is granted, not even a weak one */
	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_NICE, 19, &r), -EPERM);
	ck_assert_int_eq(r.reason, POLICY_REFUSAL_NO_NICE);
	ck_assert_int_eq(r.key, POLICY_KEY_NICE);
	ck_assert_ptr_eq(r.source, &g.source[POLICY_KEY_NICE]);
	ck_assert_int_eq(policy_refusal_format(&r, "bob", text, sizeof(text)), 0);
	ck_assert_str_eq(text, "nice level 19 is not allowed for user bob (no policy file sets "
			       "Nice=)");
	/* realtime does not need Nice= */
	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_FIFO, 50, NULL), 0);
}
END_TEST

START_TEST(test_reason_values)
{
	PolicyGrant g = grant(POLICY_SCHED_RR);
	PolicyRefusal r;

	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_RR, 60, &r), -EPERM);
	ck_assert_int_eq(r.key, POLICY_KEY_REALTIME_PRIORITY);
	ck_assert_int_eq(r.limit, 50);
	ck_assert_ptr_eq(r.source, &g.source[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert_str_eq(r.source->section, "Group audio");

	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_NICE, -15, &r), -EPERM);
	ck_assert_int_eq(r.key, POLICY_KEY_NICE);
	ck_assert_int_eq(r.limit, -10);

	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_FIFO, 99, &r), -EPERM);
	ck_assert_int_eq(r.reason, POLICY_REFUSAL_SCHED_POLICY); /* Policies= before the limit */
	ck_assert_int_eq(r.key, POLICY_KEY_POLICIES);

	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_FIFO, 0, &r), -EINVAL);
	ck_assert_int_eq(r.key, _POLICY_KEY_INVALID);
	ck_assert_ptr_null(r.source);

	ck_assert_int_eq(policy_grant_allows(&g, _POLICY_GRANT_KIND_MAX, 1, &r), -EINVAL);
	ck_assert_int_eq(policy_grant_allows(&g, _POLICY_GRANT_KIND_INVALID, 1, &r), -EINVAL);
}
END_TEST

START_TEST(test_format_truncates)
{
	PolicyGrant g = grant(POLICY_SCHED_RR);
	PolicyRefusal r;
	char text[16];

	ck_assert_int_eq(policy_grant_allows(&g, POLICY_GRANT_RR, 60, &r), -EPERM);
	ck_assert_int_eq(policy_refusal_format(&r, "bob", text, sizeof(text)), -ENOBUFS);
	ck_assert_str_eq(text, "priority 60 exc");
	ck_assert_int_eq(policy_refusal_format(&r, "bob", text, 0), -ENOBUFS);
}
END_TEST

/* RLIMIT_RTPRIO opens SCHED_FIFO and SCHED_RR alike: only a user whose
 * Policies= allows fifo gets RealtimePriority= as the rlimit; anyone else
 * gets 0 (per-thread grants through realtimed only). */
START_TEST(test_rlimit_rtprio)
{
	PolicyGrant g = grant(POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	uint64_t v = 4242;

	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), 0);
	ck_assert_uint_eq(v, 50);
	g = grant(POLICY_SCHED_FIFO);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), 0);
	ck_assert_uint_eq(v, 50);
	g = grant(POLICY_SCHED_RR);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), 0);
	ck_assert_uint_eq(v, 0);
	g = grant(0); /* Policies= unset: no realtime policy at all */
	v = 4242;
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), 0);
	ck_assert_uint_eq(v, 0);
	/* RealtimePriority= unset: the limit is left alone */
	g.set[POLICY_KEY_REALTIME_PRIORITY] = false;
	v = 4242;
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), -ENODATA);
	ck_assert_uint_eq(v, 4242);
	/* the other limits do not depend on Policies= */
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 30);
}
END_TEST

START_TEST(test_kind_names)
{
	static const char *const names[_POLICY_GRANT_KIND_MAX] = {
		[POLICY_GRANT_FIFO] = "fifo", [POLICY_GRANT_RR] = "rr", [POLICY_GRANT_NICE] = "nice"
	};

	for (PolicyGrantKind k = 0; k < _POLICY_GRANT_KIND_MAX; k++)
		ck_assert_str_eq(policy_grant_kind_to_string(k), names[k]);
	ck_assert_ptr_null(policy_grant_kind_to_string(_POLICY_GRANT_KIND_MAX));
	ck_assert_ptr_null(policy_grant_kind_to_string(_POLICY_GRANT_KIND_INVALID));
	ck_assert_int_eq(policy_grant_kind_from_string("rr"), POLICY_GRANT_RR);
	ck_assert_int_eq(policy_grant_kind_from_string("deadline"), _POLICY_GRANT_KIND_INVALID);
	ck_assert_int_eq(policy_grant_kind_from_string(NULL), _POLICY_GRANT_KIND_INVALID);
}
END_TEST

START_TEST(test_needs_polkit)
{
	PolicyGrant g = grant(POLICY_SCHED_RR);
	PolicyDaemon pd = { .polkit = true };

	g.covered = false;
	ck_assert(policy_grant_needs_polkit(&g, &pd));
	g.covered = true;
	ck_assert(!policy_grant_needs_polkit(&g, &pd));
	pd.polkit = false;
	g.covered = false;
	ck_assert(!policy_grant_needs_polkit(&g, &pd));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-allow");
	const TTest *const *tests = CHECK_TESTS(test_no_realtime, test_no_nice, test_reason_values,
						test_format_truncates, test_rlimit_rtprio,
						test_kind_names, test_needs_polkit);

	tcase_add_loop_test(check_add_case(s, "allow", tests), test_table, 0, ELEMENTSOF(cases));
	return check_run(s);
}
