// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-eval.c: what a grant is made of. User beats
 * group beats default; across [Group] sections (and a user's [User NAME]
 * and [User #UID]) the most generous value of each key wins, by the key's
 * merge rule; numeric ids; the covered flag; the file:line and section of
 * each value. Identities are given (policy-fixture.h's eval()): no user
 * needs to exist.
 */
#include <check.h>
#include <linux/capability.h>
#include <stdlib.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"

START_TEST(test_default_only)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 4102 };
	PolicyGrant g;

	p = load_text(full_default, &path);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 1);
	ck_assert_str_eq(policy_file(p, 0), path);

	eval(p, "rtplain", 4102, gids, 1, &g);
	ck_assert(!g.covered);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -15);
	ck_assert_uint_eq(g.memlock, UINT64_C(64) << 20);
	ck_assert_uint_eq(g.rttime_usec, 200000);
	ck_assert_uint_eq(g.capabilities, 0);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		assert_source(&g, k, path, 4 + k, "Default");
}
END_TEST

START_TEST(test_unset_keys)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;

	p = load_text("[Default]\nRealtimePriority=10\n", NULL);
	assert_no_errors(p);
	eval(p, "rtplain", 4102, NULL, 0, &g);
	ck_assert(g.set[POLICY_KEY_REALTIME_PRIORITY]);
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		if (k == POLICY_KEY_REALTIME_PRIORITY)
			continue;
		ck_assert_msg(!g.set[k], "%s set by no file but set", policy_key_to_string(k));
		ck_assert_ptr_null(g.source[k].file);
	}
	/* CompatPolicy= that no file sets reads as rr. */
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
}
END_TEST

START_TEST(test_empty_policy)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;

	p = load_files(NULL, 0);
	ck_assert_uint_eq(policy_n_files(p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 0);
	ck_assert_uint_eq(policy_n_irq_rules(p), 0);
	ck_assert_ptr_null(policy_irq_match(p, "snd_hda_intel"));
	eval(p, "rtaudio", 4101, NULL, 0, &g);
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		ck_assert(!g.set[k]);
	ck_assert(!g.covered);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
	ck_assert_ptr_null(policy_free(NULL));
}
END_TEST

static const char generous_groups[] = "[Default]\n"		    /* 1 */
				      "RealtimePriority=99\n"	    /* 2 */
				      "[Group #5001]\n"		    /* 3 */
				      "RealtimePriority=50\n"	    /* 4 */
				      "Nice=-5\n"		    /* 5 */
				      "MemLock=1G\n"		    /* 6 */
				      "RTTime=100ms\n"		    /* 7 */
				      "Policies=rr\n"		    /* 8 */
				      "Capabilities=sys_nice\n"	    /* 9 */
				      "[Group #5002]\n"		    /* 10 */
				      "RealtimePriority=70\n"	    /* 11 */
				      "Nice=-10\n"		    /* 12 */
				      "MemLock=64M\n"		    /* 13 */
				      "RTTime=infinity\n"	    /* 14 */
				      "Policies=fifo\n"		    /* 15 */
				      "Capabilities=cap_ipc_lock\n" /* 16 */
				      "[Group #5003]\n"		    /* 17 */
				      "RealtimePriority=60\n"	    /* 18 */
				      "Nice=-19\n"		    /* 19 */
				      "MemLock=infinity\n"	    /* 20 */
				      "RTTime=1s\n"		    /* 21 */
				      "[Group #5004]\n"		    /* 22 */
				      "RealtimePriority=1\n"	    /* 23 */
				      "Nice=19\n"		    /* 24 */
				      "MemLock=0\n"		    /* 25 */
				      "RTTime=0\n";		    /* 26 */

#define PRIO POLICY_KEY_REALTIME_PRIORITY
#define NICE POLICY_KEY_NICE
#define INF ((int64_t)POLICY_INFINITY)

static const char user_over_group[] = "[Default]\n"	       /* 1 */
				      "RealtimePriority=20\n"  /* 2 */
				      "[Group #29]\n"	       /* 3 */
				      "RealtimePriority=95\n"  /* 4 */
				      "Nice=-19\n"	       /* 5 */
				      "[User rtalice]\n"       /* 6 */
				      "RealtimePriority=50\n"  /* 7 */
				      "[User rtother]\n"       /* 8 */
				      "RealtimePriority=99\n"; /* 9 */

/* What the most generous of the groups 5001..5004 of generous_groups
 * give, key by key. */
