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
#include "log-fixture.h"
#include "log.h"
#include "resolver.h"

#define NO_SUCH_UID 90000

/* The fake directory: hangs for `hang_uid` (or every uid) until released;
 * fails every lookup with `fail_error` while that is set (down: -EIO; the
 * user deleted: -ESRCH). */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fake_cond = PTHREAD_COND_INITIALIZER;
static uid_t hang_uid = (uid_t)-1;
static bool hang_all, released;
static gid_t fake_gid = 29;
static unsigned fake_calls;
static int fail_error;

static int fake_lookup(uid_t uid, PolicyUser **ret)
{
	PolicyUser *u;
	int error;
	gid_t gid;

	pthread_mutex_lock(&fake_lock);
	fake_calls++;
	while ((hang_all || uid == hang_uid) && !released)
		pthread_cond_wait(&fake_cond, &fake_lock);
	gid = fake_gid;
	error = fail_error;
	pthread_mutex_unlock(&fake_lock);
	if (error < 0)
		return error;
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
	fail_error = 0;
	pthread_mutex_unlock(&fake_lock);
}

/* The directory from now on: gid for every user, or error for every lookup. */
static void fake_set(gid_t gid, int error)
{
	pthread_mutex_lock(&fake_lock);
	fake_gid = gid;
	fail_error = error;
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

/* With the stale answer's settings: how long a wait gives the directory
 * before it takes the last good answer, and how old that may be. */
static Resolver *resolver_stale(uint64_t timeout_usec, uint64_t lifetime_usec,
				uint64_t stale_wait_usec, uint64_t stale_max_usec)
{
	ResolverSettings s = { .lookup = fake_lookup,
			       .timeout_usec = timeout_usec,
			       .lifetime_usec = lifetime_usec,
			       .threads_max = 8,
			       .stale_wait_usec = stale_wait_usec,
			       .stale_max_usec = stale_max_usec };
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

/* What resolver_get() has for uid now: error, and the user (error 0). */
static const PolicyUser *expect_get(Resolver *r, uid_t uid, int error)
{
	const PolicyUser *u = NULL;

	ck_assert_int_eq(resolver_get(r, uid, &u), error);
	return u;
}

/* Three waits for one uid while its lookup hangs: one lookup, three answers. */
START_TEST(test_one_lookup_per_uid)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	hang_uid = 1000;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	(void)expect_get(r, 1000, -ENOENT);
	usleep(50000);
	ck_assert_uint_eq(a.n, 0);
	fake_release();
	run_until(&a.n, 3);
	ck_assert_int_eq(a.error, 0);
	ck_assert_str_eq(a.name, "u1000");
	ck_assert_uint_eq(resolver_n_lookups(r), 1);
	ck_assert_uint_eq(fake_n_calls(), 1);
	ck_assert_str_eq(expect_get(r, 1000, 0)->name, "u1000");
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
	Answer a = {};

	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	run_until(&a.n, 1);
	(void)expect_get(r, 1000, 0);
	/* a wait on a result at hand is answered from the loop, not by lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_uint_eq(a.n, 1);
	run_until(&a.n, 2);
	ck_assert_uint_eq(fake_n_calls(), 1);
	usleep(250000);
	(void)expect_get(r, 1000, -ENOENT);
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
	Answer a = {};

	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, NO_SUCH_UID, on_done, &a, NULL), 0);
	run_until(&a.n, 2);
	(void)expect_get(r, 1000, 0);
	(void)expect_get(r, NO_SUCH_UID, -ESRCH); /* cached too */
	resolver_flush(r);
	(void)expect_get(r, 1000, -ENOENT);
	(void)expect_get(r, NO_SUCH_UID, -ENOENT);
	done(r);
}
END_TEST

/* A lookup in flight at a flush does not refill the cache with what it
 * read before: the uid is asked again, and the waits get the new answer. */
START_TEST(test_flush_in_flight)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
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
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 30);
	done(r);
}
END_TEST

