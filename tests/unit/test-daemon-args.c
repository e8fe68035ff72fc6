/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/args.c: realtimed's command line. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "check-main.h"

static char out_buf[4096], err_buf[4096];

static int parse(DaemonArgs *a, int argc, const char **argv)
{
	FILE *out = fmemopen(out_buf, sizeof(out_buf), "w");
	FILE *err = fmemopen(err_buf, sizeof(err_buf), "w");
	int r;

	memset(out_buf, 0, sizeof(out_buf));
	memset(err_buf, 0, sizeof(err_buf));
	r = args_parse(argc, (char **)argv, a, out, err);
	fclose(out);
	fclose(err);
	return r;
}

START_TEST(test_defaults)
{
	const char *argv[] = { "realtimed", NULL };
	DaemonArgs a;

	ck_assert_int_eq(parse(&a, 1, argv), 1);
	ck_assert(!a.debug);
	ck_assert(a.drop_caps);
	ck_assert_ptr_null(a.vendor_conf);
	ck_assert_ptr_null(a.admin_conf_dir);
	ck_assert_str_eq(a.state_dir, "/run/realtime");
	ck_assert_str_eq(a.proc, "/proc");
	ck_assert(a.use_pidfds);
}
END_TEST

START_TEST(test_all_options)
{
	const char *argv[] = { "realtimed",
			       "--debug",
			       "--vendor-conf=/v",
			       "--admin-conf",
			       "/a",
			       "--vendor-conf-dir=",
			       "--admin-conf-dir=/d",
			       "--state-dir=/s",
			       "--no-drop-caps",
			       NULL };
	DaemonArgs a;

	ck_assert_int_eq(parse(&a, 9, argv), 1);
	ck_assert(a.debug);
	ck_assert(!a.drop_caps);
	ck_assert_str_eq(a.vendor_conf, "/v");
	ck_assert_str_eq(a.admin_conf, "/a");
	ck_assert_str_eq(a.vendor_conf_dir, ""); /* "" disables a source */
	ck_assert_str_eq(a.admin_conf_dir, "/d");
	ck_assert_str_eq(a.state_dir, "/s");
}
END_TEST

START_TEST(test_help_version)
{
	const char *help[] = { "realtimed", "--help", NULL };
	const char *version[] = { "realtimed", "--version", NULL };
	DaemonArgs a;

	ck_assert_int_eq(parse(&a, 2, help), 0);
	ck_assert_ptr_nonnull(strstr(out_buf, "--state-dir"));
	ck_assert_int_eq(parse(&a, 2, version), 0);
	ck_assert_ptr_nonnull(strstr(out_buf, "realtimed "));
}
END_TEST

START_TEST(test_errors)
{
	const char *unknown[] = { "realtimed", "--bogus", NULL };
	const char *missing[] = { "realtimed", "--admin-conf", NULL };
	const char *extra[] = { "realtimed", "stray", NULL };
	const char *empty_state[] = { "realtimed", "--state-dir=", NULL };
	DaemonArgs a = { .state_dir = "untouched" };

	ck_assert_int_eq(parse(&a, 2, unknown), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err_buf, "--bogus"));
	ck_assert_int_eq(parse(&a, 2, missing), -EINVAL);
	ck_assert_int_eq(parse(&a, 2, extra), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err_buf, "stray"));
	ck_assert_int_eq(parse(&a, 2, empty_state), -EINVAL);
	ck_assert_str_eq(a.state_dir, "untouched"); /* ret untouched on failure */
}
END_TEST

int main(void)
{
	return check_run_case(
		"daemon-args", "args",
		CHECK_TESTS(test_defaults, test_all_options, test_help_version, test_errors), NULL,
		NULL);
}
