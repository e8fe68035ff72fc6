/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for daemon/ratelimit.c: the per-user request limit and the log limit. */
#include <check.h>
#include <stdlib.h>

#include "check-main.h"
#include "ratelimit.h"

START_TEST(test_burst_then_refuse)
{
	RateLimit rl = { .interval_usec = 1000000, .burst = 3 };

	ck_assert(ratelimit_below(&rl, 10));
	ck_assert(ratelimit_below(&rl, 20));
	ck_assert(ratelimit_below(&rl, 30));
	ck_assert(!ratelimit_below(&rl, 40));
	ck_assert(!ratelimit_below(&rl, 999999));
	ck_assert(!ratelimit_idle(&rl, 500000));
}
END_TEST

START_TEST(test_window_resets)
{
	RateLimit rl = { .interval_usec = 1000000, .burst = 2 };

	ck_assert(ratelimit_below(&rl, 5));
	ck_assert(ratelimit_below(&rl, 6));
	ck_assert(!ratelimit_below(&rl, 7));
	ck_assert(ratelimit_idle(&rl, 1000005));
	ck_assert(ratelimit_below(&rl, 1000005));
	ck_assert(ratelimit_below(&rl, 1000006));
	ck_assert(!ratelimit_below(&rl, 1000007));
}
END_TEST

START_TEST(test_disabled)
{
	RateLimit off1 = { .interval_usec = 0, .burst = 1 };
	RateLimit off2 = { .interval_usec = 1000, .burst = 0 };

	for (int i = 0; i < 1000; i++) {
		ck_assert(ratelimit_below(&off1, i));
		ck_assert(ratelimit_below(&off2, i));
	}
}
END_TEST

START_TEST(test_clock_going_back)
{
	RateLimit rl = { .interval_usec = 1000, .burst = 1 };

	ck_assert(ratelimit_below(&rl, 5000));
	ck_assert(!ratelimit_below(&rl, 5001));
	/* A clock that went backwards starts a new window rather than locking out forever. */
	ck_assert(ratelimit_below(&rl, 100));
}
END_TEST

START_TEST(test_time_zero)
{
	RateLimit rl = { .interval_usec = 1000, .burst = 1 };

	ck_assert(ratelimit_below(&rl, 0));
	ck_assert(!ratelimit_below(&rl, 0));
}
END_TEST

int main(void)
{
	return check_run_case("daemon-ratelimit", "ratelimit",
			      CHECK_TESTS(test_burst_then_refuse, test_window_resets, test_disabled,
					  test_clock_going_back, test_time_zero),
			      NULL, NULL);
}
