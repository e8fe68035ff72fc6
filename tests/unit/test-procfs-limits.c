/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for procfs/procfs-limits.c, the one parser of /proc/PID/limits
 * of realtimed and realtimectl check: rows as the kernel writes them,
 * "unlimited", a name that only begins another row's, rows that are missing
 * or whose limits are not numbers; the reader on this process's own limits
 * (as getrlimit() gives them) and on a pid that does not exist.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "procfs-limits.h"

/* As the kernel writes the file: "%-25s %-20s %-20s %-10s\n". */
static const char limits[] =
	"Limit                     Soft Limit           Hard Limit           Units     \n"
	"Max locked memory         65536                unlimited            bytes     \n"
	"Max nice priority         0                    0                    \n"
	"Max realtime priority     0                    95                   \n"
	"Max realtime timeout      200000               unlimited            us        \n";

START_TEST(test_rows)
{
	uint64_t s = 0, h = 0;

	ck_assert_int_eq(procfs_limits_parse(limits, "Max realtime timeout", &s, &h), 0);
	ck_assert_uint_eq(s, 200000);
	ck_assert_uint_eq(h, UINT64_MAX);
	ck_assert_int_eq(procfs_limits_parse(limits, "Max realtime priority", &s, &h), 0);
	ck_assert_uint_eq(s, 0);
	ck_assert_uint_eq(h, 95);
	ck_assert_int_eq(procfs_limits_parse(limits, "Max locked memory", &s, &h), 0);
	ck_assert_uint_eq(s, 65536);
	ck_assert_uint_eq(h, RLIM_INFINITY);
	/* tabs part the columns as well; the last row may end the text */
	ck_assert_int_eq(
		procfs_limits_parse("Max nice priority\t40\t40", "Max nice priority", &s, &h), 0);
	ck_assert_uint_eq(s, 40);
	ck_assert_uint_eq(h, 40);
}
END_TEST

START_TEST(test_no_row)
{
	uint64_t s = 7, h = 7;

	ck_assert_int_eq(procfs_limits_parse(limits, "Max open files", &s, &h), -ENODATA);
	/* a prefix of another name does not match */
	ck_assert_int_eq(procfs_limits_parse(limits, "Max realtime", &s, &h), -ENODATA);
	ck_assert_int_eq(procfs_limits_parse(limits, "Max nice priorit", &s, &h), -ENODATA);
	ck_assert_int_eq(procfs_limits_parse("", "Max nice priority", &s, &h), -ENODATA);
	ck_assert_uint_eq(s, 7);
	ck_assert_uint_eq(h, 7);
}
END_TEST

START_TEST(test_bad_values)
{
	static const char *const bad[] = {
		"Max nice priority         0                    \n",
		"Max nice priority         0\n",
		"Max nice priority         0                    x\n",
		"Max nice priority         0x10                 0\n",
		"Max nice priority         0                    -1\n",
		"Max nice priority         unlimitedx           0\n",
		"Max nice priority         0                    unlimited_\n",
		"Max nice priority         18446744073709551616 0\n",
	};
	uint64_t s = 7, h = 7;

	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		ck_assert_msg(procfs_limits_parse(bad[i], "Max nice priority", &s, &h) == -EBADMSG,
			      "%s", bad[i]);
	ck_assert_uint_eq(s, 7);
	ck_assert_uint_eq(h, 7);
}
END_TEST

START_TEST(test_read_self)
{
	struct rlimit rl;
	uint64_t s, h;

	ck_assert_int_eq(getrlimit(RLIMIT_RTPRIO, &rl), 0);
	ck_assert_int_eq(procfs_limits_read("/proc", getpid(), "Max realtime priority", &s, &h), 0);
	ck_assert_uint_eq(s, rl.rlim_cur);
	ck_assert_uint_eq(h, rl.rlim_max);
	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_int_eq(procfs_limits_read("/proc", getpid(), "Max locked memory", &s, &h), 0);
	ck_assert_uint_eq(s, rl.rlim_cur);
	ck_assert_uint_eq(h, rl.rlim_max);
	/* pid_max is at most 2^22: this pid never exists */
	ck_assert_int_eq(procfs_limits_read("/proc", 99999999, "Max locked memory", &s, &h),
			 -ESRCH);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("procfs-limits");

	check_add_case(s, "limits",
		       CHECK_TESTS(test_rows, test_no_row, test_bad_values, test_read_self));
	return check_run(s);
}
