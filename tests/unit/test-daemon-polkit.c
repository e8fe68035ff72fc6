/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the reuse cache of daemon/polkit.c, which spares polkitd
 * a round trip for a burst of requests of one process: only a "yes" is
 * kept, for POLKIT_CACHE_USEC and not a microsecond longer, and only for
 * the same action, process (pid and start time: a reused pid is another
 * process) and uid; a flush (polkitd's Authority.Changed, a reload)
 * forgets every answer; a full cache gives up the answer that ends first.
 * The cache takes the time from its caller, so no clock is needed.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>

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

int main(void)
{
	Suite *s = suite_create("daemon-polkit");

	check_add_case(s, "cache",
		       CHECK_TESTS(test_yes_is_kept_for_its_time, test_no_and_failure_are_not_kept,
				   test_other_subjects_miss, test_flush, test_full));
	return check_run(s);
}
