/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every unit test's main() is made of: its suite is built from lists
 * of tests (one check_add_case() per test case), then run by check_run()
 * in Check's fork mode (unless CK_FORK=no asks otherwise, e.g. under a
 * debugger), which prints Check's summary and turns the outcome into the
 * exit status meson reads. A test's own main() adds only what is
 * particular to it: fixtures, a timeout, a skip when the machine lacks
 * something.
 */
#pragma once

#include <check.h>

/* The tests (START_TEST names) of one test case, as check_add_case() takes
 * them: CHECK_TESTS(test_a, test_b). */
#define CHECK_TESTS(...) ((const TTest *const[]){ __VA_ARGS__, NULL })

/* Adds to s a test case named name that runs tests (NULL-terminated, see
 * CHECK_TESTS) in that order. Returns the test case, for fixtures and a
 * timeout. */
TCase *check_add_case(Suite *s, const char *name, const TTest *const *tests);

/* The whole main() of a test made of one test case: a suite named
 * suite_name holding the test case name (tests as check_add_case() takes
 * them; setup and teardown, either may be NULL, its checked fixture), run
 * by check_run(). */
int check_run_case(const char *suite_name, const char *name, const TTest *const *tests, SFun setup,
		   SFun teardown);

/* Runs s and frees it. Returns EXIT_SUCCESS when every test passed, else
 * EXIT_FAILURE. */
int check_run(Suite *s);

/* As check_run(), for suites whose tests change the process they run in
 * (credentials, rlimits), which only fork mode keeps from the runner:
 * without it, prints "SKIP: needs Check's fork mode" and why, frees s and
 * returns 77 (meson's skip). */
int check_run_forked(Suite *s, const char *why);
