/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/creds.c, the callers' credentials kept per unique
 * name: each name has its own uid and pid; a full cache gives up the entry
 * used least recently (a lookup counts as a use), never the others, and
 * holds CREDS_CACHE_SIZE at most however many callers come; the pid
 * namespace kept beside an entry goes with it and starts unknown (0) for
 * a newcomer in its place.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>

#include "check-main.h"
#include "creds.h"

/* The unique name of caller i, as the bus numbers them. */
static const char *name(unsigned i)
{
	static char buf[4][32];
	static unsigned next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), ":1.%u", i);
	return b;
}

/* That c keeps caller i with uid and pid, or (uid -1) nothing. */
static void expect(CredsCache *c, unsigned i, uid_t uid, pid_t pid)
{
	uid_t u = 4242;
	pid_t p = 4242;
	int r = creds_cache_get(c, name(i), &u, &p);

	if (uid == (uid_t)-1) {
		ck_assert_msg(r == -ENOENT, "%s is kept (uid %u)", name(i), (unsigned)u);
		/* untouched on failure */
		ck_assert_uint_eq(u, 4242);
		ck_assert_int_eq(p, 4242);
		return;
	}
	ck_assert_msg(r == 0, "%s is not kept", name(i));
	ck_assert_uint_eq(u, uid);
	ck_assert_int_eq(p, pid);
}

START_TEST(test_per_unique_name)
{
	CredsCache *c = NULL;
	uint64_t ns = 7;

	ck_assert_int_eq(creds_cache_new(&c), 0);
	expect(c, 1, (uid_t)-1, 0);
	ck_assert_int_eq(creds_cache_get_pidns(c, name(1), &ns), -ENOENT);
	ck_assert_uint_eq(ns, 7);
	ck_assert_int_eq(creds_cache_set_pidns(c, name(1), 99), -ENOENT);

	ck_assert_int_eq(creds_cache_put(c, name(1), 1000, 100), 0);
	ck_assert_int_eq(creds_cache_put(c, name(2), 0, 200), 0);
	expect(c, 1, 1000, 100);
	expect(c, 2, 0, 200);
	/* a name is the whole name: ":1.1" is not ":1.10" */
	expect(c, 10, (uid_t)-1, 0);
	ck_assert_ptr_null(creds_cache_free(c));
	ck_assert_ptr_null(creds_cache_free(NULL));
}
END_TEST

/* Full: each newcomer takes the place of the entry used least recently;
 * the one just looked up stays. */
START_TEST(test_lru_eviction)
{
	CredsCache *c = NULL;

	ck_assert_int_eq(creds_cache_new(&c), 0);
	for (unsigned i = 0; i < CREDS_CACHE_SIZE; i++)
		ck_assert_int_eq(creds_cache_put(c, name(i), 1000 + i, (pid_t)(100 + i)), 0);
	for (unsigned i = 0; i < CREDS_CACHE_SIZE; i++)
		expect(c, i, 1000 + i, (pid_t)(100 + i));
	/* caller 0 calls again: now caller 1 was used longest ago */
	expect(c, 0, 1000, 100);
	ck_assert_int_eq(creds_cache_put(c, name(CREDS_CACHE_SIZE), 5000, 500), 0);
	expect(c, 1, (uid_t)-1, 0);
	expect(c, 0, 1000, 100);
	expect(c, CREDS_CACHE_SIZE, 5000, 500);
	/* and then caller 2 */
	ck_assert_int_eq(creds_cache_put(c, name(CREDS_CACHE_SIZE + 1), 5001, 501), 0);
	expect(c, 2, (uid_t)-1, 0);
	expect(c, 3, 1003, 103);
	creds_cache_free(c);
}
END_TEST

/* A crowd of callers, each once: the last CREDS_CACHE_SIZE are kept. */
START_TEST(test_bounded)
{
	const unsigned n = 3 * CREDS_CACHE_SIZE + 5;
	CredsCache *c = NULL;
	unsigned kept = 0;

	ck_assert_int_eq(creds_cache_new(&c), 0);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(creds_cache_put(c, name(i), i, (pid_t)i + 1), 0);
	for (unsigned i = 0; i < n; i++) {
		uid_t u;
		pid_t p;

		if (creds_cache_get(c, name(i), &u, &p) == 0) {
			kept++;
			ck_assert_uint_ge(i, n - CREDS_CACHE_SIZE);
			ck_assert_uint_eq(u, i);
		}
	}
	ck_assert_uint_eq(kept, CREDS_CACHE_SIZE);
	creds_cache_free(c);
}
END_TEST

/* The pid namespace is kept beside its entry: unknown (0) until set, and
 * gone with it; the newcomer in its place starts unknown. */
START_TEST(test_pidns_beside)
{
	CredsCache *c = NULL;
	uint64_t ns = 7;

	ck_assert_int_eq(creds_cache_new(&c), 0);
	for (unsigned i = 0; i < CREDS_CACHE_SIZE; i++)
		ck_assert_int_eq(creds_cache_put(c, name(i), 1000 + i, (pid_t)(100 + i)), 0);
	ck_assert_int_eq(creds_cache_get_pidns(c, name(0), &ns), 0);
	ck_assert_uint_eq(ns, 0);
	ck_assert_int_eq(creds_cache_set_pidns(c, name(0), 4026531836ULL), 0);
	ck_assert_int_eq(creds_cache_set_pidns(c, name(1), 4026532000ULL), 0);
	ck_assert_int_eq(creds_cache_get_pidns(c, name(0), &ns), 0);
	ck_assert_uint_eq(ns, 4026531836ULL);
	ck_assert_int_eq(creds_cache_get_pidns(c, name(1), &ns), 0);
	ck_assert_uint_eq(ns, 4026532000ULL);
	/* setting it is no use of the entry: caller 0 goes first */
	ck_assert_int_eq(creds_cache_put(c, name(CREDS_CACHE_SIZE), 5000, 500), 0);
	ck_assert_int_eq(creds_cache_get_pidns(c, name(0), &ns), -ENOENT);
	ck_assert_int_eq(creds_cache_get_pidns(c, name(CREDS_CACHE_SIZE), &ns), 0);
	ck_assert_uint_eq(ns, 0);
	/* the others keep theirs */
	ck_assert_int_eq(creds_cache_get_pidns(c, name(1), &ns), 0);
	ck_assert_uint_eq(ns, 4026532000ULL);
	creds_cache_free(c);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-creds", "cache",
			      CHECK_TESTS(test_per_unique_name, test_lru_eviction, test_bounded,
					  test_pidns_beside),
			      NULL, NULL);
}
