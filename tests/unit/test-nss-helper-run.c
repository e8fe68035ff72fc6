/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the NSS helper's worker threads (nss-helper/run.c), in
 * the tests' helper that realtimed's resolver execs, over the fake
 * directory of resolver-fixture.c, which can hang: one lookup per uid in
 * flight (later waits join it), a hung lookup holds one thread and others
 * go on, a wait ends with -ETIMEDOUT after the timeout (the late result is
 * cached), the pool, the cache and the waits are bounded, and waits never
 * answered are freed with the resolver.
 */
#include <check.h>
#include <errno.h>
#include <unistd.h>

#include "check-main.h"
#include "resolver-fixture.h"

/* Three waits for one uid while its lookup hangs: one lookup, three answers. */
START_TEST(test_one_lookup_per_uid)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	fake_hang(1000);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	(void)expect_get(r, 1000, -ENOENT);
	usleep(50000);
	ck_assert_uint_eq(a.n, 0);
	fake_release();
	expect_answered(&a, 3, 0, 29);
	ck_assert_str_eq(a.name, "u1000");
	ck_assert_uint_eq(resolver_n_lookups(r), 1);
	ck_assert_uint_eq(fake_n_calls(), 1);
	ck_assert_str_eq(expect_get(r, 1000, 0)->name, "u1000");
}
END_TEST

/* A hung lookup holds one thread: another user is answered meanwhile. */
START_TEST(test_hung_lookup_blocks_no_one_else)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer hung = {}, other = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &hung, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 1001, on_done, &other, NULL), 0);
	expect_answered(&other, 1, 0, 29);
	ck_assert_uint_eq(hung.n, 0);
	ck_assert_uint_eq(helper_n_threads(), 2);
}
END_TEST

/* A wait ends after the timeout; the lookup's late result is cached. */
START_TEST(test_timeout)
{
	Resolver *r = resolver(200 * USEC_PER_MSEC, 5 * USEC_PER_SEC, 8);
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	Answer a = {}, late = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	expect_answered(&a, 1, -ETIMEDOUT, 0);
	ck_assert_uint_ge(a.at_usec - start, 200 * USEC_PER_MSEC);
	ck_assert_uint_lt(a.at_usec - start, 2 * USEC_PER_SEC);
	(void)expect_get(r, 1000, -ENOENT);
	/* a later wait joins the same lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &late, NULL), 0);
	fake_release();
	expect_answered(&late, 1, 0, 29);
	ck_assert_uint_eq(fake_n_calls(), 1);
	(void)expect_get(r, 1000, 0);
}
END_TEST

static void count_free(void *userdata)
{
	(*(unsigned *)userdata)++;
}

/* The pool stops at its cap (the rest queue), the cache at its size: when
 * every entry is a lookup in flight a new uid is refused; answered ones
 * are reused. So do the waits at RESOLVER_WAITS_MAX. */
START_TEST(test_bounded)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 3);
	Answer a = {};

	fake_hang_all();
	for (uid_t uid = 2000; uid < 2000 + RESOLVER_CACHE_SIZE; uid++)
		ck_assert_int_eq(resolver_wait(r, uid, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), -EBUSY);
	/* the threads start (slowly on a loaded machine), and no more */
	for (int i = 0; i < 2000 && fake_n_calls() < 3; i++)
		usleep(1000);
	usleep(50000);
	ck_assert_uint_eq(helper_n_threads(), 3);
	ck_assert_uint_eq(fake_n_calls(), 3);
	fake_release();
	run_until(&a.n, RESOLVER_CACHE_SIZE);
	ck_assert_uint_eq(helper_n_threads(), 3);
	/* the oldest answer makes room */
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), 0);
	expect_answered(&a, RESOLVER_CACHE_SIZE + 1, 0, 29);

	/* and the waits, whatever uid they are for */
	fake_hang_all();
	for (unsigned i = 0; i < RESOLVER_WAITS_MAX; i++)
		ck_assert_int_eq(resolver_wait(r, 7000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 7000, on_done, &a, NULL), -EBUSY);
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), -EBUSY);
	ck_assert_uint_eq(resolver_n_lookups(r), RESOLVER_CACHE_SIZE + 2);
}
END_TEST

/* Waits never answered are freed with the resolver, and so is the NSS
 * helper, with the worker stuck in a lookup (test-daemon-nss-helper.c
 * checks it is gone). */
START_TEST(test_free_pending)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 2);
	unsigned freed = 0;
	Answer a = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &freed, count_free), 0);
	resolver_fixture_free();
	ck_assert_uint_eq(freed, 1);
	ck_assert_uint_eq(a.n, 0);
	fake_release();
}
END_TEST

int main(void)
{
	return resolver_check_run("nss-helper-run", "pool",
				  CHECK_TESTS(test_one_lookup_per_uid,
					      test_hung_lookup_blocks_no_one_else, test_timeout,
					      test_bounded, test_free_pending));
}
