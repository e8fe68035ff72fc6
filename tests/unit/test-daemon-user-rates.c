/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/user-rates.c: each kind's table is bounded, and a
 * crowd of uids that fills it never gets a newcomer refused: the newcomer
 * is counted, in the place of the idlest user (whose window began first),
 * and one kind's crowd evicts no one of another kind.
 */
#include <check.h>

#include "check-main.h"
#include "user-rates.h"

#define MINUTE (60ULL * 1000000ULL)

static UserRates *rates;

static void setup(void)
{
	ck_assert_int_eq(user_rates_new(&rates), 0);
}

static void teardown(void)
{
	rates = user_rates_free(rates);
}

/* One event of uid's kind at now, one per minute allowed. */
static bool count(uid_t uid, UserRateKind kind, uint64_t now)
{
	return user_rates_count(rates, uid, kind, MINUTE, 1, now);
}

/* A full table: the newcomer is counted, the idlest user (whose window
 * began first, not the first that came) gives way, and everyone else
 * keeps their count. */
START_TEST(test_full_counts_newcomer)
{
	const uid_t last = 1000 + USER_LIMITS_MAX - 1;

	/* every user at its limit, 1000 first */
	for (uid_t u = 1000; u <= last; u++)
		ck_assert_msg(count(u, USER_RATE_GRANT, 1 + u - 1000), "uid %u", u);
	/* 1000's window passed and began again: 1001's began first now */
	ck_assert(count(1000, USER_RATE_GRANT, MINUTE + 1));
	ck_assert(!count(1001, USER_RATE_GRANT, MINUTE + 1));

	/* a user who never asked: counted, not refused */
	ck_assert(count(900000, USER_RATE_GRANT, MINUTE + 1));
	ck_assert(!count(900000, USER_RATE_GRANT, MINUTE + 2));
	/* the others still count where they were */
	ck_assert(!count(1000, USER_RATE_GRANT, MINUTE + 2));
	ck_assert(!count(1002, USER_RATE_GRANT, MINUTE + 2));
	ck_assert(!count(last, USER_RATE_GRANT, MINUTE + 2));
	/* the idlest was forgotten: its next event starts afresh */
	ck_assert(count(1001, USER_RATE_GRANT, MINUTE + 3));
}
END_TEST

/* Each kind is bounded apart: a crowd making manage calls, or searching
 * through a pid namespace, neither evicts a user's grant count nor is
 * refused for the table being full. */
START_TEST(test_kinds_apart)
{
	ck_assert(count(1000, USER_RATE_GRANT, 1));
	ck_assert(!count(1000, USER_RATE_GRANT, 2));
	for (uid_t u = 0; u < 2 * MANAGE_LIMITS_MAX; u++)
		ck_assert_msg(count(200000 + u, USER_RATE_MANAGE, 10 + u), "uid %u", 200000 + u);
	for (uid_t u = 0; u < 2 * SEARCH_LIMITS_MAX; u++)
		ck_assert_msg(count(300000 + u, USER_RATE_SEARCH, 10 + u), "uid %u", 300000 + u);
	ck_assert(!count(1000, USER_RATE_GRANT, 20000));
	/* nor do the kinds of one user share a count */
	ck_assert(count(1000, USER_RATE_MANAGE, 20001));
	ck_assert(count(1000, USER_RATE_SEARCH, 20002));
}
END_TEST

int main(void)
{
	return check_run_case("daemon-user-rates", "user-rates",
			      CHECK_TESTS(test_full_counts_newcomer, test_kinds_apart), setup,
			      teardown);
}
