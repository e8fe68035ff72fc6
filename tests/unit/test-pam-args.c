// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for pam_realtime's module arguments (pam_realtime/pam-args.h):
 * what /etc/pam.d lines may say, and that a bad argument is refused without
 * touching what was parsed before, so the module can log it and go on.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "pam-args.h"

static void assert_unchanged(const PamArgs *before, const PamArgs *after)
{
	ck_assert_int_eq(before->debug, after->debug);
	ck_assert_int_eq(before->nocaps, after->nocaps);
	ck_assert_uint_eq(before->n_conf, after->n_conf);
	for (size_t i = 0; i < before->n_conf; i++)
		ck_assert_ptr_eq(before->conf[i], after->conf[i]);
}

START_TEST(test_defaults)
{
	PamArgs a;

	memset(&a, 0x55, sizeof(a));
	pam_args_init(&a);
	ck_assert(!a.debug);
	ck_assert(!a.nocaps);
	ck_assert_uint_eq(a.n_conf, 0);
}
END_TEST

START_TEST(test_flags)
{
	PamArgs a;

	pam_args_init(&a);
	ck_assert_int_eq(pam_args_parse_one(&a, "debug"), 0);
	ck_assert(a.debug);
	ck_assert(!a.nocaps);
	ck_assert_int_eq(pam_args_parse_one(&a, "nocaps"), 0);
	ck_assert(a.nocaps);
	/* Repeating a flag is harmless. */
	ck_assert_int_eq(pam_args_parse_one(&a, "debug"), 0);
	ck_assert(a.debug);
	ck_assert_uint_eq(a.n_conf, 0);
}
END_TEST

START_TEST(test_conf_in_order)
{
	const char *argv[] = { "conf=/etc/realtime/a.conf", "debug", "conf=/run/b.conf" };
	PamArgs a;

	pam_args_init(&a);
	for (size_t i = 0; i < 3; i++)
		ck_assert_int_eq(pam_args_parse_one(&a, argv[i]), 0);
	ck_assert_uint_eq(a.n_conf, 2);
	ck_assert_str_eq(a.conf[0], "/etc/realtime/a.conf");
	ck_assert_str_eq(a.conf[1], "/run/b.conf");
	/* Borrowed from argv, not copied: PAM keeps argv alive for the call. */
	ck_assert_ptr_eq(a.conf[0], argv[0] + strlen("conf="));
	ck_assert(a.debug);
}
END_TEST

START_TEST(test_rejected)
{
	static const char *const bad[] = {
		"conf=",	      /* no file */
		"conf=realtime.conf", /* relative */
		"conf=./x.conf",
		"Debug", /* case matters, as everywhere in PAM */
		"debug=1",
		"nocaps ",
		"conf",
		"config=/etc/realtime/realtime.conf", /* pam_cap's spelling, not ours */
		"",
		"=",
	};
	PamArgs a, before;

	pam_args_init(&a);
	ck_assert_int_eq(pam_args_parse_one(&a, "conf=/x.conf"), 0);
	before = a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(pam_args_parse_one(&a, bad[i]) == -EINVAL, "\"%s\" accepted", bad[i]);
		assert_unchanged(&before, &a);
	}
	ck_assert_int_eq(pam_args_parse_one(&a, NULL), -EINVAL);
	assert_unchanged(&before, &a);
}
END_TEST

START_TEST(test_too_many_conf)
{
	char paths[PAM_ARGS_CONF_MAX + 1][32];
	PamArgs a, before;

	pam_args_init(&a);
	for (int i = 0; i < PAM_ARGS_CONF_MAX; i++) {
		snprintf(paths[i], sizeof(paths[i]), "conf=/p/%d.conf", i);
		ck_assert_int_eq(pam_args_parse_one(&a, paths[i]), 0);
	}
	ck_assert_uint_eq(a.n_conf, PAM_ARGS_CONF_MAX);
	before = a;

	snprintf(paths[PAM_ARGS_CONF_MAX], sizeof(paths[0]), "conf=/p/last.conf");
	ck_assert_int_eq(pam_args_parse_one(&a, paths[PAM_ARGS_CONF_MAX]), -E2BIG);
	assert_unchanged(&before, &a);
	ck_assert_str_eq(a.conf[PAM_ARGS_CONF_MAX - 1], "/p/15.conf");

	/* Flags still parse after a refused conf=. */
	ck_assert_int_eq(pam_args_parse_one(&a, "nocaps"), 0);
	ck_assert(a.nocaps);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pam-args");

	check_add_case(s, "parse",
		       CHECK_TESTS(test_defaults, test_flags, test_conf_in_order, test_rejected,
				   test_too_many_conf));
	return check_run(s);
}
