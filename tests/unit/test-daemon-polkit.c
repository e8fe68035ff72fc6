/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/polkit.c without a bus.
 *
 * The reuse cache, which spares polkitd a round trip for a burst of
 * requests of one process: a "yes" is kept for POLKIT_CACHE_USEC and not a
 * microsecond longer, and only for the same action, subject (process: pid
 * and start time, a reused pid is another process; or connection: its
 * unique name) and uid; a "no" only for a connection (a manage call), for
 * POLKIT_NO_CACHE_USEC; a flush (polkitd's Authority.Changed, a reload)
 * forgets every answer; a full cache gives up the answer that ends first.
 * The cache takes the time from its caller, so no clock is needed.
 *
 * The pools of pending checks stay below dbus-daemon's replies per
 * connection (test-daemon-request asks them through a bus).
 *
 * The question itself and its answer: test-daemon-polkit-message.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "check-main.h"
#include "polkit.h"

#define T0 (1000ULL * 1000000ULL)

static PolkitCacheEntry key(const char *action, pid_t pid, uint64_t start_time, uid_t uid)
{
	PolkitCacheEntry k = { .pid = pid, .start_time = start_time, .uid = uid };

	snprintf(k.action, sizeof(k.action), "%s", action);
	return k;
}

START_TEST(test_yes_is_kept_for_its_time)
{
	PolkitCache c = {};
	PolkitCacheEntry k = key("org.realtimed.acquire-realtime", 4242, 777, 1000);

	ck_assert(!polkit_cache_find(&c, &k, T0));
	polkit_cache_put(&c, &k, 1, T0);
	ck_assert(polkit_cache_find(&c, &k, T0));
	ck_assert(polkit_cache_find(&c, &k, T0 + POLKIT_CACHE_USEC - 1));
	ck_assert(!polkit_cache_find(&c, &k, T0 + POLKIT_CACHE_USEC));
	ck_assert(!polkit_cache_find(&c, &k, T0 + 10 * POLKIT_CACHE_USEC));
}
END_TEST

/* A "no" may become a "yes" (the user's session turns active), and a
 * failure says nothing: neither is kept. */
START_TEST(test_no_and_failure_are_not_kept)
{
	PolkitCache c = {};
	PolkitCacheEntry k = key("org.realtimed.acquire-realtime", 4242, 777, 1000);

	polkit_cache_put(&c, &k, 0, T0);
	ck_assert(!polkit_cache_find(&c, &k, T0));
	polkit_cache_put(&c, &k, -EHOSTUNREACH, T0);
	ck_assert(!polkit_cache_find(&c, &k, T0));
	polkit_cache_put(&c, &k, -ETIMEDOUT, T0);
	ck_assert(!polkit_cache_find(&c, &k, T0));
}
END_TEST

START_TEST(test_other_subjects_miss)
{
	PolkitCache c = {};
	PolkitCacheEntry k = key("org.realtimed.acquire-realtime", 4242, 777, 1000), o;

	polkit_cache_put(&c, &k, 1, T0);
	o = key("org.realtimed.acquire-high-priority", 4242, 777, 1000);
	ck_assert(!polkit_cache_find(&c, &o, T0));
	o = key("org.realtimed.acquire-realtime", 4242, 777, 1001);
	ck_assert(!polkit_cache_find(&c, &o, T0));
	o = key("org.realtimed.acquire-realtime", 4243, 777, 1000);
	ck_assert(!polkit_cache_find(&c, &o, T0));
	/* the same pid, another process */
	o = key("org.realtimed.acquire-realtime", 4242, 778, 1000);
	ck_assert(!polkit_cache_find(&c, &o, T0));
	/* the expiry in a key is no part of the match */
	o = key("org.realtimed.acquire-realtime", 4242, 777, 1000);
	o.expires_usec = 5;
	ck_assert(polkit_cache_find(&c, &o, T0));
}
END_TEST

START_TEST(test_flush)
{
	PolkitCache c = {};
	PolkitCacheEntry a = key("org.realtimed.acquire-realtime", 1, 1, 1000),
			 b = key("org.realtimed.acquire-limits", 2, 2, 1001);

	polkit_cache_put(&c, &a, 1, T0);
	polkit_cache_put(&c, &b, 1, T0);
	polkit_cache_flush(&c);
	ck_assert(!polkit_cache_find(&c, &a, T0));
	ck_assert(!polkit_cache_find(&c, &b, T0));
}
END_TEST

/* POLKIT_CACHE_SIZE answers fit; one more pushes out the one that ends
 * first, and an expired one is reused before any live one. */
START_TEST(test_full)
{
	PolkitCache c = {};
	PolkitCacheEntry k;

	for (unsigned i = 0; i < POLKIT_CACHE_SIZE; i++) {
		k = key("org.realtimed.acquire-realtime", (pid_t)(100 + i), 1, 1000);
		polkit_cache_put(&c, &k, 1, T0 + i);
	}
	for (unsigned i = 0; i < POLKIT_CACHE_SIZE; i++) {
		k = key("org.realtimed.acquire-realtime", (pid_t)(100 + i), 1, 1000);
		ck_assert_msg(polkit_cache_find(&c, &k, T0 + POLKIT_CACHE_SIZE), "pid %u", 100 + i);
	}
	k = key("org.realtimed.acquire-realtime", 99, 1, 1000);
	polkit_cache_put(&c, &k, 1, T0 + POLKIT_CACHE_SIZE);
	ck_assert(polkit_cache_find(&c, &k, T0 + POLKIT_CACHE_SIZE));
	k = key("org.realtimed.acquire-realtime", 100, 1, 1000);
	ck_assert(!polkit_cache_find(&c, &k, T0 + POLKIT_CACHE_SIZE));
	k = key("org.realtimed.acquire-realtime", 101, 1, 1000);
	ck_assert(polkit_cache_find(&c, &k, T0 + POLKIT_CACHE_SIZE));
}
END_TEST

static PolkitCacheEntry manage_key(const char *bus_name, uid_t uid, bool interactive)
{
	PolkitCacheEntry k = { .uid = uid, .interactive = interactive };

	snprintf(k.action, sizeof(k.action), "org.realtimed.manage");
	snprintf(k.bus_name, sizeof(k.bus_name), "%s", bus_name);
	return k;
}

/* A connection's "no" to a manage call is kept POLKIT_NO_CACHE_USEC, for
 * that connection and that kind of question only; a "yes" replaces it. */
START_TEST(test_manage_no_is_kept_briefly)
{
	PolkitCache c = {};
	PolkitCacheEntry k = manage_key(":1.42", 1000, false), o;

	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0), -ENOENT);
	polkit_cache_put(&c, &k, 0, T0);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0), 0);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0 + POLKIT_NO_CACHE_USEC - 1), 0);
	ck_assert(!polkit_cache_find(&c, &k, T0));
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0 + POLKIT_NO_CACHE_USEC), -ENOENT);
	ck_assert_uint_lt(POLKIT_NO_CACHE_USEC, POLKIT_CACHE_USEC);

	/* another connection, or one that lets polkit ask for a password */
	o = manage_key(":1.43", 1000, false);
	ck_assert_int_eq(polkit_cache_lookup(&c, &o, T0), -ENOENT);
	o = manage_key(":1.42", 1000, true);
	ck_assert_int_eq(polkit_cache_lookup(&c, &o, T0), -ENOENT);

	/* a failure says nothing; a later "yes" replaces the "no" */
	polkit_cache_put(&c, &k, -ETIMEDOUT, T0 + 1);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0 + 1), 0);
	polkit_cache_put(&c, &k, 1, T0 + 2);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0 + 2), 1);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0 + POLKIT_NO_CACHE_USEC + 2), 1);
	/* and a "yes" answers an interactive call too */
	o = manage_key(":1.42", 1000, true);
	ck_assert_int_eq(polkit_cache_lookup(&c, &o, T0 + 2), 1);
}
END_TEST

