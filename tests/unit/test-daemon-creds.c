/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/creds.c, the callers' credentials kept per unique
 * name: what is kept is what comes back, a name the bus said is gone
 * answers -ESRCH, a name kept again is updated in place (its pid
 * namespace with it), and a full cache gives up a gone name before a
 * caller's credentials, so that senders that leave at once cost the others
 * one entry at most.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>

#include "check-main.h"
#include "creds.h"

static CredsCache *cache(void)
{
	CredsCache *c;

	ck_assert_int_eq(creds_cache_new(&c), 0);
	return c;
}

/* ":1.N" */
static const char *name(unsigned n)
{
	static char buf[16];

	snprintf(buf, sizeof(buf), ":1.%u", n);
	return buf;
}

START_TEST(test_kept)
{
	CredsCache *c = cache();
	uint64_t pidns = 0;
	uid_t uid = 0;
	pid_t pid = 0;

	ck_assert_int_eq(creds_cache_get(c, ":1.1", &uid, &pid), -ENOENT);
	ck_assert_int_eq(creds_cache_put(c, ":1.1", 1000, 42), 0);
	ck_assert_int_eq(creds_cache_get(c, ":1.1", &uid, &pid), 0);
	ck_assert_uint_eq(uid, 1000);
	ck_assert_int_eq(pid, 42);
	ck_assert_int_eq(creds_cache_set_pidns(c, ":1.1", 7), 0);
	/* kept again: one entry, its pid namespace still known */
	ck_assert_int_eq(creds_cache_put(c, ":1.1", 1000, 42), 0);
	ck_assert_int_eq(creds_cache_get_pidns(c, ":1.1", &pidns), 0);
	ck_assert_uint_eq(pidns, 7);

	ck_assert_int_eq(creds_cache_put_gone(c, ":1.2"), 0);
	ck_assert_int_eq(creds_cache_get(c, ":1.2", &uid, &pid), -ESRCH);
	creds_cache_free(c);
}
END_TEST

/* A full cache of callers: a stream of gone names takes one entry, the
 * least recently used, and then only each other's. */
START_TEST(test_gone_evicted_first)
{
	CredsCache *c = cache();
	uid_t uid;
	pid_t pid;
	unsigned lost = 0;

	for (unsigned n = 0; n < CREDS_CACHE_SIZE; n++)
		ck_assert_int_eq(creds_cache_put(c, name(n), 1000 + n, (pid_t)n), 0);
	/* :1.0 is used now: :1.1 is the least recently used */
	ck_assert_int_eq(creds_cache_get(c, name(0), &uid, &pid), 0);
	for (unsigned n = 0; n < 3 * CREDS_CACHE_SIZE; n++)
		ck_assert_int_eq(creds_cache_put_gone(c, name(100000 + n)), 0);
	for (unsigned n = 0; n < CREDS_CACHE_SIZE; n++)
		if (creds_cache_get(c, name(n), &uid, &pid) < 0)
			lost++;
		else
			ck_assert_uint_eq(uid, 1000 + n);
	ck_assert_uint_eq(lost, 1);
	ck_assert_int_eq(creds_cache_get(c, name(1), &uid, &pid), -ENOENT);
	/* the newest gone name is kept; a caller put now takes its entry */
	ck_assert_int_eq(creds_cache_get(c, name(100000 + 3 * CREDS_CACHE_SIZE - 1), &uid, &pid),
			 -ESRCH);
	ck_assert_int_eq(creds_cache_put(c, name(1), 1001, 1), 0);
	ck_assert_int_eq(creds_cache_get(c, name(100000 + 3 * CREDS_CACHE_SIZE - 1), &uid, &pid),
			 -ENOENT);
	for (unsigned n = 0; n < CREDS_CACHE_SIZE; n++)
		ck_assert_int_eq(creds_cache_get(c, name(n), &uid, &pid), 0);
	creds_cache_free(c);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-creds", "creds",
			      CHECK_TESTS(test_kept, test_gone_evicted_first), NULL, NULL);
}