#define GENEROUS_WANT                                                                           \
	{                                                                                       \
		{ "Group #5002", PRIO, 70, 11 }, /* Nice: the lowest is the most generous. */   \
			{ "Group #5003", NICE, -19,                                             \
			  19 }, /* Sizes and durations: the largest, infinity above all. */     \
			{ "Group #5003", POLICY_KEY_MEMLOCK, INF, 20 },                         \
			{ "Group #5002", POLICY_KEY_RTTIME, INF,                                \
			  14 }, /* Policies and Capabilities: the union. */                     \
			{ "", POLICY_KEY_POLICIES, POLICY_SCHED_FIFO | POLICY_SCHED_RR },       \
			{ "", POLICY_KEY_CAPABILITIES, CAP(CAP_SYS_NICE) | CAP(CAP_IPC_LOCK) }, \
	}

/* A policy text and what it grants to up to four users. */
static const struct {
	const char *what;
	const char *text;
	EvalCase cases[4];
} evals[] = {
	/* The group's priority is lower than the default's: precedence, not
	 * generosity, decides between a group and [Default]. A key only
	 * [Default] sets still comes from [Default]. */
	{ "group beats default",
	  "[Default]\nRealtimePriority=20\nNice=-15\n[Group "
	  "#29]\nRealtimePriority=10\nMemLock=infinity\n",
	  { { "rtaudio",
	      4101,
	      { 4101, 29 },
	      2,
	      1,
	      { { "Group #29", PRIO, 10, 5 },
		{ "Default", NICE, -15, 3 },
		{ "Group #29", POLICY_KEY_MEMLOCK, INF, 6 },
		{ KEY_UNSET, POLICY_KEY_RTTIME } } },
	    { "rtplain",
	      4102,
	      { 4102 },
	      1,
	      0,
	      { { "Default", PRIO, 20, 2 }, { KEY_UNSET, POLICY_KEY_MEMLOCK } } } } },
	/* rtalice: lower than the group's 95, but [User] beats [Group]. The
	 * same groups, another name: only the group applies. */
	{ "user beats group",
	  user_over_group,
	  { { "rtalice",
	      4103,
	      { 4103, 29 },
	      2,
	      1,
	      { { "User rtalice", PRIO, 50, 7 }, { "Group #29", NICE, -19, 5 } } },
	    { "rtaudio", 4101, { 4103, 29 }, 2, -1, { { "Group #29", PRIO, 95, 4 } } } } },
	{ "user without groups",
	  "[Default]\nRealtimePriority=20\nNice=-5\n[User rtplain]\nNice=-10\n",
	  { { "rtplain",
	      4102,
	      {},
	      0,
	      1,
	      { { "User rtplain", NICE, -10, 5 }, { "Default", PRIO, 20, 2 } } } } },
	/* The name plays no part for [User #UID]; the gid list decides
	 * [Group #GID]. */
	{ "numeric ids",
	  "[User #4102]\nRealtimePriority=33\n[Group #4242]\nNice=-7\n"
	  "[User #4103]\nRealtimePriority=44\n[Group #4243]\nNice=-20\n",
	  { { "someone-else",
	      4102,
	      { 4102, 4242 },
	      2,
	      1,
	      { { "User #4102", PRIO, 33, 2 }, { "Group #4242", NICE, -7, 4 } } },
	    { "rtplain", 4999, {}, 0, 0, { { KEY_UNSET, PRIO }, { KEY_UNSET, NICE } } } } },
	/* Both [User rtalice] and [User #4103] describe the same user: the
	 * more generous value of each key wins, as between groups. */
	{ "user by name and number",
	  "[User rtalice]\nRealtimePriority=60\nNice=-5\n[User "
	  "#4103]\nRealtimePriority=70\nNice=-2\n",
	  { { "rtalice",
	      4103,
	      {},
	      0,
	      -1,
	      { { "User #4103", PRIO, 70, 5 }, { "User rtalice", NICE, -5, 3 } } } } },
	/* The order of the gid list does not matter. */
	{ "most generous group",
	  generous_groups,
	  { { "rtaudio", 5000, { 5000, 5001, 5002, 5003, 5004 }, 5, 1, GENEROUS_WANT },
	    { "rtaudio", 5000, { 5004, 5003, 5002, 5001, 5000 }, 5, 1, GENEROUS_WANT } } },
	/* A single group less generous than [Default] still beats it. */
	{ "least generous group alone",
	  generous_groups,
	  { { "rtplain",
	      4102,
	      { 5004 },
	      1,
	      -1,
	      { { "", PRIO, 1 },
		{ "", NICE, 19 },
		{ "", POLICY_KEY_MEMLOCK, 0 },
		{ "Group #5004", POLICY_KEY_RTTIME, 0, 26 } } } } },
	/* Across groups fifo is the more generous answer; CompatPolicy=fifo
	 * is only honoured where Policies= allows fifo. */
	{ "compat policy",
	  "[Default]\nPolicies=rr\n[Group #6001]\nPolicies=fifo rr\nCompatPolicy=fifo\n"
	  "[Group #6002]\nPolicies=rr\nCompatPolicy=rr\n[Group #6003]\nCompatPolicy=fifo\n",
	  { { "a", 4101, { 6001 }, 1, -1, { { "", POLICY_KEY_COMPAT_POLICY, POLICY_SCHED_FIFO } } },
	    { "a", 4101, { 6002 }, 1, -1, { { "", POLICY_KEY_COMPAT_POLICY, POLICY_SCHED_RR } } },
	    { "a",
	      4101,
	      { 6001, 6002 },
	      2,
	      -1,
	      { { "", POLICY_KEY_COMPAT_POLICY, POLICY_SCHED_FIFO },
		{ "", POLICY_KEY_POLICIES, POLICY_SCHED_FIFO | POLICY_SCHED_RR } } },
	    { "a",
	      4101,
	      { 6003 },
	      1,
	      -1,
	      { { "", POLICY_KEY_POLICIES, POLICY_SCHED_RR },
		{ "", POLICY_KEY_COMPAT_POLICY, POLICY_SCHED_RR } } } } },
	/* A section may appear more than once; its keys add up. */
	{ "section reopened",
	  "[Default]\nRealtimePriority=20\n[Group #29]\nNice=-19\n"
	  "[Default]\nNice=-15\n[Group #29]\nRealtimePriority=95\n",
	  { { "x", 1, {}, 0, -1, { { "", PRIO, 20 }, { "Default", NICE, -15, 6 } } },
	    { "x",
	      1,
	      { 29 },
	      1,
	      -1,
	      { { "Group #29", PRIO, 95, 8 }, { "Group #29", NICE, -19, 4 } } } } },
	/* A key repeated in one section of one file: the last line counts,
	 * as it would across files (realtime.conf(5) says so). */
	{ "repeated key",
	  "[Default]\nRealtimePriority=20\nNice=-5\nRealtimePriority=10\n",
	  { { "x", 1, {}, 0, -1, { { "Default", PRIO, 10, 4 } } } } },
};