/* A wait ends after the timeout; the lookup's late result is cached. */
START_TEST(test_timeout)
{
	Resolver *r = resolver(200 * USEC_PER_MSEC, 5 * USEC_PER_SEC, 8);
	uint64_t start = now_usec(CLOCK_MONOTONIC);
	Answer a = {}, late = {};

	hang_uid = 1000;
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	run_until(&a.n, 1);
	ck_assert_int_eq(a.error, -ETIMEDOUT);
	ck_assert_uint_ge(a.at_usec - start, 200 * USEC_PER_MSEC);
	ck_assert_uint_lt(a.at_usec - start, 2 * USEC_PER_SEC);
	(void)expect_get(r, 1000, -ENOENT);
	/* a later wait joins the same lookup */
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &late, NULL), 0);
	fake_release();
	run_until(&late.n, 1);
	ck_assert_int_eq(late.error, 0);
	ck_assert_uint_eq(fake_n_calls(), 1);
	(void)expect_get(r, 1000, 0);
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
	/* the threads start (slowly on a loaded machine), and no more */
	for (int i = 0; i < 2000 && fake_n_calls() < 3; i++)
		usleep(1000);
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
	done(r);
}
END_TEST

/* One more wait for uid, run until it ends: its error, and its gid (error 0). */
static void expect_wait(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid)
{
	unsigned n = a->n;

	ck_assert_int_eq(resolver_wait(r, uid, on_done, a, NULL), 0);
	run_until(&a->n, n + 1);
	ck_assert_int_eq(a->error, error);
	if (error == 0)
		ck_assert_uint_eq(a->gid, gid);
}

/* Resolves uid (gid 29) and lets its result expire. */
static void resolve_then_expire(Resolver *r, uid_t uid, Answer *a, useconds_t lifetime_usec)
{

	expect_wait(r, uid, a, 0, 29);
	usleep(lifetime_usec + 50000);
	(void)expect_get(r, uid, -ENOENT);
}

/* The directory fails: a user resolved a moment ago gets the last good
 * answer (never a newer one it could not have read), at once and again
 * within the lifetime without a lookup; a user never resolved gets the
 * error; once the directory answers, the fresh answer counts. */
START_TEST(test_stale_after_failure)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 8);
	Answer a = {}, never = {};

	log_capture();
	resolve_then_expire(r, 1000, &a, 100000);
	fake_set(30, -EIO);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_eq(fake_n_calls(), 2);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 29);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_eq(fake_n_calls(), 2);
	/* said once for the outage, not at each answer */
	ck_assert_uint_eq(log_count_lines("uid 1000: serving its last good answer"), 1);

	expect_wait(r, 1001, &never, -EIO, 0);
	(void)expect_get(r, 1001, -ENOENT);

	/* the directory is back: after the lifetime, asked again */
	fake_set(30, 0);
	usleep(150000);
	(void)expect_get(r, 1000, -ENOENT);
	expect_wait(r, 1000, &a, 0, 30);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 30);
	done(r);
}
END_TEST

/* The directory hangs: a user resolved a moment ago gets the last good
 * answer after the stale wait, well before the timeout, and the next
 * waits at once while the lookup still hangs; a user never resolved waits
 * for the timeout. When the hung lookup returns, its answer counts. */
START_TEST(test_stale_after_hang)
{
	Resolver *r = resolver_stale(2 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 300 * USEC_PER_MSEC,
				     60 * USEC_PER_SEC);
	const PolicyUser *u;
	Answer a = {}, never = {};
	uint64_t start;

	resolve_then_expire(r, 1000, &a, 100000);
	pthread_mutex_lock(&fake_lock);
	hang_all = true;
	fake_gid = 30;
	pthread_mutex_unlock(&fake_lock);
	start = now_usec(CLOCK_MONOTONIC);
	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	ck_assert_int_eq(resolver_wait(r, 1001, on_done, &never, NULL), 0);
	run_until(&a.n, 2);
	ck_assert_int_eq(a.error, 0);
	ck_assert_uint_eq(a.gid, 29);
	ck_assert_uint_ge(a.at_usec - start, 300 * USEC_PER_MSEC);
	ck_assert_uint_lt(a.at_usec - start, 1500 * USEC_PER_MSEC);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 29);
	start = now_usec(CLOCK_MONOTONIC);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_lt(a.at_usec - start, 100 * USEC_PER_MSEC);
	ck_assert_uint_eq(resolver_n_lookups(r), 3);

	run_until(&never.n, 1);
	ck_assert_int_eq(never.error, -ETIMEDOUT);

	/* the directory answers again: the stale answer is not served on */
	fake_release();
	start = now_usec(CLOCK_MONOTONIC);
	while (resolver_get(r, 1000, &u) == 0 && u->gids[0] == 29 &&
	       now_usec(CLOCK_MONOTONIC) < start + 5 * USEC_PER_SEC)
		ck_assert_int_ge(sd_event_run(event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 30);
	done(r);
}
END_TEST

