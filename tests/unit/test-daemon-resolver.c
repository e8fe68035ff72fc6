/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/resolver.c, with a fake lookup that can hang: one
 * lookup per uid in flight (later waits join it), a hung lookup holds one
 * thread and others go on, results cached for the lifetime and dropped by
 * a flush (a lookup in flight at the flush is asked again), a wait ends
 * with -ETIMEDOUT after the timeout, "no such user" is cached, and the
 * cache and the pool are bounded.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "resolver.h"

#define NO_SUCH_UID 90000

/* The fake directory: hangs for `hang_uid` (or every uid) until released. */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fake_cond = PTHREAD_COND_INITIALIZER;
static uid_t hang_uid = (uid_t)-1;
static bool hang_all, released;
static gid_t fake_gid = 29;
static unsigned fake_calls;

static int fake_lookup(uid_t uid, PolicyUser **ret)
{
	PolicyUser *u;
	gid_t gid;

	pthread_mutex_lock(&fake_lock);
	fake_calls++;
	while ((hang_all || uid == hang_uid) && !released)
		pthread_cond_wait(&fake_cond, &fake_lock);
	gid = fake_gid;
	pthread_mutex_unlock(&fake_lock);
	if (uid >= NO_SUCH_UID)
		return -ESRCH;
	u = calloc(1, sizeof(*u));
	ck_assert_ptr_nonnull(u);
	u->uid = uid;
	ck_assert_int_gt(asprintf(&u->name, "u%u", (unsigned)uid), 0);
	u->gids = calloc(1, sizeof(gid_t));
	u->gids[0] = gid;
	u->n_gids = 1;
	*ret = u;
	return 0;
}

/* Each test starts with a directory that answers (also with CK_FORK=no). */
static void fake_reset(void)
{
	pthread_mutex_lock(&fake_lock);
	hang_uid = (uid_t)-1;
	hang_all = released = false;
	fake_gid = 29;
	fake_calls = 0;
	pthread_mutex_unlock(&fake_lock);
}

static void fake_release(void)
{
	pthread_mutex_lock(&fake_lock);
	released = true;
	pthread_cond_broadcast(&fake_cond);
	pthread_mutex_unlock(&fake_lock);
}

static unsigned fake_n_calls(void)
{
	unsigned n;

	pthread_mutex_lock(&fake_lock);
	n = fake_calls;
	pthread_mutex_unlock(&fake_lock);
	return n;
}

/* What the waits got. */
typedef struct Answer {
	unsigned n;
	int error;
	gid_t gid;
	char name[32];
	uint64_t at_usec;
} Answer;

static void on_done(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	Answer *a = userdata;

	a->n++;
	a->error = error;
	a->at_usec = now_usec(CLOCK_MONOTONIC);
	if (u) {
		ck_assert_uint_eq(u->uid, uid);
		a->gid = u->gids[0];
		snprintf(a->name, sizeof(a->name), "%s", u->name);
	}
}

static sd_event *event;

static Resolver *resolver(uint64_t timeout_usec, uint64_t lifetime_usec, unsigned threads)
{
	ResolverSettings s = { .lookup = fake_lookup,
			       .timeout_usec = timeout_usec,
			       .lifetime_usec = lifetime_usec,
			       .threads_max = threads };
	Resolver *r;

	ck_assert_int_ge(sd_event_new(&event), 0);
	ck_assert_int_eq(resolver_new(event, &s, &r), 0);
	return r;
}

static void done(Resolver *r)
{
	fake_release();
	resolver_free(r);
	event = sd_event_unref(event);
}

/* Runs the loop until *n reaches want, for at most 5 s. */
static void run_until(const unsigned *n, unsigned want)
{
	uint64_t end = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

	while (*n < want && now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(*n, want);
}

/* Three waits for one uid while its lookup hangs: one lookup, three answers. */
START_TEST(test_one_lookup_per_uid)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	const PolicyUser *u;
	Answer a = {};

	hang_uid = 1000;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_get(r, 1000, &u), -ENOENT);
	usleep(50000);
	ck_assert_uint_eq(a.n, 0);
	fake_release();
	run_until(&a.n, 3);
	ck_assert_int_eq(a.error, 0);
	ck_assert_str_eq(a.name, "u1000");
	ck_assert_uint_eq(resolver_n_lookups(r), 1);
	ck_assert_uint_eq(fake_n_calls(), 1);
	ck_assert_int_eq(resolver_get(r, 1000, &u), 0);
	ck_assert_str_eq(u->name, "u1000");
	done(r);
}
END_TEST

/* A hung lookup holds one thread: another user is answered meanwhile. */
START_TEST(test_hung_lookup_blocks_no_one_else)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer hung = {}, other = {};

	hang_uid = 1000;
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &hung, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 1001, on_done, &other, NULL), 0);
	run_until(&other.n, 1);
	ck_assert_int_eq(other.error, 0);
	ck_assert_uint_eq(hung.n, 0);
	ck_assert_uint_eq(resolver_n_threads(r), 2);
	done(r);
}
END_TEST