START_TEST(test_evals)
{
	assert_evals(evals[_i].text, evals[_i].cases, ELEMENTSOF(evals[_i].cases));
}
END_TEST

START_TEST(test_group_by_name)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	gid_t gids[2] = { 4101 };
	PolicyGrant g;

	/* [Group NAME] resolves the name through NSS; Debian always has "audio". */
	gids[1] = audio_gid();

	p = load_text("[Group audio]\nRealtimePriority=95\n[Group "
		      "no-such-group-rt]\nRealtimePriority=99\n",
		      &path);
	assert_no_errors(p);
	eval(p, "rtaudio", 4101, gids, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Group audio");

	eval(p, "rtaudio", 4101, gids, 1, &g);
	ck_assert(!g.covered);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
}
END_TEST

START_TEST(test_most_generous_group_order)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 5001, 5002, 5003, 5004 };
	PolicyGrant g;
	char text[sizeof(generous_groups)];
	const char *g4 = strstr(generous_groups, "[Group #5004]");

	/* The least generous group written first instead of last: same answer. */
	snprintf(text, sizeof(text), "%s%.*s", g4, (int)(g4 - generous_groups), generous_groups);
	p = load_text(text, &path);
	assert_no_errors(p);
	eval(p, "rtaudio", 5000, gids, ELEMENTSOF(gids), &g);
	ck_assert_int_eq(g.realtime_priority, 70);
	ck_assert_int_eq(g.nice, -19);
	ck_assert_uint_eq(g.memlock, POLICY_INFINITY);
	ck_assert_uint_eq(g.rttime_usec, POLICY_INFINITY);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-eval");
	const TTest *const *tests =
		CHECK_TESTS(test_default_only, test_unset_keys, test_empty_policy,
			    test_group_by_name, test_most_generous_group_order);

	tcase_add_loop_test(policy_test_case(s, "eval", tests), test_evals, 0, ELEMENTSOF(evals));
	return policy_test_run(s);
}
