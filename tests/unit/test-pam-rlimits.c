// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for pam_realtime's limit computation and setting
 * (pam_realtime/pam-rlimits.h): which rlimits a grant implies, with which
 * values and which file:line decided them, from hand-made grants and from
 * real policy files through common/; and what setting them does to this
 * (forked) test process, including the documented path when the hard limit
 * cannot be raised.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check-main.h"
#include "pam-rlimits.h"
#include "policy.h"

static const RlimitItem *plan_find(const RlimitPlan *plan, int resource)
{
	for (size_t i = 0; i < plan->n_items; i++)
		if (plan->items[i].resource == resource)
			return &plan->items[i];
	return NULL;
}

/* Evaluates for a user with numeric groups only (no NSS). */
static int eval(const Policy *p, char *user, uid_t uid, gid_t *gids, size_t n_gids, PolicyGrant *g)
{
	PolicyUser u = { .name = user, .uid = uid, .gids = gids, .n_gids = n_gids };

	return policy_eval_for_user(p, &u, g);
}

START_TEST(test_plan_full_grant)
{
	PolicyGrant g = {};
	RlimitPlan plan;

	g.set[POLICY_KEY_REALTIME_PRIORITY] = true;
	g.realtime_priority = 95;
	g.set[POLICY_KEY_MEMLOCK] = true;
	g.memlock = POLICY_INFINITY;
	g.set[POLICY_KEY_RTTIME] = true;
	g.rttime_usec = 200000;
	g.set[POLICY_KEY_NICE] = true;
	g.nice = -19;
	/* Keys that are no rlimit must not make one. */
	g.set[POLICY_KEY_POLICIES] = true;
	g.policies = POLICY_SCHED_FIFO;
	g.set[POLICY_KEY_CAPABILITIES] = true;
	g.capabilities = 1ULL << CAP_SYS_NICE;
	g.source[POLICY_KEY_REALTIME_PRIORITY] =
		(PolicySource){ "/etc/realtime/realtime.conf", 7, "Group audio" };

	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 4);
	ck_assert_uint_eq(plan.n_items, 4);

	/* The library's order: RTTIME (the ceiling) first, then RTPRIO,
	 * MEMLOCK, NICE; each item named as the library names it. */
	for (size_t i = 0; i < plan.n_items; i++) {
		ck_assert_int_eq(plan.items[i].resource, policy_rlimit(i)->resource);
		ck_assert_str_eq(plan.items[i].name, policy_rlimit(i)->name);
	}
	ck_assert_int_eq(plan.items[0].resource, RLIMIT_RTTIME);
	ck_assert_str_eq(plan.items[0].name, "RLIMIT_RTTIME");
	ck_assert_uint_eq(plan.items[0].value, 200000);

	ck_assert_int_eq(plan.items[1].resource, RLIMIT_RTPRIO);
	ck_assert_int_eq(plan.items[1].key, POLICY_KEY_REALTIME_PRIORITY);
	ck_assert_uint_eq(plan.items[1].value, 95);
	ck_assert_ptr_eq(plan.items[1].source, &g.source[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert_str_eq(plan.items[1].source->file, "/etc/realtime/realtime.conf");
	ck_assert_uint_eq(plan.items[1].source->line, 7);

	ck_assert_int_eq(plan.items[2].resource, RLIMIT_MEMLOCK);
	ck_assert(plan.items[2].value == RLIM_INFINITY);
	/* The kernel's RLIMIT_NICE encoding: 20 - nice. */
	ck_assert_int_eq(plan.items[3].resource, RLIMIT_NICE);
	ck_assert_int_eq(plan.items[3].key, POLICY_KEY_NICE);
	ck_assert_uint_eq(plan.items[3].value, 39);
}
END_TEST

START_TEST(test_plan_partial_and_empty)
{
	PolicyGrant g = {};
	RlimitPlan plan;

	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 0);
	ck_assert_uint_eq(plan.n_items, 0);

	/* Only what policy sets is planned; the rest stays as it is. */
	g.set[POLICY_KEY_NICE] = true;
	g.nice = 0;
	g.set[POLICY_KEY_REALTIME_PRIORITY] = true;
	g.realtime_priority = 0; /* 0 is a value: "no realtime", set exactly */
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 2);
	ck_assert_int_eq(plan.items[0].resource, RLIMIT_RTPRIO);
	ck_assert_uint_eq(plan.items[0].value, 0);
	ck_assert_int_eq(plan.items[1].resource, RLIMIT_NICE);
	ck_assert_uint_eq(plan.items[1].value, 20);
	ck_assert_ptr_null(plan_find(&plan, RLIMIT_MEMLOCK));
	ck_assert_ptr_null(plan_find(&plan, RLIMIT_RTTIME));

	/* Nice=19 is the weakest: RLIMIT_NICE 1. MemLock 0 means none. */
	g.nice = 19;
	g.set[POLICY_KEY_MEMLOCK] = true;
	g.memlock = 0;
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 3);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_NICE)->value, 1);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_MEMLOCK)->value, 0);
}
END_TEST