/* A grant's "no" is still never kept, nor a connection's answer used for
 * a process of the same uid. */
START_TEST(test_grant_no_not_kept)
{
	PolkitCache c = {};
	PolkitCacheEntry k = key("org.realtimed.manage", 4242, 777, 1000),
			 m = manage_key(":1.42", 1000, false);

	polkit_cache_put(&c, &k, 0, T0);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0), -ENOENT);
	polkit_cache_put(&c, &m, 1, T0);
	ck_assert_int_eq(polkit_cache_lookup(&c, &k, T0), -ENOENT);
}
END_TEST

/* Every pending check is a reply dbus-daemon keeps for realtimed; past
 * max_replies_per_connection (128 on the system bus) it answers
 * LimitsExceeded: the pools stay below it, with room to spare.
 * (test-daemon-request asks the pools through a bus.) */
START_TEST(test_pools_below_bus_limit)
{
	ck_assert_uint_eq(POLKIT_BUS_MAX_REPLIES, 128);
	ck_assert_uint_ge(POLKIT_BUS_HEADROOM, 8);
	ck_assert_uint_le(POLKIT_PENDING_MAX + POLKIT_BUS_HEADROOM, POLKIT_BUS_MAX_REPLIES);
	ck_assert_uint_lt(POLKIT_MANAGE_PER_UID, POLKIT_MANAGE_MAX);
	ck_assert_uint_lt(POLKIT_GRANT_PER_UID, POLKIT_GRANT_MAX);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-polkit");

	check_add_case(s, "cache",
		       CHECK_TESTS(test_yes_is_kept_for_its_time, test_no_and_failure_are_not_kept,
				   test_other_subjects_miss, test_flush, test_full,
				   test_manage_no_is_kept_briefly, test_grant_no_not_kept));
	check_add_case(s, "pools", CHECK_TESTS(test_pools_below_bus_limit));
	return check_run(s);
}
