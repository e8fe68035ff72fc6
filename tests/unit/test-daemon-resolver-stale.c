/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/resolver.c's last good answer, over the fake
 * directory of resolver-fixture.c: while the directory fails or hangs, a
 * user resolved a moment ago is answered from what it last read (at once
 * for a failure, after the stale wait for a hang), for at most stale_max,
 * said once in the log; never after "no such user"; and a reload while
 * the directory is down keeps it. A lookup the NSS helper took with it
 * when it died is a failure like another.
 */
#include <check.h>
#include <errno.h>
#include <unistd.h>

#include "check-main.h"
#include "log-fixture.h"
#include "resolver-fixture.h"

/* The directory fails: a user resolved a moment ago gets the last good
 * answer (never a newer one it could not have read), at once and again
 * within the lifetime without a lookup; a user never resolved gets the
 * error; once the directory answers, the fresh answer counts. */
START_TEST(test_stale_after_failure)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 8);
	Answer a = {}, never = {};

	log_capture();
	resolve_then_expire(r, 1000, &a, 100000);
	fake_set(30, -EIO);
	expect_answer(r, 1000, &a, 0, 29, 0);
	ck_assert_uint_eq(fake_n_calls(), 2);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_eq(fake_n_calls(), 2);
	/* said once for the outage, not at each answer */
	ck_assert_uint_eq(log_count_lines("uid 1000: serving its last good answer"), 1);

	expect_answer(r, 1001, &never, -EIO, 0, -ENOENT);

	/* the directory is back: after the lifetime, asked again */
	fake_set(30, 0);
	usleep(150000);
	(void)expect_get(r, 1000, -ENOENT);
	expect_answer(r, 1000, &a, 0, 30, 0);
}
END_TEST

/* The directory hangs: a user resolved a moment ago gets the last good
 * answer after the stale wait, well before the timeout, and the next
 * waits at once while the lookup still hangs; a user never resolved waits
 * for the timeout. When the hung lookup returns, its answer counts. */
START_TEST(test_stale_after_hang)
{
	Resolver *r = resolver_stale(2 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 300 * USEC_PER_MSEC,
				     60 * USEC_PER_SEC);
	const PolicyUser *u;
	Answer a = {}, never = {};
	uint64_t start;

	resolve_then_expire(r, 1000, &a, 100000);
	fake_hang_all();
	fake_set(30, 0);
	start = now_usec(CLOCK_MONOTONIC);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 1001, on_done, &never, NULL), 0);
	expect_answered(&a, 2, 0, 29);
	ck_assert_uint_ge(a.at_usec - start, 300 * USEC_PER_MSEC);
	ck_assert_uint_lt(a.at_usec - start, 1500 * USEC_PER_MSEC);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 29);
	start = now_usec(CLOCK_MONOTONIC);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_lt(a.at_usec - start, 100 * USEC_PER_MSEC);
	ck_assert_uint_eq(resolver_n_lookups(r), 3);

	expect_answered(&never, 1, -ETIMEDOUT, 0);

	/* the directory answers again: the stale answer is not served on */
	fake_release();
	start = now_usec(CLOCK_MONOTONIC);
	while (resolver_get(r, 1000, &u) == 0 && u->gids[0] == 29 &&
	       now_usec(CLOCK_MONOTONIC) < start + 5 * USEC_PER_SEC)
		ck_assert_int_ge(sd_event_run(fixture_event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 30);
}
END_TEST

/* The NSS helper dies in a lookup (a module that crashes): a user
 * resolved a moment ago gets the last good answer, as for any failure. */
START_TEST(test_stale_after_helper_lost)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 8);
	Answer a = {}, never = {};

	log_capture();
	resolve_then_expire(r, 1000, &a, 100000);
	fake_crash(1000);
	expect_answer(r, 1000, &a, 0, 29, 0);
	ck_assert_uint_eq(log_count_lines("uid 1000: serving its last good answer (read 0 s ago) "
					  "while NSS failed (Connection reset by peer)"),
			  1);
	fake_crash(1001);
	expect_answer(r, 1001, &never, -ECONNRESET, 0, -ENOENT);
}
END_TEST

/* The last good answer is served for stale_max after it was read, not
 * beyond: then the failure, or the timeout, is the answer. */
START_TEST(test_stale_bounded)
{
	Resolver *r = resolver_stale(500 * USEC_PER_MSEC, 100 * USEC_PER_MSEC, 100 * USEC_PER_MSEC,
				     400 * USEC_PER_MSEC);
	Answer a = {};

	resolve_then_expire(r, 1000, &a, 100000);
	fake_set(30, -EIO);
	expect_wait(r, 1000, &a, 0, 29);
	usleep(300000); /* 450 ms and more since the answer was read */
	(void)expect_get(r, 1000, -ENOENT);
	expect_answer(r, 1000, &a, -EIO, 0, -ENOENT);

	/* and a hung lookup times out */
	fake_set(29, 0);
	resolve_then_expire(r, 1001, &a, 100000);
	usleep(400000);
	fake_hang_all();
	expect_answer(r, 1001, &a, -ETIMEDOUT, 0, -ENOENT);
}
END_TEST

/* "No such user" is an answer: a user deleted in the directory is not
 * brought back by the answer from before, when the directory then fails. */
START_TEST(test_stale_not_after_esrch)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 8);
	Answer a = {};

	resolve_then_expire(r, 1000, &a, 100000);
	fake_set(29, -ESRCH);
	expect_answer(r, 1000, &a, -ESRCH, 0, -ESRCH);
	usleep(150000);
	fake_set(29, -EIO);
	expect_answer(r, 1000, &a, -EIO, 0, -ENOENT);
}
END_TEST

/* A flush (a reload) asks the directory again, and a fresh answer counts
 * at once; but a reload while the directory is down keeps the last good
 * answer as the fallback, so it demotes no one who had realtime. */
START_TEST(test_flush_keeps_stale)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	expect_wait(r, 1000, &a, 0, 29);
	fake_set(30, -EIO);
	resolver_flush(r);
	(void)expect_get(r, 1000, -ENOENT);
	expect_answer(r, 1000, &a, 0, 29, 0);

	fake_set(30, 0);
	resolver_flush(r);
	(void)expect_get(r, 1000, -ENOENT);
	expect_wait(r, 1000, &a, 0, 30);
}
END_TEST

int main(void)
{
	return resolver_check_run("daemon-resolver-stale", "stale",
				  CHECK_TESTS(test_stale_after_failure, test_stale_after_hang,
					      test_stale_after_helper_lost, test_stale_bounded,
					      test_stale_not_after_esrch, test_flush_keeps_stale));
}
