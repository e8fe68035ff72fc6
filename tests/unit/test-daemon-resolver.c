/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/resolver.c's cache, over the fake directory of
 * resolver-fixture.c: results are used for the lifetime, then looked up
 * again ("no such user" is cached too), and dropped by a flush (a lookup
 * in flight at the flush, or a wait due to be answered from a result the
 * flush ends, is asked again); a result that expires while its waits are
 * answered starts a lookup of its own. Its lookups on worker threads:
 * test-nss-helper-run.c; the last good answer:
 * test-daemon-resolver-stale.c; the NSS helper they run in:
 * test-daemon-nss-helper.c.
 */
#include <check.h>
#include <errno.h>
#include <unistd.h>

#include "check-main.h"
#include "resolver-fixture.h"

/* A result is used for the lifetime, then looked up again. */
START_TEST(test_expiry)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 200 * USEC_PER_MSEC, 8);
	Answer a = {};

	expect_answer(r, 1000, &a, 0, 29, 0);
	/* a wait on a result at hand is answered from the loop, not by lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_uint_eq(a.n, 1);
	run_until(&a.n, 2);
	ck_assert_uint_eq(fake_n_calls(), 1);
	usleep(250000);
	(void)expect_get(r, 1000, -ENOENT);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_eq(fake_n_calls(), 2);
}
END_TEST

/* A flush (a reload) drops what is cached. */
START_TEST(test_flush_drops_cache)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, NO_SUCH_UID, on_done, &a, NULL), 0);
	run_until(&a.n, 2);
	(void)expect_get(r, 1000, 0);
	(void)expect_get(r, NO_SUCH_UID, -ESRCH); /* cached too */
	resolver_flush(r);
	(void)expect_get(r, 1000, -ENOENT);
	(void)expect_get(r, NO_SUCH_UID, -ENOENT);
}
END_TEST

/* A lookup in flight at a flush does not refill the cache with what it
 * read before: the uid is asked again, and the waits get the new answer. */
START_TEST(test_flush_in_flight)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	fake_hang(1000);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	while (fake_n_calls() == 0)
		usleep(1000);
	resolver_flush(r);
	/* what the lookup in flight returns was read before the flush... */
	fake_release();
	/* ...and the directory changed: the second lookup sees it */
	fake_set(30, 0);
	expect_answered(&a, 1, 0, 30);
	ck_assert_uint_eq(resolver_n_lookups(r), 2);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 30);
}
END_TEST

/* A client of the resolver as request.c is one: when its wait ends it asks
 * resolver_get(), and waits again if the user is not known (any more). Its
 * first answer's step can be slow, and can start another client's wait for
 * the same uid meanwhile (a request that arrives then). */
typedef struct Client {
	Resolver *r;
	useconds_t slow_usec;
	struct Client *next;
	unsigned answers, known;
	int error;
} Client;

static void on_client(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	Client *c = userdata;
	const PolicyUser *got;
	int k;

	c->answers++;
	c->error = error;
	if (error < 0)
		return;
	if (c->slow_usec)
		usleep(c->slow_usec);
	c->slow_usec = 0;
	if (c->next) {
		ck_assert_int_eq(resolver_wait(c->r, uid, on_client, c->next, NULL), 0);
		c->next = NULL;
	}
	k = resolver_get(c->r, uid, &got);
	if (k == 0) {
		/* what the wait was answered with */
		ck_assert_ptr_eq(got, u);
		c->known++;
		return;
	}
	ck_assert_int_eq(k, -ENOENT);
	ck_assert_int_eq(resolver_wait(c->r, uid, on_client, c, NULL), 0);
}

/* The result expires while its waits are answered (a slow step, a long
 * list): a wait that begins then starts a lookup of its own, rather than
 * being answered from the expired result again and again (each answer a
 * resolver_get() miss, each miss a new wait: the uid never looked up
 * again, its requests piling up to RESOLVER_WAITS_MAX). And whoever is
 * answered gets the same from resolver_get() during its call. */
START_TEST(test_expired_while_answering)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 8);
	Client b = { .r = r }, a = { .r = r, .slow_usec = 150000, .next = &b };

	ck_assert_int_eq(resolver_wait(r, 1000, on_client, &a, NULL), 0);
	run_until(&b.known, 1);
	ck_assert_uint_eq(a.known, 1);
	ck_assert_uint_eq(a.answers, 1);
	ck_assert_uint_eq(b.answers, 1);
	ck_assert_uint_eq(resolver_n_lookups(r), 2);
	ck_assert_uint_eq(fake_n_calls(), 2);
}
END_TEST

/* A wait due to be answered from a result that a flush (or the lifetime)
 * ends before its turn is not answered from it: it asks again. */
START_TEST(test_flush_before_answer)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	resolver_flush(r);
	fake_set(30, 0);
	expect_answered(&a, 2, 0, 30);
	ck_assert_uint_eq(resolver_n_lookups(r), 2);
}
END_TEST

int main(void)
{
	return resolver_check_run("daemon-resolver", "resolver",
				  CHECK_TESTS(test_expiry, test_flush_drops_cache,
					      test_flush_in_flight, test_expired_while_answering,
					      test_flush_before_answer));
}
