// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/parse.h: every value parser of realtime.conf(5) with
 * good values, bounds, suffixes, infinity/unlimited, garbage and overflow.
 * Each failing parse must return -EINVAL or -ERANGE and leave *ret alone,
 * which is what lets the policy library report "file:line: message".
 */
#include <check.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdlib.h>

#include "check-main.h"
#include "parse.h"
#include "policy.h"

/* A value no parser produces for our inputs: proves *ret stays untouched. */
#define SENTINEL_U64 UINT64_C(0xdeadbeefcafe)
#define SENTINEL_INT 0x5eed

static void assert_size(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL_U64;

	ck_assert_msg(parse_size(s, &v) == 0, "parse_size(\"%s\") failed", s);
	ck_assert_msg(v == want, "parse_size(\"%s\") = %ju, want %ju", s, (uintmax_t)v,
		      (uintmax_t)want);
}

static void assert_size_fails(const char *s, int want_r)
{
	uint64_t v = SENTINEL_U64;
	int r = parse_size(s, &v);

	ck_assert_msg(r < 0, "parse_size(\"%s\") accepted (%ju)", s, (uintmax_t)v);
	if (want_r != 0)
		ck_assert_msg(r == want_r, "parse_size(\"%s\") = %d, want %d", s, r, want_r);
	else
		ck_assert_msg(r == -EINVAL || r == -ERANGE, "parse_size(\"%s\") = %d", s, r);
	ck_assert_msg(v == SENTINEL_U64, "parse_size(\"%s\") touched *ret on failure", s);
}

static void assert_duration(const char *s, bool bare_usec, uint64_t want)
{
	uint64_t v = SENTINEL_U64;

	ck_assert_msg(parse_duration(s, bare_usec, &v) == 0, "parse_duration(\"%s\", %d) failed", s,
		      bare_usec);
	ck_assert_msg(v == want, "parse_duration(\"%s\", %d) = %ju, want %ju", s, bare_usec,
		      (uintmax_t)v, (uintmax_t)want);
}

static void assert_duration_fails(const char *s, bool bare_usec, int want_r)
{
	uint64_t v = SENTINEL_U64;
	int r = parse_duration(s, bare_usec, &v);

	ck_assert_msg(r < 0, "parse_duration(\"%s\") accepted (%ju)", s, (uintmax_t)v);
	if (want_r != 0)
		ck_assert_msg(r == want_r, "parse_duration(\"%s\") = %d, want %d", s, r, want_r);
	else
		ck_assert_msg(r == -EINVAL || r == -ERANGE, "parse_duration(\"%s\") = %d", s, r);
	ck_assert_msg(v == SENTINEL_U64, "parse_duration(\"%s\") touched *ret on failure", s);
}

/* ---- parse_boolean ---- */

START_TEST(test_boolean_good)
{
	static const struct {
		const char *s;
		bool want;
	} t[] = {
		{ "yes", true }, { "no", false }, { "true", true }, { "false", false },
		{ "1", true },	 { "0", false },  { "on", true },   { "off", false },
		{ "YES", true }, { "No", false }, { "True", true }, { "OFF", false },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool v = !t[i].want;

		ck_assert_msg(parse_boolean(t[i].s, &v) == 0, "parse_boolean(\"%s\") failed",
			      t[i].s);
		ck_assert_msg(v == t[i].want, "parse_boolean(\"%s\") = %d", t[i].s, v);
	}
}
END_TEST

START_TEST(test_boolean_bad)
{
	static const char *const bad[] = { "", "maybe", "2", "-1", "yess", "y e s", "enable" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool v = true;

		ck_assert_msg(parse_boolean(bad[i], &v) == -EINVAL,
			      "parse_boolean(\"%s\") accepted", bad[i]);
		ck_assert(v == true);
		v = false;
		ck_assert_int_eq(parse_boolean(bad[i], &v), -EINVAL);
		ck_assert(v == false);
	}
}
END_TEST

/* ---- parse_decimal_prefix ---- */

