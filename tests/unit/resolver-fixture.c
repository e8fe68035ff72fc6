/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The resolver tests' fake directory and waits; see resolver-fixture.h. */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "check-main.h"
#include "resolver-fixture.h"
#include "time-util.h"

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

void fake_reset(void)
{
	pthread_mutex_lock(&fake_lock);
	hang_uid = (uid_t)-1;
	hang_all = released = false;
	fake_gid = 29;
	fake_calls = 0;
	fail_error = 0;
	pthread_mutex_unlock(&fake_lock);
}

void fake_set(gid_t gid, int error)
{
	pthread_mutex_lock(&fake_lock);
	fake_gid = gid;
	fail_error = error;
	pthread_mutex_unlock(&fake_lock);
}

void fake_hang(uid_t uid)
{
	pthread_mutex_lock(&fake_lock);
	hang_uid = uid;
	released = false;
	pthread_mutex_unlock(&fake_lock);
}

void fake_hang_all(void)
{
	pthread_mutex_lock(&fake_lock);
	hang_all = true;
	released = false;
	pthread_mutex_unlock(&fake_lock);
}

void fake_release(void)
{
	pthread_mutex_lock(&fake_lock);
	released = true;
	pthread_cond_broadcast(&fake_cond);
	pthread_mutex_unlock(&fake_lock);
}

unsigned fake_n_calls(void)
{
	unsigned n;

	pthread_mutex_lock(&fake_lock);
	n = fake_calls;
	pthread_mutex_unlock(&fake_lock);
	return n;
}

void on_done(uid_t uid, int error, const PolicyUser *u, void *userdata)
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

sd_event *fixture_event;
static Resolver *fixture_resolver;

static Resolver *resolver_with(const ResolverSettings *s)
{
	ck_assert_ptr_null(fixture_resolver);
	ck_assert_int_ge(sd_event_new(&fixture_event), 0);
	ck_assert_int_eq(resolver_new(fixture_event, s, &fixture_resolver), 0);
	return fixture_resolver;
}

Resolver *resolver(uint64_t timeout_usec, uint64_t lifetime_usec, unsigned threads)
{
	return resolver_with(&(ResolverSettings){ .lookup = fake_lookup,
						  .timeout_usec = timeout_usec,
						  .lifetime_usec = lifetime_usec,
						  .threads_max = threads });
}

Resolver *resolver_stale(uint64_t timeout_usec, uint64_t lifetime_usec, uint64_t stale_wait_usec,
			 uint64_t stale_max_usec)
{
	return resolver_with(&(ResolverSettings){ .lookup = fake_lookup,
						  .timeout_usec = timeout_usec,
						  .lifetime_usec = lifetime_usec,
						  .threads_max = 8,
						  .stale_wait_usec = stale_wait_usec,
						  .stale_max_usec = stale_max_usec });
}

void resolver_fixture_free(void)
{
	fixture_resolver = resolver_free(fixture_resolver);
}

void resolver_fixture_teardown(void)
{
	fake_release();
	resolver_fixture_free();
	fixture_event = sd_event_unref(fixture_event);
}

void run_until(const unsigned *n, unsigned want)
{
	uint64_t end = now_usec(CLOCK_MONOTONIC) + 5 * USEC_PER_SEC;

	while (*n < want && now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(fixture_event, 10 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(*n, want);
}

const PolicyUser *expect_get(Resolver *r, uid_t uid, int error)
{
	const PolicyUser *u = NULL;

	ck_assert_int_eq(resolver_get(r, uid, &u), error);
	return u;
}

void expect_answered(Answer *a, unsigned n, int error, gid_t gid)
{
	run_until(&a->n, n);
	ck_assert_int_eq(a->error, error);
	if (error == 0)
		ck_assert_uint_eq(a->gid, gid);
}

void expect_wait(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid)
{
	unsigned n = a->n;

	ck_assert_int_eq(resolver_wait(r, uid, on_done, a, NULL), 0);
	expect_answered(a, n + 1, error, gid);
}

void expect_answer(Resolver *r, uid_t uid, Answer *a, int error, gid_t gid, int get_error)
{
	const PolicyUser *u;

	expect_wait(r, uid, a, error, gid);
	u = expect_get(r, uid, get_error);
	if (get_error == 0)
		ck_assert_uint_eq(u->gids[0], gid);
}

void resolve_then_expire(Resolver *r, uid_t uid, Answer *a, useconds_t lifetime_usec)
{
	expect_wait(r, uid, a, 0, 29);
	usleep(lifetime_usec + 50000);
	(void)expect_get(r, uid, -ENOENT);
}

int resolver_check_run(const char *suite_name, const char *name, const TTest *const *tests)
{
	Suite *s = suite_create(suite_name);
	TCase *tc = check_add_case(s, name, tests);

	tcase_add_checked_fixture(tc, fake_reset, resolver_fixture_teardown);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
