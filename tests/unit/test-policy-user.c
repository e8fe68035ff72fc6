// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-user.c and loading for one user: users and
 * their groups through NSS (root exists everywhere; an unknown uid or name
 * is -ESRCH), and policy_load_files_for_user() answering for its user
 * exactly what a full load answers.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"

START_TEST(test_eval_uid_root)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* Through NSS: root (uid 0, group root gid 0) exists everywhere. */
	p = load_text("[Default]\nRealtimePriority=20\nNice=-1\n"
		      "[User root]\nRealtimePriority=77\n"
		      "[Group #0]\nNice=-11\n",
		      &path);
	assert_no_errors(p);
	ck_assert_int_eq(policy_eval_uid(p, 0, &g), 0);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 77);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "User root");
	ck_assert_int_eq(g.nice, -11);
	assert_source(&g, POLICY_KEY_NICE, path, 7, "Group #0");

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(policy_user_resolve("root", &u), 0);
	ck_assert_str_eq(u->name, "root");
	ck_assert_int_eq(policy_eval_for_user(p, u, &g), 0);
	ck_assert_int_eq(g.realtime_priority, 77);
}
END_TEST

START_TEST(test_eval_unknown_user)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g = { .realtime_priority = 12345 };

	p = load_text("[Default]\nRealtimePriority=20\n", NULL);
	/* A uid no passwd source knows (not (uid_t)-1, which some NSS modules map). */
	ck_assert_int_eq(policy_eval_uid(p, 3999999999u, &g), -ESRCH);
	ck_assert_int_eq(policy_user_resolve("no-such-user-realtimed-test", &u), -ESRCH);
	ck_assert_ptr_null(u);
	ck_assert_int_eq(g.realtime_priority, 12345);
}
END_TEST

/* The same user from each lookup, with their groups and the groups' names:
 * root, in group root (gid 0), exists everywhere. */
START_TEST(test_user_resolve)
{
	_cleanup_(policy_user_freep) PolicyUser *by_name = NULL, *by_uid = NULL;
	bool in_root = false;

	ck_assert_int_eq(policy_user_resolve("root", &by_name), 0);
	ck_assert_int_eq(policy_user_resolve_uid(0, &by_uid), 0);
	ck_assert_str_eq(by_uid->name, "root");
	ck_assert_uint_eq(by_name->uid, 0);
	ck_assert_uint_eq(by_uid->n_gids, by_name->n_gids);
	ck_assert_ptr_nonnull(by_uid->group_names);
	for (size_t i = 0; i < by_uid->n_gids; i++) {
		ck_assert_uint_eq(by_uid->gids[i], by_name->gids[i]);
		ck_assert_str_eq(by_uid->group_names[i] ?: "", by_name->group_names[i] ?: "");
		if (by_uid->gids[i] == 0) {
			ck_assert_str_eq(by_uid->group_names[i], "root");
			in_root = true;
		}
	}
	ck_assert(in_root);
	ck_assert_int_eq(policy_user_resolve_uid(3999999999u, &(PolicyUser *){ NULL }), -ESRCH);
	/* NULL is no user, not uid 0 */
	ck_assert_int_eq(policy_user_resolve(NULL, &(PolicyUser *){ NULL }), -EINVAL);
}
END_TEST

/* Loading for one user keeps only their [User] and [Group] sections, and
 * must answer exactly as the full policy does: values, sources, files,
 * errors, [Daemon] and [IRQ]. Real NSS users: root, daemon, nobody. */
START_TEST(test_load_for_user)
{
	static const char *const users[] = { "root", "daemon", "nobody" };
	const char *files[2];

	files[0] =
		write_file("a.conf", "[Default]\nNice=-2\n"
				     "[User root]\nRealtimePriority=40\n"
				     "[Group #0]\nMemLock=1M\nPolicies=fifo\n"
				     "[Group root]\nMemLock=2M\n"
				     "[User #1]\nRTTime=5ms\n"
				     "[Group daemon]\nRealtimePriority=30\nCapabilities=sys_nice\n"
				     "[Group nogroup]\nNice=-9\n"
				     "[User nobody]\nCompatPolicy=fifo\nPolicies=fifo rr\n"
				     "[User someoneelse]\nRealtimePriority=99\n"
				     "[Daemon]\nUsersMax=7\n[IRQ]\nsnd*=80\n");
	files[1] = write_file("b.conf", "[User root]\nNice=-11\n[Group root]\nBogus=1\n");
	for (size_t i = 0; i < ELEMENTSOF(users); i++) {
		_cleanup_(policy_freep) Policy *full = NULL, *mine = NULL;
		PolicyUser *u = NULL;
		PolicyGrant a, b;

		if (policy_user_resolve(users[i], &u) == -ESRCH)
			continue; /* not every system has every user */
		ck_assert_ptr_nonnull(u);
		full = load_files(files, 2);
		ck_assert_int_eq(policy_load_files_for_user(files, 2, u, &mine), 0);
		ck_assert_int_eq(policy_eval_for_user(full, u, &a), 0);
		ck_assert_int_eq(policy_eval_for_user(mine, u, &b), 0);
		for (int k = 0; k < _POLICY_KEY_MAX; k++) {
			char va[64] = "", vb[64] = "";

			ck_assert_int_eq(a.set[k], b.set[k]);
			if (!a.set[k])
				continue;
			ck_assert_int_eq(policy_grant_format(&a, k, va, sizeof(va)), 0);
			ck_assert_int_eq(policy_grant_format(&b, k, vb, sizeof(vb)), 0);
			ck_assert_str_eq(va, vb);
			assert_source(&b, k, a.source[k].file, a.source[k].line,
				      a.source[k].section);
		}
		ck_assert_int_eq(a.covered, b.covered);
		ck_assert_uint_eq(policy_n_files(mine), 1);
		ck_assert_uint_eq(policy_n_errors(mine), 1);
		ck_assert_str_eq(policy_error(mine, 0)->message, policy_error(full, 0)->message);
		ck_assert_uint_eq(policy_daemon(mine)->users_max, 7);
		ck_assert_int_eq(policy_irq_match(mine, "snd_hda_intel:card0")->priority, 80);
		policy_user_free(u);
	}
	/* root's own rules hold: [User root] beats the groups */
	{
		_cleanup_(policy_freep) Policy *mine = NULL;
		PolicyUser *u = NULL;
		PolicyGrant g;

		ck_assert_int_eq(policy_user_resolve("root", &u), 0);
		ck_assert_int_eq(policy_load_files_for_user(files, 1, u, &mine), 0);
		ck_assert_int_eq(policy_eval_for_user(mine, u, &g), 0);
		ck_assert_int_eq(g.realtime_priority, 40);
		ck_assert_uint_eq(g.memlock, 2 * 1024 * 1024);
		ck_assert_int_eq(g.nice, -2);
		policy_user_free(u);
	}
	ck_assert_int_eq(policy_user_resolve("no-such-user-realtimed", &(PolicyUser *){ NULL }),
			 -ESRCH);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-user");

	policy_test_case(s, "user",
			 CHECK_TESTS(test_user_resolve, test_eval_uid_root, test_eval_unknown_user,
				     test_load_for_user));
	return policy_test_run(s);
}