START_TEST(test_decimal_prefix)
{
	uint64_t v = SENTINEL_U64;
	const char *end = NULL;
	const char *s;

	s = "1234 rest";
	ck_assert_int_eq(parse_decimal_prefix(s, UINT64_MAX, &v, &end), 0);
	ck_assert_uint_eq(v, 1234);
	ck_assert_ptr_eq(end, s + 4);
	s = "007/8";
	ck_assert_int_eq(parse_decimal_prefix(s, 7, &v, &end), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_ptr_eq(end, s + 3);
	ck_assert_int_eq(parse_decimal_prefix("18446744073709551615", UINT64_MAX, &v, NULL), 0);
	ck_assert(v == UINT64_MAX);

	v = SENTINEL_U64;
	end = NULL;
	/* max is inclusive, and one past it is a range error, never a wrap */
	ck_assert_int_eq(parse_decimal_prefix("8", 7, &v, &end), -ERANGE);
	ck_assert_int_eq(parse_decimal_prefix("4294967296", UINT32_MAX, &v, &end), -ERANGE);
	ck_assert_int_eq(parse_decimal_prefix("18446744073709551616", UINT64_MAX, &v, &end),
			 -ERANGE);
	/* a number starts with a digit: no sign, no blank, not empty */
	ck_assert_int_eq(parse_decimal_prefix("", UINT64_MAX, &v, &end), -EINVAL);
	ck_assert_int_eq(parse_decimal_prefix("-1", UINT64_MAX, &v, &end), -EINVAL);
	ck_assert_int_eq(parse_decimal_prefix("+1", UINT64_MAX, &v, &end), -EINVAL);
	ck_assert_int_eq(parse_decimal_prefix(" 1", UINT64_MAX, &v, &end), -EINVAL);
	ck_assert_int_eq(parse_decimal_prefix("x1", UINT64_MAX, &v, &end), -EINVAL);
	ck_assert(v == SENTINEL_U64);
	ck_assert_ptr_null(end);
}
END_TEST

START_TEST(test_decimal)
{
	uint64_t v = SENTINEL_U64;

	ck_assert_int_eq(parse_decimal("4242", UINT32_MAX, &v), 0);
	ck_assert_uint_eq(v, 4242);
	ck_assert_int_eq(parse_decimal("4294967295", UINT32_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT32_MAX);

	v = SENTINEL_U64;
	/* the whole string: nothing after the digits */
	ck_assert_int_eq(parse_decimal("12/3", UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(parse_decimal("12 ", UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(parse_decimal("", UINT64_MAX, &v), -EINVAL);
	ck_assert_int_eq(parse_decimal("4294967296", UINT32_MAX, &v), -ERANGE);
	ck_assert(v == SENTINEL_U64);
}
END_TEST

/* ---- parse_unsigned ---- */

START_TEST(test_unsigned_good)
{
	unsigned v = SENTINEL_INT;

	ck_assert_int_eq(parse_unsigned("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(parse_unsigned("1", &v), 0);
	ck_assert_uint_eq(v, 1);
	ck_assert_int_eq(parse_unsigned("2048", &v), 0);
	ck_assert_uint_eq(v, 2048);
	ck_assert_int_eq(parse_unsigned("4294967295", &v), 0);
	ck_assert_uint_eq(v, 4294967295u);
}
END_TEST

START_TEST(test_unsigned_bad)
{
	unsigned v = SENTINEL_INT;

	/* One past UINT_MAX and far beyond: a range error, not a wrap. */
	ck_assert_int_eq(parse_unsigned("4294967296", &v), -ERANGE);
	ck_assert_int_eq(parse_unsigned("18446744073709551615", &v), -ERANGE);
	ck_assert_int_eq(parse_unsigned("99999999999999999999999", &v), -ERANGE);
	ck_assert_uint_eq(v, SENTINEL_INT);

	ck_assert_int_eq(parse_unsigned("", &v), -EINVAL);
	ck_assert_int_eq(parse_unsigned("abc", &v), -EINVAL);
	ck_assert_int_eq(parse_unsigned("12abc", &v), -EINVAL);
	ck_assert_int_eq(parse_unsigned("1.5", &v), -EINVAL);
	ck_assert_int_eq(parse_unsigned("0x10", &v), -EINVAL);
	ck_assert_uint_eq(v, SENTINEL_INT);

	/* strtoul() happily wraps "-1" to ULONG_MAX; a parser must not. */
	ck_assert_int_lt(parse_unsigned("-1", &v), 0);
	ck_assert_uint_ne(v, 4294967295u);
}
END_TEST

/* ---- parse_priority ---- */

START_TEST(test_priority_good)
{
	int v = SENTINEL_INT;

	ck_assert_int_eq(parse_priority("1", false, &v), 0);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(parse_priority("20", false, &v), 0);
	ck_assert_int_eq(v, 20);
	ck_assert_int_eq(parse_priority("99", false, &v), 0);
	ck_assert_int_eq(v, 99);
	ck_assert_int_eq(parse_priority("0", true, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(parse_priority("99", true, &v), 0);
	ck_assert_int_eq(v, 99);
}
END_TEST

START_TEST(test_priority_bad)
{
	int v = SENTINEL_INT;

	ck_assert_int_eq(parse_priority("0", false, &v), -ERANGE);
	ck_assert_int_eq(parse_priority("100", false, &v), -ERANGE);
	ck_assert_int_eq(parse_priority("100", true, &v), -ERANGE);
	ck_assert_int_eq(parse_priority("4294967297", true, &v), -ERANGE);
	ck_assert_int_lt(parse_priority("-1", true, &v), 0);
	ck_assert_int_eq(parse_priority("", true, &v), -EINVAL);
	ck_assert_int_eq(parse_priority("high", true, &v), -EINVAL);
	ck_assert_int_eq(parse_priority("50x", true, &v), -EINVAL);
	ck_assert_int_eq(parse_priority("infinity", true, &v), -EINVAL);
	ck_assert_int_eq(v, SENTINEL_INT);
}
END_TEST

/* ---- parse_nice ---- */

START_TEST(test_nice_good)
{
	int v = SENTINEL_INT;

	ck_assert_int_eq(parse_nice("-20", &v), 0);
	ck_assert_int_eq(v, -20);
	ck_assert_int_eq(parse_nice("-15", &v), 0);
	ck_assert_int_eq(v, -15);
	ck_assert_int_eq(parse_nice("0", &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(parse_nice("19", &v), 0);
	ck_assert_int_eq(v, 19);
}
END_TEST

START_TEST(test_nice_bad)
{
	int v = SENTINEL_INT;

	ck_assert_int_eq(parse_nice("-21", &v), -ERANGE);
	ck_assert_int_eq(parse_nice("20", &v), -ERANGE);
	ck_assert_int_eq(parse_nice("-2147483649", &v), -ERANGE);
	ck_assert_int_eq(parse_nice("9999999999999999999999", &v), -ERANGE);
	ck_assert_int_eq(parse_nice("", &v), -EINVAL);
	ck_assert_int_eq(parse_nice("-", &v), -EINVAL);
	ck_assert_int_eq(parse_nice("low", &v), -EINVAL);
	ck_assert_int_eq(parse_nice("-5x", &v), -EINVAL);
	ck_assert_int_eq(v, SENTINEL_INT);
}
END_TEST

/* ---- parse_size ---- */

START_TEST(test_size_good)
{
	assert_size("0", 0);
	assert_size("1", 1);
	assert_size("4096", 4096);
	assert_size("1K", 1024);
	assert_size("64K", 64 * 1024);
	assert_size("1M", 1024 * 1024);
	assert_size("64M", UINT64_C(64) * 1024 * 1024);
	assert_size("1G", UINT64_C(1) << 30);
	assert_size("16G", UINT64_C(16) << 30);
	assert_size("0K", 0);
	/* The largest G value that still fits. */
	assert_size("17179869183G", UINT64_C(17179869183) << 30);
}
END_TEST

START_TEST(test_size_infinity)
{
	assert_size("infinity", POLICY_INFINITY);
	assert_size("unlimited", POLICY_INFINITY);
	ck_assert(POLICY_INFINITY == UINT64_MAX);
}
END_TEST

START_TEST(test_size_bad)
{
	assert_size_fails("", -EINVAL);
	assert_size_fails("K", -EINVAL);
	assert_size_fails("M", -EINVAL);
	assert_size_fails("lots", -EINVAL);
	assert_size_fails("64X", -EINVAL);
	assert_size_fails("64MB", -EINVAL);
	assert_size_fails("64MiB", -EINVAL);
	assert_size_fails("1T", -EINVAL);
	/* Suffixes are upper case, as realtime.conf(5) says. */
	assert_size_fails("64k", -EINVAL);
	assert_size_fails("64m", -EINVAL);
	assert_size_fails(" 64M", -EINVAL);
	assert_size_fails("+64M", -EINVAL);
	assert_size_fails("1.5M", -EINVAL);
	assert_size_fails("0x100", -EINVAL);
	assert_size_fails("infinit", -EINVAL);
	assert_size_fails("infinityK", -EINVAL);
	assert_size_fails("-1", 0);
	assert_size_fails("-64M", 0);
}
END_TEST

START_TEST(test_size_overflow)
{
	/* 2^34 G = 2^64 bytes: one past what a u64 holds. */
	assert_size_fails("17179869184G", -ERANGE);
	assert_size_fails("17592186044416M", -ERANGE);
	assert_size_fails("18014398509481984K", -ERANGE);
	/* 2^64 and far beyond. */
	assert_size_fails("18446744073709551616", -ERANGE);
	assert_size_fails("99999999999999999999999999", -ERANGE);
	assert_size_fails("99999999999999999999999999G", -ERANGE);
}
END_TEST

/* ---- parse_duration ---- */

START_TEST(test_duration_good)
{
	assert_duration("0", true, 0);
	assert_duration("500us", true, 500);
	assert_duration("500us", false, 500);
	assert_duration("200ms", true, 200000);
	assert_duration("200ms", false, 200000);
	assert_duration("1s", true, 1000000);
	assert_duration("20s", false, 20000000);
	assert_duration("0ms", true, 0);
	/* The bare-number rule: microseconds for RTTime=, seconds for *Sec=. */
	assert_duration("200000", true, 200000);
	assert_duration("2", false, 2000000);
	assert_duration("60", false, 60000000);
	assert_duration("0", false, 0);
}
END_TEST

START_TEST(test_duration_infinity)
{
	assert_duration("infinity", true, POLICY_INFINITY);
	assert_duration("unlimited", true, POLICY_INFINITY);
	assert_duration("infinity", false, POLICY_INFINITY);
	assert_duration("unlimited", false, POLICY_INFINITY);
}
END_TEST

START_TEST(test_duration_bad)
{
	assert_duration_fails("", true, -EINVAL);
	assert_duration_fails("ms", true, -EINVAL);
	assert_duration_fails("s", false, -EINVAL);
	assert_duration_fails("forever", true, -EINVAL);
	assert_duration_fails("5ns", true, -EINVAL);
	assert_duration_fails("5x", true, -EINVAL);
	assert_duration_fails("5sec", true, -EINVAL);
	assert_duration_fails("200MS", true, -EINVAL);
	assert_duration_fails("2S", false, -EINVAL);
	assert_duration_fails("+2s", false, -EINVAL);
	assert_duration_fails("5 ms s", true, -EINVAL);
	assert_duration_fails("1.5s", true, -EINVAL);
	assert_duration_fails("0x10", true, -EINVAL);
	assert_duration_fails("-1", true, 0);
	assert_duration_fails("-200ms", true, 0);
}
END_TEST

START_TEST(test_duration_overflow)
{
	/* 18446744073709551615 s is far beyond 2^64 us. */
	assert_duration_fails("18446744073709551615s", true, -ERANGE);
	/* (2^64 / 10^6) + 1 seconds: the first whole second that overflows. */
	assert_duration_fails("18446744073710s", true, -ERANGE);
	assert_duration_fails("18446744073710", false, -ERANGE);
	assert_duration_fails("18446744073709552ms", true, -ERANGE);
	assert_duration_fails("18446744073709551616", true, -ERANGE);
	assert_duration_fails("18446744073709551616us", true, -ERANGE);
	/* Just below the limit still parses. */
	assert_duration("18446744073709s", true, UINT64_C(18446744073709) * 1000000);
}
END_TEST

/* ---- parse_policies ---- */

START_TEST(test_policies_good)
{
	unsigned v = SENTINEL_INT;

	ck_assert_int_eq(parse_policies("fifo", &v), 0);
	ck_assert_uint_eq(v, POLICY_SCHED_FIFO);
	ck_assert_int_eq(parse_policies("rr", &v), 0);
	ck_assert_uint_eq(v, POLICY_SCHED_RR);
	ck_assert_int_eq(parse_policies("fifo rr", &v), 0);
	ck_assert_uint_eq(v, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_int_eq(parse_policies("rr fifo", &v), 0);
	ck_assert_uint_eq(v, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_int_eq(parse_policies("rr  fifo", &v), 0);
	ck_assert_uint_eq(v, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	/* Repeating a word is harmless. */
	ck_assert_int_eq(parse_policies("rr rr", &v), 0);
	ck_assert_uint_eq(v, POLICY_SCHED_RR);
	ck_assert_int_eq(POLICY_SCHED_FIFO & POLICY_SCHED_RR, 0);
}
END_TEST

START_TEST(test_policies_bad)
{
	unsigned v = SENTINEL_INT;

	ck_assert_int_eq(parse_policies("other", &v), -EINVAL);
	ck_assert_int_eq(parse_policies("batch", &v), -EINVAL);
	ck_assert_int_eq(parse_policies("deadline", &v), -EINVAL);
	ck_assert_int_eq(parse_policies("fifo other", &v), -EINVAL);
	ck_assert_int_eq(parse_policies("fifo,rr", &v), -EINVAL);
	ck_assert_int_eq(parse_policies("fifor", &v), -EINVAL);
	ck_assert_int_eq(parse_policies("FIFOX", &v), -EINVAL);
	ck_assert_uint_eq(v, SENTINEL_INT);
}
END_TEST

/* ---- parse_capabilities ---- */

START_TEST(test_capabilities_good)
{
	uint64_t v = SENTINEL_U64;

	ck_assert_int_eq(parse_capabilities("", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(parse_capabilities("sys_nice", &v), 0);
	ck_assert_uint_eq(v, UINT64_C(1) << CAP_SYS_NICE);
	ck_assert_int_eq(parse_capabilities("ipc_lock", &v), 0);
	ck_assert_uint_eq(v, UINT64_C(1) << CAP_IPC_LOCK);
	ck_assert_int_eq(parse_capabilities("cap_sys_nice", &v), 0);
	ck_assert_uint_eq(v, UINT64_C(1) << CAP_SYS_NICE);
	ck_assert_int_eq(parse_capabilities("cap_ipc_lock", &v), 0);
	ck_assert_uint_eq(v, UINT64_C(1) << CAP_IPC_LOCK);
	ck_assert_int_eq(parse_capabilities("sys_nice ipc_lock", &v), 0);
	ck_assert_uint_eq(v, (UINT64_C(1) << CAP_SYS_NICE) | (UINT64_C(1) << CAP_IPC_LOCK));
	ck_assert_int_eq(parse_capabilities("cap_ipc_lock sys_nice", &v), 0);
	ck_assert_uint_eq(v, (UINT64_C(1) << CAP_SYS_NICE) | (UINT64_C(1) << CAP_IPC_LOCK));
}
END_TEST

START_TEST(test_capabilities_bad)
{
	uint64_t v = SENTINEL_U64;

	/* Real capabilities, but not ones realtime policy may hand out. */
	ck_assert_int_eq(parse_capabilities("sys_admin", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("cap_sys_resource", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("sys_nice sys_admin", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("all", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("bogus", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("cap_", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("sys_nice,ipc_lock", &v), -EINVAL);
	ck_assert_int_eq(parse_capabilities("23", &v), -EINVAL);
	ck_assert_uint_eq(v, SENTINEL_U64);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("parse");

	check_add_case(s, "boolean", CHECK_TESTS(test_boolean_good, test_boolean_bad));
	check_add_case(s, "decimal", CHECK_TESTS(test_decimal_prefix, test_decimal));
	check_add_case(s, "unsigned", CHECK_TESTS(test_unsigned_good, test_unsigned_bad));
	check_add_case(s, "priority", CHECK_TESTS(test_priority_good, test_priority_bad));
	check_add_case(s, "nice", CHECK_TESTS(test_nice_good, test_nice_bad));
	check_add_case(
		s, "size",
		CHECK_TESTS(test_size_good, test_size_infinity, test_size_bad, test_size_overflow));
	check_add_case(s, "duration",
		       CHECK_TESTS(test_duration_good, test_duration_infinity, test_duration_bad,
				   test_duration_overflow));
	check_add_case(s, "policies", CHECK_TESTS(test_policies_good, test_policies_bad));
	check_add_case(s, "capabilities",
		       CHECK_TESTS(test_capabilities_good, test_capabilities_bad));
	return check_run(s);
}