/* A result is used for the lifetime, then looked up again. */
START_TEST(test_expiry)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 200 * USEC_PER_MSEC, 8);
	const PolicyUser *u;
	Answer a = {};

	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	run_until(&a.n, 1);
	ck_assert_int_eq(resolver_get(r, 1000, &u), 0);
	/* a wait on a result at hand is answered from the loop, not by lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_uint_eq(a.n, 1);
	run_until(&a.n, 2);
	ck_assert_uint_eq(fake_n_calls(), 1);
	usleep(250000);
	ck_assert_int_eq(resolver_get(r, 1000, &u), -ENOENT);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	run_until(&a.n, 3);
	ck_assert_uint_eq(fake_n_calls(), 2);
	done(r);
}
END_TEST

/* A flush (a reload) drops what is cached. */
START_TEST(test_flush_drops_cache)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	const PolicyUser *u;
	Answer a = {};

	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, NO_SUCH_UID, on_done, &a, NULL), 0);
	run_until(&a.n, 2);
	ck_assert_int_eq(resolver_get(r, 1000, &u), 0);
	ck_assert_int_eq(resolver_get(r, NO_SUCH_UID, &u), -ESRCH); /* cached too */
	resolver_flush(r);
	ck_assert_int_eq(resolver_get(r, 1000, &u), -ENOENT);
	ck_assert_int_eq(resolver_get(r, NO_SUCH_UID, &u), -ENOENT);
	done(r);
}
END_TEST

/* A lookup in flight at a flush does not refill the cache with what it
 * read before: the uid is asked again, and the waits get the new answer. */
START_TEST(test_flush_in_flight)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	const PolicyUser *u;
	Answer a = {};

	hang_uid = 1000;
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	while (fake_n_calls() == 0)
		usleep(1000);
	resolver_flush(r);
	/* what the lookup in flight returns was read before the flush... */
	fake_release();
	/* ...and the directory changed: the second lookup sees it */
	pthread_mutex_lock(&fake_lock);
	fake_gid = 30;
	pthread_mutex_unlock(&fake_lock);
	run_until(&a.n, 1);
	ck_assert_uint_eq(resolver_n_lookups(r), 2);
	ck_assert_int_eq(a.error, 0);
	ck_assert_uint_eq(a.gid, 30);
	ck_assert_int_eq(resolver_get(r, 1000, &u), 0);
	ck_assert_uint_eq(u->gids[0], 30);
	done(r);
}
END_TEST

/* A wait ends after the timeout; the lookup's late result is cached. */
START_TEST(test_timeout)
{
	Resolver *r = resolver(200 * USEC_PER_MSEC, 5 * USEC_PER_SEC, 8);
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	const PolicyUser *u;
	Answer a = {}, late = {};

	hang_uid = 1000;
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	run_until(&a.n, 1);
	ck_assert_int_eq(a.error, -ETIMEDOUT);
	ck_assert_uint_ge(a.at_usec - start, 200 * USEC_PER_MSEC);
	ck_assert_uint_lt(a.at_usec - start, 2 * USEC_PER_SEC);
	ck_assert_int_eq(resolver_get(r, 1000, &u), -ENOENT);
	/* a later wait joins the same lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &late, NULL), 0);
	fake_release();
	run_until(&late.n, 1);
	ck_assert_int_eq(late.error, 0);
	ck_assert_uint_eq(fake_n_calls(), 1);
	ck_assert_int_eq(resolver_get(r, 1000, &u), 0);
	done(r);
}
END_TEST

static void count_free(void *userdata)
{
	(*(unsigned *)userdata)++;
}

/* The pool stops at its cap (the rest queue), the cache at its size: when
 * every entry is a lookup in flight a new uid is refused; answered ones
 * are reused. So do the waits at RESOLVER_WAITS_MAX. */
START_TEST(test_bounded)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 3);
	Answer a = {};

	hang_all = true;
	for (uid_t uid = 2000; uid < 2000 + RESOLVER_CACHE_SIZE; uid++)
		ck_assert_int_eq(resolver_wait(r, uid, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), -EBUSY);
	usleep(50000);
	ck_assert_uint_eq(resolver_n_threads(r), 3);
	ck_assert_uint_eq(fake_n_calls(), 3);
	fake_release();
	run_until(&a.n, RESOLVER_CACHE_SIZE);
	ck_assert_uint_eq(resolver_n_threads(r), 3);
	/* the oldest answer makes room */
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), 0);
	run_until(&a.n, RESOLVER_CACHE_SIZE + 1);
	ck_assert_int_eq(a.error, 0);

	/* and the waits, whatever uid they are for */
	pthread_mutex_lock(&fake_lock);
	released = false;
	pthread_mutex_unlock(&fake_lock);
	for (unsigned i = 0; i < RESOLVER_WAITS_MAX; i++)
		ck_assert_int_eq(resolver_wait(r, 7000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 7000, on_done, &a, NULL), -EBUSY);
	ck_assert_int_eq(resolver_wait(r, 5000, on_done, &a, NULL), -EBUSY);
	ck_assert_uint_eq(resolver_n_lookups(r), RESOLVER_CACHE_SIZE + 2);
	done(r);
}
END_TEST

/* Waits never answered are freed with the resolver, and a worker stuck in
 * a lookup outlives it. */
START_TEST(test_free_pending)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 2);
	unsigned freed = 0;
	Answer a = {};

	hang_uid = 1000;
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &freed, count_free), 0);
	resolver_free(r);
	ck_assert_uint_eq(freed, 1);
	ck_assert_uint_eq(a.n, 0);
	/* the stuck worker ends on its own once the lookup returns */
	fake_release();
	usleep(50000);
	event = sd_event_unref(event);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-resolver");
	TCase *tc = check_add_case(s, "resolver",
				   CHECK_TESTS(test_one_lookup_per_uid,
					       test_hung_lookup_blocks_no_one_else, test_expiry,
					       test_flush_drops_cache, test_flush_in_flight,
					       test_timeout, test_bounded, test_free_pending));

	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
