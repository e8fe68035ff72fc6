/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/daemon-policy.c, the policy in force, on the
 * daemon fixture's policy files (daemon-fixture.h) and, for the users, the
 * resolver's fake directory (resolver-fixture.h: uid N is "uN" of gid 29).
 * Loading: a reload that meets a broken file keeps the last good policy
 * whole and says which file:line, and why, in the answer a client gets; at
 * start the good files are used; a good reload takes the new policy and
 * asks the directory again. Evaluation: a uid the resolver does not know
 * yet is -EINPROGRESS (never a guess without its groups), then what its
 * groups give once the lookup ended; a uid that is no user -ESRCH; a user
 * NSS could not resolve is "#UID" and gets [User #UID]; a long name is cut
 * between characters. The texts of a failed lookup.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "daemon-policy.h"
#include "resolver-fixture.h"

#define GOOD "[Default]\nNice=10\n\n[Group #29]\nNice=-5\nRealtimePriority=70\n"
#define BROKEN "[Default]\nNice=-20\n\nthis is no key\n"

static void setup(void)
{
	fixture_setup();
	fake_reset();
}

static void teardown(void)
{
	resolver_fixture_teardown();
	fixture_teardown();
}

/* A daemon on the fixture's policy, with the resolver over the fake
 * directory when with_resolver (the resolver fixture frees it). */
static void daemon_init(Daemon *d, const char *policy, bool with_resolver)
{
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(d, NULL);
	if (with_resolver)
		d->resolver = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 2);
}

static void daemon_fini(Daemon *d)
{
	d->resolver = NULL; /* the resolver fixture's */
	fixture_daemon_fini(d);
}

/* What d's policy gives uid (a user the resolver knows, or NSS without
 * one): the grant's Nice= (0: unset), and the user's name. */
static int nice_of(Daemon *d, uid_t uid, char *ret_user)
{
	PolicyEval e;

	ck_assert_int_eq(daemon_policy_eval(d, uid, &e), 0);
	if (ret_user)
		strcpy(ret_user, e.user);
	return e.grant.set[POLICY_KEY_NICE] ? e.grant.nice : 0;
}

/* Runs the loop until uid's lookup ended. */
static void resolve(Daemon *d, uid_t uid)
{
	Answer a = {};

	ck_assert_int_eq(daemon_policy_wait(d, uid, on_done, &a, NULL), 0);
	run_until(&a.n, 1);
}

/* A reload that meets a broken file: -EBADMSG, the policy in force is the
 * same object with the same answers, and the error names the file, the
 * line and that the last good policy stays. */
START_TEST(test_reload_keeps_last_good)
{
	const Policy *before;
	char *error = NULL, expect[512];
	Daemon d;

	daemon_init(&d, "[Default]\nNice=10\n", false);
	ck_assert_int_eq(daemon_policy_load(&d, true, NULL), 0);
	before = d.policy;
	ck_assert_int_eq(nice_of(&d, 0, NULL), 10);

	fixture_write(fixture_conf, BROKEN);
	ck_assert_int_eq(daemon_policy_load(&d, false, &error), -EBADMSG);
	ck_assert_ptr_eq(d.policy, before);
	ck_assert_int_eq(nice_of(&d, 0, NULL), 10);
	ck_assert_ptr_nonnull(error);
	snprintf(expect, sizeof(expect), "%s:4: ", fixture_conf);
	ck_assert_msg(strncmp(error, expect, strlen(expect)) == 0, "\"%s\"", error);
	ck_assert_msg(strstr(error, "; the last good policy stays in force"), "\"%s\"", error);
	ck_assert(dbus_validate_utf8(error, NULL));
	free(error);

	/* fixed, it is taken */
	fixture_write(fixture_conf, "[Default]\nNice=5\n");
	error = NULL;
	ck_assert_int_eq(daemon_policy_load(&d, false, &error), 0);
	ck_assert_ptr_null(error);
	ck_assert_int_eq(nice_of(&d, 0, NULL), 5);
	daemon_fini(&d);
}
END_TEST

/* At start there is no last good policy: the good files are used, the
 * broken one is left out (and its error said). */
START_TEST(test_start_uses_good_files)
{
	char admin[256], *error = NULL;
	Daemon d;

	daemon_init(&d, "[Default]\nNice=10\n", false);
	snprintf(admin, sizeof(admin), "%s.admin", fixture_conf);
	fixture_write(admin, BROKEN);
	d.args.admin_conf = admin;
	ck_assert_int_eq(daemon_policy_load(&d, true, &error), 0);
	ck_assert_uint_eq(policy_n_errors(d.policy), 1);
	ck_assert_int_eq(nice_of(&d, 0, NULL), 10);
	ck_assert_ptr_nonnull(error);
	ck_assert_msg(strstr(error, admin), "\"%s\"", error);
	free(error);

	/* the same files on a reload: the policy in force stays */
	ck_assert_int_eq(daemon_policy_load(&d, false, NULL), -EBADMSG);
	ck_assert_uint_eq(policy_n_errors(d.policy), 1);
	daemon_fini(&d);
}
END_TEST

