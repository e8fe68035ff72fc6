/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The unit tests' suite builder and runner (see check-main.h), linked into
 * every tests/unit/test-*.c through check_main_dep.
 */
#include <stdio.h>
#include <stdlib.h>

#include "check-main.h"

TCase *check_add_case(Suite *s, const char *name, const TTest *const *tests)
{
	TCase *tc = tcase_create(name);

	for (; *tests; tests++)
		tcase_add_test(tc, *tests);
	suite_add_tcase(s, tc);
	return tc;
}

int check_run_case(const char *suite_name, const char *name, const TTest *const *tests, SFun setup,
		   SFun teardown)
{
	Suite *s = suite_create(suite_name);
	TCase *tc = check_add_case(s, name, tests);

	if (setup || teardown)
		tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}

static int run(SRunner *sr)
{
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int check_run(Suite *s)
{
	return run(srunner_create(s));
}

int check_run_forked(Suite *s, const char *why)
{
	SRunner *sr = srunner_create(s);

	if (srunner_fork_status(sr) == CK_NOFORK) {
		printf("SKIP: needs Check's fork mode (CK_FORK=yes): %s\n", why);
		srunner_free(sr);
		return 77;
	}
	return run(sr);
}
