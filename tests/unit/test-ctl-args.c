/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/args.c: PID[/TID] targets, USER names and
 * #uids. A bad argument must be refused (-EINVAL/-ERANGE)
 * and leave the outputs untouched, so realtimectl never sends a half-parsed
 * request to realtimed.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "args.h"
#include "check-main.h"

#define SENTINEL UINT64_C(0xdeadbeef)

static void assert_target(const char *s, uint64_t want_pid, uint64_t want_tid)
{
	uint64_t pid = SENTINEL, tid = SENTINEL;

	ck_assert_msg(args_parse_target(s, &pid, &tid) == 0, "\"%s\" refused", s);
	ck_assert_msg(pid == want_pid && tid == want_tid, "\"%s\" -> %ju/%ju, want %ju/%ju", s,
		      (uintmax_t)pid, (uintmax_t)tid, (uintmax_t)want_pid, (uintmax_t)want_tid);
}

static void assert_target_bad(const char *s)
{
	uint64_t pid = SENTINEL, tid = SENTINEL;

	ck_assert_msg(args_parse_target(s, &pid, &tid) == -EINVAL, "\"%s\" accepted", s);
	ck_assert_msg(pid == SENTINEL && tid == SENTINEL, "\"%s\" touched the outputs", s);
}

START_TEST(test_target_good)
{
	assert_target("1", 1, 0);
	assert_target("1234", 1234, 0);
	assert_target("1234/1234", 1234, 1234);
	assert_target("1234/5678", 1234, 5678);
	assert_target("2147483647/2147483647", 2147483647, 2147483647);
	assert_target("007", 7, 0);
}
END_TEST

START_TEST(test_target_bad)
{
	static const char *const bad[] = {
		"",
		"0",
		"0/5",
		"5/0",
		"5/",
		"/5",
		"-1",
		"+1",
		" 1",
		"1 ",
		"1/ 2",
		"1/2/3",
		"1//2",
		"abc",
		"12a",
		"1/2x",
		"2147483648",
		"1/2147483648",
		"99999999999999999999",
		"0x10",
		"1.5",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_target_bad(bad[i]);
	ck_assert_int_eq(args_parse_target(NULL, &(uint64_t){ 0 }, &(uint64_t){ 0 }), -EINVAL);
}
END_TEST

START_TEST(test_user)
{
	uid_t uid = 4242;

	/* root is uid 0 on every machine the tests run on. */
	ck_assert_int_eq(args_parse_user("root", &uid), 0);
	ck_assert_uint_eq(uid, 0);
	uid = 4242;
	ck_assert_int_eq(args_parse_user("#0", &uid), 0);
	ck_assert_uint_eq(uid, 0);
	/* #UID need not exist: realtimed or the policy library says so. */
	ck_assert_int_eq(args_parse_user("#4000000000", &uid), 0);
	ck_assert_uint_eq(uid, 4000000000u);
	/* A bare number that names no user is a uid. */
	ck_assert_int_eq(args_parse_user("12345", &uid), 0);
	ck_assert_uint_eq(uid, 12345);

	uid = 4242;
	ck_assert_int_eq(args_parse_user("no-such-user-realtimectl", &uid), -ESRCH);
	ck_assert_int_eq(args_parse_user("", &uid), -EINVAL);
	ck_assert_int_eq(args_parse_user(NULL, &uid), -EINVAL);
	ck_assert_int_eq(args_parse_user("#", &uid), -EINVAL);
	ck_assert_int_eq(args_parse_user("#-1", &uid), -EINVAL);
	ck_assert_int_eq(args_parse_user("#4294967295", &uid), -EINVAL); /* (uid_t)-1 */
	ck_assert_int_eq(args_parse_user("#4294967296", &uid), -EINVAL);
	ck_assert_int_eq(args_parse_user("#12x", &uid), -EINVAL);
	ck_assert_uint_eq(uid, 4242);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("realtimectl-args");

	check_add_case(s, "args", CHECK_TESTS(test_target_good, test_target_bad, test_user));
	return check_run(s);
}