/* With the resolver, a uid it does not know yet is -EINPROGRESS, not the
 * [Default] a guess without groups would give; once looked up, its groups
 * count. A good reload asks the directory again. */
START_TEST(test_eval_waits_for_the_user)
{
	PolicyEval e;
	char user[64];
	Daemon d;

	daemon_init(&d, GOOD, true);
	ck_assert_int_eq(daemon_policy_eval(&d, 1000, &e), -EINPROGRESS);
	resolve(&d, 1000);
	ck_assert_int_eq(nice_of(&d, 1000, user), -5);
	ck_assert_str_eq(user, "u1000");
	ck_assert_int_eq(daemon_policy_eval(&d, 1000, &e), 0);
	ck_assert_int_eq(e.grant.realtime_priority, 70);
	ck_assert(e.grant.covered);

	ck_assert_int_eq(daemon_policy_load(&d, false, NULL), 0);
	ck_assert_int_eq(daemon_policy_eval(&d, 1000, &e), -EINPROGRESS);

	/* no such user: an answer, not a wait */
	resolve(&d, NO_SUCH_UID);
	ck_assert_int_eq(daemon_policy_eval(&d, NO_SUCH_UID, &e), -ESRCH);
	daemon_fini(&d);
}
END_TEST

/* Without a resolver (NSS inline) nothing waits: root is "root". */
START_TEST(test_eval_without_resolver)
{
	char user[64];
	Answer a = {};
	Daemon d;

	daemon_init(&d, GOOD, false);
	ck_assert_int_eq(nice_of(&d, 0, user), 10);
	ck_assert_str_eq(user, "root");
	ck_assert_int_eq(daemon_policy_wait(&d, 0, on_done, &a, NULL), -EOPNOTSUPP);
	daemon_fini(&d);
}
END_TEST

/* A user NSS could not resolve: "#UID", [User #UID] and [Default] only;
 * a name too long for the message is cut between characters. */
START_TEST(test_eval_user_names)
{
	char longname[200] = "";
	PolicyUser u = { .uid = 4321 };
	gid_t audio = 29;
	PolicyEval e;
	Daemon d;

	daemon_init(&d, GOOD "\n[User #4321]\nNice=-9\n", false);
	ck_assert_int_eq(daemon_policy_eval_user(&d, &u, &e), 0);
	ck_assert_str_eq(e.user, "#4321");
	ck_assert_int_eq(e.grant.nice, -9);

	/* 60 two-byte characters do not fit 63 bytes: 31 of them do */
	for (int i = 0; i < 60; i++)
		strcat(longname, "\xc3\xa9");
	u = (PolicyUser){ .name = longname, .uid = 5000, .gids = &audio, .n_gids = 1 };
	ck_assert_int_eq(daemon_policy_eval_user(&d, &u, &e), 0);
	ck_assert(dbus_validate_utf8(e.user, NULL));
	ck_assert_uint_eq(strlen(e.user), 62);
	ck_assert_int_eq(e.grant.nice, -5);
	daemon_fini(&d);
}
END_TEST

/* What a client reads when the lookup of its user failed. */
START_TEST(test_resolve_error_texts)
{
	char buf[256];

	ck_assert_str_eq(daemon_resolve_error(1000, -ETIMEDOUT, buf, sizeof(buf)),
			 "could not resolve uid 1000 through NSS within 10 s (is the directory "
			 "down?)");
	ck_assert_str_eq(daemon_resolve_error(1000, -EBUSY, buf, sizeof(buf)),
			 "could not resolve uid 1000: too many requests wait for user lookups "
			 "(is the directory down?)");
	ck_assert_str_eq(daemon_resolve_error(7, -EIO, buf, sizeof(buf)),
			 "could not resolve uid 7 through NSS: Input/output error");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-daemon-policy");
	TCase *tc;

	tc = check_add_case(s, "load",
			    CHECK_TESTS(test_reload_keeps_last_good, test_start_uses_good_files));
	tcase_add_checked_fixture(tc, setup, teardown);
	tc = check_add_case(s, "eval",
			    CHECK_TESTS(test_eval_waits_for_the_user, test_eval_without_resolver,
					test_eval_user_names, test_resolve_error_texts));
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
