/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/users.c, the one table of per-user state: it is
 * bounded, and a crowd of uids that fills it never gets a newcomer
 * refused: the newcomer takes the place of the user active longest ago
 * that holds nothing in flight; users with something in flight (a call
 * waiting, a polkit check, a cool-down) are never evicted, and when every
 * entry holds something newcomers share the overflow entry; a crowd that
 * keeps no refusals takes its own places first. The rate of
 * actions is a window per user; the canary's cool-down extends, never
 * shortens.
 */
#include <check.h>
#include <stdlib.h>

#include "check-main.h"
#include "users.h"

#define MINUTE (60ULL * 1000000ULL)

static Users *users;

static void setup(void)
{
	ck_assert_int_eq(users_new(&users), 0);
}

static void teardown(void)
{
	users = users_free(users);
}

/* One action of uid at now, one per minute allowed. */
static bool act(uid_t uid, uint64_t now)
{
	User *u = users_get(users, uid, now);

	ck_assert_ptr_nonnull(u);
	return user_count_action(u, 1, MINUTE, now);
}

/* A full table: the newcomer is counted, in the place of the user active
 * longest ago (not the first that came), and everyone else keeps their
 * count. Before issue 31, a full table refused the newcomer
 * (RateLimited) without its having asked anything. */
START_TEST(test_full_counts_newcomer)
{
	uint64_t now = MINUTE;

	for (uid_t u = 0; u < USERS_MAX; u++)
		ck_assert(act(100000 + u, now + u));
	/* the first comes back: now the second is the one active longest ago */
	(void)users_get(users, 100000, now + USERS_MAX);
	ck_assert_uint_eq(users_count(users), USERS_MAX);
	ck_assert_msg(act(900000, now + USERS_MAX + 1), "a newcomer was refused");
	ck_assert_uint_eq(users_count(users), USERS_MAX);
	ck_assert_ptr_null(users_find(users, 100001));
	ck_assert_ptr_nonnull(users_find(users, 100000));
	/* the others still have their count: a second action within the minute */
	ck_assert(!act(100002, now + USERS_MAX + 2));
	ck_assert(!act(900000, now + USERS_MAX + 3));
}
END_TEST

/* Users with something in flight are never evicted: when every entry
 * holds something, a newcomer shares the overflow entry, which keeps no
 * refusals; one that holds nothing is evicted before any that does. */
START_TEST(test_holders_stay)
{
	uint64_t now = MINUTE;
	Refusal r = { .time_usec = 1 };
	const Refusal **l = NULL;
	User *u;
	size_t n;

	for (uid_t k = 0; k < USERS_MAX; k++) {
		u = users_get(users, 100000 + k, now + k);
		ck_assert_ptr_nonnull(u);
		/* by turns: a call waiting, a polkit check, a cool-down */
		if (k % 3 == 0)
			u->callers = 1;
		else if (k % 3 == 1)
			u->polkit_grant = 1;
		else
			ck_assert(users_cool_down(users, 100000 + k, now + 10 * MINUTE, now + k));
	}
	u = users_get(users, 900000, now + USERS_MAX);
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(u->uid, USER_OVERFLOW);
	for (uid_t k = 0; k < USERS_MAX; k++)
		ck_assert_ptr_nonnull(users_find(users, 100000 + k));
	/* nothing is kept for a user in the overflow */
	r.uid = 900000;
	refusal_set_strings(&r, "x", "FIFO 10", "PolicyDenied", "no", "");
	ck_assert_int_ge(refusals_add(users, &r, true, now + USERS_MAX, NULL), 0);
	ck_assert_int_eq(refusals_list(users, 900000, 0, &l, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* one user lets go of its call: it is the one a newcomer takes */
	users_find(users, 100300)->callers = 0;
	u = users_get(users, 900001, now + USERS_MAX + 1);
	ck_assert_uint_eq(u->uid, 900001);
	ck_assert_ptr_null(users_find(users, 100300));
}
END_TEST

/* A crowd of uids that keeps no refusals (NSS knows none of them) takes
 * its own places, not those of the users whose refusals are kept, even of
 * one active before the whole crowd came. */
START_TEST(test_crowd_keeps_refusals)
{
	Refusal r = { .uid = 1000, .time_usec = 1 };
	const Refusal **l = NULL;
	size_t n;

	refusal_set_strings(&r, "x", "FIFO 95", "PolicyDenied", "no", "");
	ck_assert_int_ge(refusals_add(users, &r, true, 1, NULL), 0);
	for (uid_t u = 0; u < 4 * USERS_MAX; u++)
		ck_assert(act(200000 + u, 2 + u));
	ck_assert_ptr_nonnull(users_find(users, 1000));
	ck_assert_int_eq(refusals_list(users, 1000, 0, &l, &n), 0);
	ck_assert_uint_eq(n, 1);
	free(l);
}
END_TEST

/* The canary's cool-down: a later end extends it, an earlier one does not
 * shorten it; over at its end. */
START_TEST(test_refuse)
{
	uint64_t now = MINUTE;

	ck_assert_uint_eq(user_cooldown_until(users_find(users, 1000), now), 0);
	ck_assert(users_cool_down(users, 1000, now + 9 * MINUTE, now));
	ck_assert(users_cool_down(users, 1000, now + MINUTE, now));
	ck_assert_uint_eq(user_cooldown_until(users_find(users, 1000), now), now + 9 * MINUTE);
	ck_assert_uint_eq(user_cooldown_until(users_find(users, 1000), now + 9 * MINUTE), 0);
	ck_assert_uint_eq(user_cooldown_until(users_find(users, 1001), now), 0);
}
END_TEST

/* The window of actions: burst of them, then none until it ends. */
START_TEST(test_action_window)
{
	User *u = users_get(users, 1000, MINUTE);

	for (int i = 0; i < 3; i++)
		ck_assert(user_count_action(u, 3, MINUTE, MINUTE + (uint64_t)i));
	ck_assert(!user_count_action(u, 3, MINUTE, MINUTE + 10));
	ck_assert(user_count_action(u, 3, MINUTE, 2 * MINUTE));
}
END_TEST

int main(void)
{
	return check_run_case("daemon-users", "users",
			      CHECK_TESTS(test_full_counts_newcomer, test_holders_stay,
					  test_crowd_keeps_refusals, test_refuse,
					  test_action_window),
			      setup, teardown);
}
