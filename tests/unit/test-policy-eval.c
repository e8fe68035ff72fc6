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

START_TEST(test_group_beats_default)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t audio[] = { 4101, 29 }, plain[] = { 4102 };
	PolicyGrant g;

	/* The group's priority is lower than the default's: precedence, not
	 * generosity, decides between a group and [Default]. */
	p = load_text("[Default]\n"
		      "RealtimePriority=20\n"
		      "Nice=-15\n"
		      "[Group #29]\n"
		      "RealtimePriority=10\n"
		      "MemLock=infinity\n",
		      &path);
	assert_no_errors(p);

	eval(p, "rtaudio", 4101, audio, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 10);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "Group #29");
	/* A key only [Default] sets still comes from [Default]. */
	ck_assert_int_eq(g.nice, -15);
	assert_source(&g, POLICY_KEY_NICE, path, 3, "Default");
	ck_assert_uint_eq(g.memlock, POLICY_INFINITY);
	assert_source(&g, POLICY_KEY_MEMLOCK, path, 6, "Group #29");
	ck_assert(!g.set[POLICY_KEY_RTTIME]);

	eval(p, "rtplain", 4102, plain, 1, &g);
	ck_assert(!g.covered);
	ck_assert_int_eq(g.realtime_priority, 20);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Default");
	ck_assert(!g.set[POLICY_KEY_MEMLOCK]);
}
END_TEST

START_TEST(test_user_beats_group)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 4103, 29 };
	PolicyGrant g;

	p = load_text("[Default]\n"	       /* 1 */
		      "RealtimePriority=20\n"  /* 2 */
		      "[Group #29]\n"	       /* 3 */
		      "RealtimePriority=95\n"  /* 4 */
		      "Nice=-19\n"	       /* 5 */
		      "[User rtalice]\n"       /* 6 */
		      "RealtimePriority=50\n"  /* 7 */
		      "[User rtother]\n"       /* 8 */
		      "RealtimePriority=99\n", /* 9 */
		      &path);
	assert_no_errors(p);

	eval(p, "rtalice", 4103, gids, 2, &g);
	ck_assert(g.covered);
	/* Lower than the group's 95, but [User] beats [Group]. */
	ck_assert_int_eq(g.realtime_priority, 50);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 7, "User rtalice");
	ck_assert_int_eq(g.nice, -19);
	assert_source(&g, POLICY_KEY_NICE, path, 5, "Group #29");

	/* The same groups, another name: only the group applies. */
	eval(p, "rtaudio", 4101, gids, 2, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 4, "Group #29");
}
END_TEST

START_TEST(test_user_without_groups)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	p = load_text("[Default]\nRealtimePriority=20\nNice=-5\n[User rtplain]\nNice=-10\n", &path);
	assert_no_errors(p);
	eval(p, "rtplain", 4102, NULL, 0, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.nice, -10);
	assert_source(&g, POLICY_KEY_NICE, path, 5, "User rtplain");
	ck_assert_int_eq(g.realtime_priority, 20);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Default");
}
END_TEST

START_TEST(test_numeric_ids)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 4102, 4242 };
	PolicyGrant g;

	p = load_text("[User #4102]\n"
		      "RealtimePriority=33\n"
		      "[Group #4242]\n"
		      "Nice=-7\n"
		      "[User #4103]\n"
		      "RealtimePriority=44\n"
		      "[Group #4243]\n"
		      "Nice=-20\n",
		      &path);
	assert_no_errors(p);

	/* The name plays no part for [User #UID]; the gid list decides [Group #GID]. */
	eval(p, "someone-else", 4102, gids, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 33);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "User #4102");
	ck_assert_int_eq(g.nice, -7);
	assert_source(&g, POLICY_KEY_NICE, path, 4, "Group #4242");

	eval(p, "rtplain", 4999, NULL, 0, &g);
	ck_assert(!g.covered);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert(!g.set[POLICY_KEY_NICE]);
}
END_TEST

START_TEST(test_user_by_name_and_number)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* Both [User rtalice] and [User #4103] describe the same user: the
	 * more generous value of each key wins, as between groups. */
	p = load_text("[User rtalice]\nRealtimePriority=60\nNice=-5\n"
		      "[User #4103]\nRealtimePriority=70\nNice=-2\n",
		      &path);
	assert_no_errors(p);
	eval(p, "rtalice", 4103, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 70);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "User #4103");
	ck_assert_int_eq(g.nice, -5);
	assert_source(&g, POLICY_KEY_NICE, path, 3, "User rtalice");
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

