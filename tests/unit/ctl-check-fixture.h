/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fixture of realtimectl check's unit tests (test-ctl-check*.c, one per
 * file of checks): the context of a check run over a canned /proc, /sys,
 * /etc and /boot in the test's own directory (policy-fixture.h's tmpdir,
 * the root prefix), for alice (in audio) or bob (not) and a policy the test
 * gives, and the result of the last run.
 */
#pragma once

#include <check.h>

#include "ctl-check.h"
#include "macro.h"
#include "policy-fixture.h"

extern CheckContext ctx;
extern CheckResult res;
extern PolicyUser alice, bob;

/* Adds a test case of tests to s: its own directory (the root) per test,
 * alice checked against a policy like the shipped one. */
TCase *ctl_check_test_case(Suite *s, const char *name, const TTest *const *tests);

/* Writes root + path (its directories made), printf content. */
_printf_(2, 3) void put(const char *path, const char *fmt, ...);
/* Makes the directory root + path and its parents. */
void mkdir_p(const char *path);
/* Writes text as the one policy file and loads it, as policy check does,
 * into ctx.policy. */
void load_policy(const char *text);
/* The user checked from now on: alice or bob. */
void check_as(const PolicyUser *u);

/* Runs check id over the tree as it is now (the context reloaded) into
 * res, which must have a status, a summary, and a hint if warn or fail. */
void run(const char *id);

#define assert_result(st, val)                                                                \
	do {                                                                                  \
		ck_assert_msg(res.status == (st), "status %s, want %s (%s; value '%s')",      \
			      check_status_to_string(res.status), check_status_to_string(st), \
			      res.summary, res.value);                                        \
		ck_assert_str_eq(res.value, (val));                                           \
	} while (0)