static char *policy_file_new(const char *text)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	FILE *f;
	int fd;

	ck_assert_int_ge(asprintf(&path, "%s/test-pam-rlimits.XXXXXX", tmp ? tmp : "/tmp"), 0);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static const char policy_text[] = "[Default]\n"		  /* 1 */
				  "RealtimePriority=20\n" /* 2 */
				  "Nice=-15\n"		  /* 3 */
				  "MemLock=64M\n"	  /* 4 */
				  "RTTime=200ms\n"	  /* 5 */
				  "\n"			  /* 6 */
				  "[Group #29]\n"	  /* 7 */
				  "RealtimePriority=95\n" /* 8 */
				  "Nice=-19\n"		  /* 9 */
				  "MemLock=infinity\n"	  /* 10 */
				  "RTTime=infinity\n"	  /* 11 */
				  "Policies=fifo rr\n"	  /* 12 */
				  "[User #4103]\n"	  /* 13 */
				  "RealtimePriority=99\n" /* 14 */
				  "RTTime=500000\n";	  /* 15: bare number = microseconds */

START_TEST(test_plan_from_policy_files)
{
	char *path = policy_file_new(policy_text);
	const char *files[] = { path };
	gid_t audio[] = { 4101, 29 }, plain[] = { 4102 };
	Policy *p = NULL;
	PolicyGrant g;
	RlimitPlan plan;
	const RlimitItem *it;

	ck_assert_int_eq(policy_load_files(files, 1, &p), 0);
	ck_assert_msg(policy_n_errors(p) == 0, "%s:%u: %s", policy_error(p, 0)->file,
		      policy_error(p, 0)->line, policy_error(p, 0)->message);

	/* A member of group 29 gets the group's values, from the group's lines. */
	ck_assert_int_eq(eval(p, "rtaudio", 4101, audio, 2, &g), 0);
	ck_assert(g.covered);
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 4);
	it = plan_find(&plan, RLIMIT_RTPRIO);
	ck_assert_uint_eq(it->value, 95);
	ck_assert_str_eq(it->source->file, path);
	ck_assert_uint_eq(it->source->line, 8);
	ck_assert(plan_find(&plan, RLIMIT_MEMLOCK)->value == RLIM_INFINITY);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_MEMLOCK)->source->line, 10);
	ck_assert(plan_find(&plan, RLIMIT_RTTIME)->value == RLIM_INFINITY);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_NICE)->value, 39);

	/* A [User] key beats the group's; the other keys still come from the group. */
	ck_assert_int_eq(eval(p, "rtalice", 4103, audio, 2, &g), 0);
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 4);
	it = plan_find(&plan, RLIMIT_RTPRIO);
	ck_assert_uint_eq(it->value, 99);
	ck_assert_uint_eq(it->source->line, 14);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_RTTIME)->value, 500000);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_RTTIME)->source->line, 15);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_NICE)->source->line, 9);

	/* Anyone else: [Default], and not covered (the module checks that).
	 * [Default] allows no fifo (no Policies= at all): RLIMIT_RTPRIO 0, and
	 * the key that decided that is Policies=. */
	ck_assert_int_eq(eval(p, "rtplain", 4102, plain, 1, &g), 0);
	ck_assert(!g.covered);
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 4);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_RTPRIO)->value, 0);
	ck_assert_int_eq(plan_find(&plan, RLIMIT_RTPRIO)->key, POLICY_KEY_POLICIES);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_MEMLOCK)->value, 64ULL << 20);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_RTTIME)->value, 200000);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_NICE)->value, 35);
	ck_assert_uint_eq(plan_find(&plan, RLIMIT_NICE)->source->line, 3);

	policy_free(p);
	unlink(path);
	free(path);
}
END_TEST