/* The last good answer is served for stale_max after it was read, not
 * beyond: then the failure, or the timeout, is the answer. */
START_TEST(test_stale_bounded)
{
	Resolver *r = resolver_stale(500 * USEC_PER_MSEC, 100 * USEC_PER_MSEC, 100 * USEC_PER_MSEC,
				     400 * USEC_PER_MSEC);
	Answer a = {};

	resolve_then_expire(r, 1000, &a, 100000);
	fake_set(30, -EIO);
	expect_wait(r, 1000, &a, 0, 29);
	usleep(300000); /* 450 ms and more since the answer was read */
	(void)expect_get(r, 1000, -ENOENT);
	expect_wait(r, 1000, &a, -EIO, 0);
	(void)expect_get(r, 1000, -ENOENT);

	/* and a hung lookup times out */
	fake_set(29, 0);
	resolve_then_expire(r, 1001, &a, 100000);
	usleep(400000);
	pthread_mutex_lock(&fake_lock);
	hang_all = true;
	pthread_mutex_unlock(&fake_lock);
	expect_wait(r, 1001, &a, -ETIMEDOUT, 0);
	(void)expect_get(r, 1001, -ENOENT);
	done(r);
}
END_TEST

/* "No such user" is an answer: a user deleted in the directory is not
 * brought back by the answer from before, when the directory then fails. */
START_TEST(test_stale_not_after_esrch)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 100 * USEC_PER_MSEC, 8);
	Answer a = {};

	resolve_then_expire(r, 1000, &a, 100000);
	fake_set(29, -ESRCH);
	expect_wait(r, 1000, &a, -ESRCH, 0);
	(void)expect_get(r, 1000, -ESRCH);
	usleep(150000);
	fake_set(29, -EIO);
	expect_wait(r, 1000, &a, -EIO, 0);
	(void)expect_get(r, 1000, -ENOENT);
	done(r);
}
END_TEST

/* A flush (a reload) asks the directory again, and a fresh answer counts
 * at once; but a reload while the directory is down keeps the last good
 * answer as the fallback, so it demotes no one who had realtime. */
START_TEST(test_flush_keeps_stale)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 8);
	Answer a = {};

	ck_assert_int_eq(resolver_wait(r, 1000, on_done, &a, NULL), 0);
	run_until(&a.n, 1);
	fake_set(30, -EIO);
	resolver_flush(r);
	(void)expect_get(r, 1000, -ENOENT);
	expect_wait(r, 1000, &a, 0, 29);
	ck_assert_uint_eq(expect_get(r, 1000, 0)->gids[0], 29);

	fake_set(30, 0);
	resolver_flush(r);
	(void)expect_get(r, 1000, -ENOENT);
	expect_wait(r, 1000, &a, 0, 30);
	done(r);
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
	run_until(&a.n, 2);
	ck_assert_int_eq(a.error, 0);
	ck_assert_uint_eq(a.gid, 30);
	ck_assert_uint_eq(resolver_n_lookups(r), 2);
	done(r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-resolver");
	TCase *tc = check_add_case(
		s, "resolver",
		CHECK_TESTS(test_one_lookup_per_uid, test_hung_lookup_blocks_no_one_else,
			    test_expiry, test_flush_drops_cache, test_flush_in_flight, test_timeout,
			    test_bounded, test_free_pending, test_expired_while_answering,
			    test_stale_after_failure, test_stale_after_hang, test_stale_bounded,
			    test_stale_not_after_esrch, test_flush_keeps_stale,
			    test_flush_before_answer));

	tcase_add_checked_fixture(tc, fake_reset, NULL);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
