/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/refusals.c: each user's last refusals, in order;
 * a user's ring is bounded and one user never pushes out another's; the
 * table of users is bounded and forgets the user refused longest ago;
 * repeats and a rate-limited flood fold into one entry; a hostile comm is
 * kept as valid UTF-8; the journal is paced per user; a uid NSS does not
 * know has nothing kept, evicts no one, and shares one pace in the journal
 * with every such uid.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "macro.h"
#include "refusals.h"
#include "users.h"
#include "utf8.h"

static Users *log_;

static void setup(void)
{
	ck_assert_int_eq(users_new(&log_), 0);
}

static void teardown(void)
{
	log_ = users_free(log_);
}

/* Adds a refusal of uid, a user NSS knows or not, for thread tid asking
 * for "FIFO prio"; returns refusals_add()'s answer. */
static int add_user(uid_t uid, bool known, pid_t tid, int prio, uint64_t now)
{
	Refusal r = { .uid = uid, .pid = 100, .tid = tid, .time_usec = now };
	char asked[32];

	snprintf(asked, sizeof(asked), "FIFO %d", prio);
	refusal_set_strings(&r, "pipewire", asked, "PolicyDenied", "priority too high",
			    "/etc/realtime/realtime.conf:12");
	return refusals_add(log_, &r, known, now, NULL);
}

/* The same for a user NSS knows. */
static int add(uid_t uid, pid_t tid, int prio, uint64_t now)
{
	return add_user(uid, true, tid, prio, now);
}

/* The refusals of uid ((uid_t)-1: all) into *ret, *ret_n of them. */
static void list(uid_t uid, const Refusal ***ret, size_t *ret_n)
{
	free(*ret);
	*ret = NULL;
	ck_assert_int_eq(refusals_list(log_, uid, 0, ret, ret_n), 0);
}

/* How many refusals uid has. */
static size_t count_of(uid_t uid)
{
	const Refusal **l = NULL;
	size_t n;

	ck_assert_int_eq(refusals_list(log_, uid, 0, &l, &n), 0);
	free(l);
	return n;
}

START_TEST(test_order_and_bound)
{
	const Refusal **l = NULL;
	size_t n;

	for (int i = 0; i < REFUSALS_PER_USER + 10; i++)
		ck_assert_int_ge(add(1000, 200 + i, 1 + i % 99, 1000 + (uint64_t)i), 0);
	list(1000, &l, &n);
	/* the last 64, oldest first */
	ck_assert_uint_eq(n, REFUSALS_PER_USER);
	ck_assert_int_eq(l[0]->tid, 200 + 10);
	ck_assert_int_eq(l[n - 1]->tid, 200 + REFUSALS_PER_USER + 9);
	for (size_t i = 1; i < n; i++)
		ck_assert_uint_lt(l[i - 1]->seq, l[i]->seq);
	ck_assert_str_eq(l[0]->source, "/etc/realtime/realtime.conf:12");
	ck_assert_uint_eq(l[0]->count, 1);
	/* since: only the newer ones */
	free(l);
	ck_assert_int_eq(refusals_list(log_, 1000, 1000 + REFUSALS_PER_USER + 5, &l, &n), 0);
	ck_assert_uint_eq(n, 5);
	free(l);
}
END_TEST