static void check_generous(const PolicyGrant *g, const char *path)
{
	ck_assert(g->covered);
	ck_assert_int_eq(g->realtime_priority, 70);
	assert_source(g, POLICY_KEY_REALTIME_PRIORITY, path, 11, "Group #5002");
	/* Nice: the lowest is the most generous. */
	ck_assert_int_eq(g->nice, -19);
	assert_source(g, POLICY_KEY_NICE, path, 19, "Group #5003");
	/* Sizes and durations: the largest, infinity above all. */
	ck_assert_uint_eq(g->memlock, POLICY_INFINITY);
	assert_source(g, POLICY_KEY_MEMLOCK, path, 20, "Group #5003");
	ck_assert_uint_eq(g->rttime_usec, POLICY_INFINITY);
	assert_source(g, POLICY_KEY_RTTIME, path, 14, "Group #5002");
	/* Policies and Capabilities: the union. */
	ck_assert_uint_eq(g->policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_uint_eq(g->capabilities, CAP(CAP_SYS_NICE) | CAP(CAP_IPC_LOCK));
	ck_assert(g->set[POLICY_KEY_POLICIES]);
	ck_assert(g->set[POLICY_KEY_CAPABILITIES]);
}

START_TEST(test_most_generous_group)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 5000, 5001, 5002, 5003, 5004 };
	const gid_t reversed[] = { 5004, 5003, 5002, 5001, 5000 };
	PolicyGrant g;

	p = load_text(generous_groups, &path);
	assert_no_errors(p);
	eval(p, "rtaudio", 5000, gids, ELEMENTSOF(gids), &g);
	check_generous(&g, path);
	/* The order of the gid list does not matter. */
	eval(p, "rtaudio", 5000, reversed, ELEMENTSOF(reversed), &g);
	check_generous(&g, path);
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

START_TEST(test_least_generous_group_alone)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 5004 };
	PolicyGrant g;

	/* A single group less generous than [Default] still beats it. */
	p = load_text(generous_groups, &path);
	eval(p, "rtplain", 4102, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 1);
	ck_assert_int_eq(g.nice, 19);
	ck_assert_uint_eq(g.memlock, 0);
	ck_assert_uint_eq(g.rttime_usec, 0);
	assert_source(&g, POLICY_KEY_RTTIME, path, 26, "Group #5004");
}
END_TEST

START_TEST(test_compat_policy)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const gid_t fifo_group[] = { 6001 }, rr_group[] = { 6002 }, both[] = { 6001, 6002 },
		    plain[] = { 6003 };
	PolicyGrant g;

	p = load_text("[Default]\n"
		      "Policies=rr\n"
		      "[Group #6001]\n"
		      "Policies=fifo rr\n"
		      "CompatPolicy=fifo\n"
		      "[Group #6002]\n"
		      "Policies=rr\n"
		      "CompatPolicy=rr\n"
		      "[Group #6003]\n"
		      "CompatPolicy=fifo\n",
		      NULL);
	assert_no_errors(p);

	eval(p, "a", 4101, fifo_group, 1, &g);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);
	eval(p, "a", 4101, rr_group, 1, &g);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
	/* Across groups fifo is the more generous answer. */
	eval(p, "a", 4101, both, 2, &g);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	/* CompatPolicy=fifo is only honoured where Policies= allows fifo. */
	eval(p, "a", 4101, plain, 1, &g);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_RR);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
}
END_TEST

START_TEST(test_section_reopened)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	/* A section may appear more than once; its keys add up. */
	p = load_text("[Default]\nRealtimePriority=20\n[Group #29]\nNice=-19\n"
		      "[Default]\nNice=-15\n[Group #29]\nRealtimePriority=95\n",
		      &path);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_int_eq(g.nice, -15);
	assert_source(&g, POLICY_KEY_NICE, path, 6, "Default");
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 8, "Group #29");
	ck_assert_int_eq(g.nice, -19);
	assert_source(&g, POLICY_KEY_NICE, path, 4, "Group #29");
}
END_TEST

START_TEST(test_repeated_key)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* A key repeated in one section of one file: the last line counts, as
	 * it would across files (realtime.conf(5) says so). */
	p = load_text("[Default]\nRealtimePriority=20\nNice=-5\nRealtimePriority=10\n", &path);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 10);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 4, "Default");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-eval");

	policy_test_case(s, "eval",
			 CHECK_TESTS(test_default_only, test_unset_keys, test_empty_policy,
				     test_group_beats_default, test_user_beats_group,
				     test_user_without_groups, test_numeric_ids,
				     test_user_by_name_and_number, test_group_by_name,
				     test_most_generous_group, test_most_generous_group_order,
				     test_least_generous_group_alone, test_compat_policy,
				     test_section_reopened, test_repeated_key));
	return policy_test_run(s);
}