START_TEST(test_plan_only_what_is_set)
{
	char *path = policy_file_new("[Group #29]\nRealtimePriority=50\nPolicies=fifo\n");
	const char *files[] = { path };
	gid_t audio[] = { 29 }, plain[] = { 4102 };
	Policy *p = NULL;
	PolicyGrant g;
	RlimitPlan plan;

	ck_assert_int_eq(policy_load_files(files, 1, &p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 0);

	ck_assert_int_eq(eval(p, "rtaudio", 4101, audio, 1, &g), 0);
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 1);
	ck_assert_int_eq(plan.items[0].resource, RLIMIT_RTPRIO);
	ck_assert_uint_eq(plan.items[0].value, 50);

	ck_assert_int_eq(eval(p, "rtplain", 4102, plain, 1, &g), 0);
	ck_assert_int_eq(rlimit_plan_from_grant(&g, &plan), 0);

	policy_free(p);
	unlink(path);
	free(path);
}
END_TEST

/* Lowering needs no privilege: the exact path. */
START_TEST(test_apply_lower)
{
	RlimitItem it = { .resource = RLIMIT_RTTIME, .key = POLICY_KEY_RTTIME };
	struct rlimit before, old, now, check;

	ck_assert_int_eq(getrlimit(RLIMIT_RTTIME, &before), 0);
	it.value = before.rlim_max == RLIM_INFINITY ? 1000000 : before.rlim_max / 2;

	ck_assert_int_eq(rlimit_item_apply(&it, &old, &now), RLIMIT_APPLIED_EXACT);
	ck_assert(old.rlim_cur == before.rlim_cur && old.rlim_max == before.rlim_max);
	ck_assert(now.rlim_cur == it.value && now.rlim_max == it.value);
	ck_assert_int_eq(getrlimit(RLIMIT_RTTIME, &check), 0);
	ck_assert(check.rlim_cur == it.value && check.rlim_max == it.value);
}
END_TEST

static void drop_cap_sys_resource(void)
{
	cap_t c = cap_get_proc();
	cap_value_t v = CAP_SYS_RESOURCE;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_CLEAR), 0);
	ck_assert_int_eq(cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_CLEAR), 0);
	ck_assert_int_eq(cap_set_proc(c), 0);
	cap_free(c);
}

/* Raising the hard limit without CAP_SYS_RESOURCE: the soft limit goes up
 * to the current hard limit, the hard limit stays, SOFT_ONLY is reported. */
START_TEST(test_apply_raise_without_cap)
{
	RlimitItem it = { .resource = RLIMIT_RTPRIO, .key = POLICY_KEY_REALTIME_PRIORITY };
	struct rlimit start = { .rlim_cur = 0, .rlim_max = 0 }, old, now, check;

	drop_cap_sys_resource();
	ck_assert_int_eq(getrlimit(RLIMIT_RTPRIO, &check), 0);
	start.rlim_max =
		check.rlim_max == RLIM_INFINITY || check.rlim_max > 10 ? 10 : check.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_RTPRIO, &start), 0);

	it.value = start.rlim_max + 85;
	ck_assert_int_eq(rlimit_item_apply(&it, &old, &now), RLIMIT_APPLIED_SOFT_ONLY);
	ck_assert_uint_eq(old.rlim_cur, 0);
	ck_assert_uint_eq(old.rlim_max, start.rlim_max);
	ck_assert_uint_eq(now.rlim_cur, start.rlim_max);
	ck_assert_uint_eq(now.rlim_max, start.rlim_max);
	ck_assert_int_eq(getrlimit(RLIMIT_RTPRIO, &check), 0);
	ck_assert_uint_eq(check.rlim_cur, start.rlim_max);
	ck_assert_uint_eq(check.rlim_max, start.rlim_max);
}
END_TEST

/* A value the kernel refuses outright: -errno, outputs untouched. */
START_TEST(test_apply_invalid_resource)
{
	RlimitItem it = { .resource = 4242, .key = POLICY_KEY_NICE, .value = 1 };
	struct rlimit old = { 7, 7 }, now = { 9, 9 };

	ck_assert_int_eq(rlimit_item_apply(&it, &old, &now), -EINVAL);
	ck_assert_uint_eq(old.rlim_cur, 7);
	ck_assert_uint_eq(now.rlim_max, 9);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pam-rlimits");

	check_add_case(s, "plan",
		       CHECK_TESTS(test_plan_full_grant, test_plan_partial_and_empty,
				   test_plan_from_policy_files, test_plan_only_what_is_set));
	check_add_case(s, "apply",
		       CHECK_TESTS(test_apply_lower, test_apply_raise_without_cap,
				   test_apply_invalid_resource));
	return check_run_forked(s, "the apply tests would lower this runner's own limits");
}