START_TEST(test_users_apart)
{
	const Refusal **l = NULL;
	size_t n;

	ck_assert_int_ge(add(1001, 7, 80, 1), 0);
	/* another user floods: 1001's one refusal stays */
	for (int i = 0; i < 10 * REFUSALS_PER_USER; i++)
		ck_assert_int_ge(add(1002, 1000 + i, 90, 2 + (uint64_t)i), 0);
	list(1001, &l, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(l[0]->tid, 7);
	ck_assert_str_eq(l[0]->asked, "FIFO 80");
	list(1002, &l, &n);
	ck_assert_uint_eq(n, REFUSALS_PER_USER);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_eq(l[i]->uid, 1002);
	/* everyone's, in the order they came: 1001's first */
	list((uid_t)-1, &l, &n);
	ck_assert_uint_eq(n, REFUSALS_PER_USER + 1);
	ck_assert_uint_eq(l[0]->uid, 1001);
	/* a user never refused has none */
	list(1003, &l, &n);
	ck_assert_ptr_null(l);
	ck_assert_uint_eq(count_of(1003), 0);
}
END_TEST

START_TEST(test_users_bounded)
{
	for (uid_t u = 0; u < USERS_MAX; u++)
		ck_assert_int_ge(add(10000 + u, 1, 50, u), 0);
	/* user 10000, the longest unrefused, is refused again: 10001 is now */
	ck_assert_int_ge(add(10000, 1, 51, USERS_MAX), 0);
	ck_assert_int_ge(add(99999, 1, 50, USERS_MAX + 1), 0);
	ck_assert_uint_eq(users_count(log_), USERS_MAX);
	ck_assert_uint_eq(count_of(10001), 0);
	ck_assert_uint_eq(count_of(10000), 2);
	ck_assert_uint_eq(count_of(99999), 1);
}
END_TEST

START_TEST(test_fold)
{
	const Refusal **l = NULL;
	Refusal r = { .uid = 1000, .pid = 5, .tid = 6, .rate_limited = true };
	size_t n;

	ck_assert_int_ge(add(1000, 6, 95, 1), 0);
	ck_assert_int_ge(add(1000, 6, 95, 2), 0);
	ck_assert_int_ge(add(1000, 6, 95, 3), 0);
	list(1000, &l, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(l[0]->count, 3);
	ck_assert_uint_eq(l[0]->time_usec, 3);
	/* a flood of rate-limited refusals, whatever each asked: one entry */
	for (int i = 0; i < 1000; i++) {
		r.tid = 6 + i;
		r.time_usec = 10 + (uint64_t)i;
		refusal_set_strings(&r, "flood", i % 2 ? "nice -5" : "FIFO 5", "RateLimited",
				    "too many requests", NULL);
		ck_assert_int_ge(refusals_add(log_, &r, true, r.time_usec, NULL), 0);
	}
	list(1000, &l, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(l[0]->asked, "FIFO 95");
	ck_assert_uint_eq(l[1]->count, 1000);
	ck_assert_int_eq(l[1]->tid, 6 + 999);
	free(l);
}
END_TEST

START_TEST(test_hostile_strings)
{
	/* what a thread may name itself: any bytes but NUL */
	static const char comm[] = "\xff\xfe\x01pw\xed\xa0\x80\xc3";
	const Refusal **l = NULL;
	Refusal r = { .uid = 1000 };
	char reason[2000];
	size_t n;

	memset(reason, 'x', sizeof(reason) - 3);
	memcpy(reason + sizeof(reason) - 3, "\xc3\xa9", 3);
	refusal_set_strings(&r, comm, "FIFO 5", "PolicyDenied", reason, "\x80.conf:1");
	ck_assert_int_ge(refusals_add(log_, &r, true, 1, NULL), 0);
	list(1000, &l, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(l[0]->comm, "\\xff\\xfe\\x01pw\\xed\\xa0\\x80\\xc3");
	ck_assert_str_eq(l[0]->source, "\\x80.conf:1");
	ck_assert_uint_lt(strlen(l[0]->reason), sizeof(l[0]->reason));
	for (const char *s = l[0]->reason; *s;) {
		size_t k = utf8_char_len(s, strlen(s));

		ck_assert_uint_gt(k, 0);
		s += k;
	}
	free(l);
}
END_TEST

START_TEST(test_journal_paced)
{
	Refusal r = { .uid = 1000, .time_usec = 5 };
	unsigned unlogged = 0, logged = 0;
	int k;

	for (int i = 0; i < 3 * REFUSALS_JOURNAL_BURST; i++) {
		k = add(1000, 1 + i, 50, 1000 + (uint64_t)i);
		ck_assert_int_ge(k, 0);
		logged += k > 0;
	}
	ck_assert_uint_eq(logged, REFUSALS_JOURNAL_BURST);
	/* another user is logged all the same */
	ck_assert_int_eq(add(2000, 1, 50, 2000), 1);
	/* after the window, the next line says how many were not logged */
	refusal_set_strings(&r, "x", "nice -20", "PolicyDenied", "no", NULL);
	k = refusals_add(log_, &r, true, 1000 + REFUSALS_JOURNAL_INTERVAL_USEC, &unlogged);
	ck_assert_int_eq(k, 1);
	ck_assert_uint_eq(unlogged, 2 * REFUSALS_JOURNAL_BURST);
}
END_TEST

/* A crowd of uids NSS does not know (one person's /etc/subuid range, on a
 * bus that accepts any uid) is refused: none of it is kept, and the users
 * NSS knows keep theirs, even with the table of users full. */
START_TEST(test_unknown_users)
{
	unsigned unlogged = 0, logged = 0;
	Refusal r = { .uid = 300000 };
	int k;

	for (uid_t u = 0; u < USERS_MAX; u++)
		ck_assert_int_ge(add(10000 + u, 1, 50, 1 + u), 0);
	for (uid_t u = 0; u < 4 * USERS_MAX; u++) {
		k = add_user(200000 + u, false, 1, 50, 10000 + u);
		ck_assert_int_ge(k, 0);
		logged += k > 0;
	}
	ck_assert_uint_eq(count_of(200000), 0);
	ck_assert_uint_eq(count_of(200000 + 4 * USERS_MAX - 1), 0);
	ck_assert_uint_eq(users_count(log_), USERS_MAX);
	ck_assert_uint_eq(count_of(10000), 1);
	ck_assert_uint_eq(count_of(10000 + USERS_MAX - 1), 1);
	/* their journal lines share one pace: the crowd floods no journal */
	ck_assert_uint_eq(logged, REFUSALS_JOURNAL_BURST);
	/* and does not take a known user's */
	ck_assert_int_eq(add(10000, 2, 50, 20000), 1);
	/* after the window, the next says how many of them were not logged */
	refusal_set_strings(&r, "x", "nice -20", "NoSuchProcess", "no", NULL);
	k = refusals_add(log_, &r, false, 10000 + REFUSALS_JOURNAL_INTERVAL_USEC, &unlogged);
	ck_assert_int_eq(k, 1);
	ck_assert_uint_eq(unlogged, 4 * USERS_MAX - REFUSALS_JOURNAL_BURST);
	ck_assert_uint_eq(count_of(300000), 0);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-refusals", "refusals",
			      CHECK_TESTS(test_order_and_bound, test_users_apart,
					  test_users_bounded, test_fold, test_hostile_strings,
					  test_journal_paced, test_unknown_users),
			      setup, teardown);
}
