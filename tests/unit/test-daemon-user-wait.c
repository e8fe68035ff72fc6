/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/user-wait.c, the one way work waits for users'
 * lookups, over a real resolver and a fake directory: done runs once,
 * after every lookup, from the loop, with the first failure (no such user
 * is an answer, not a failure); each runs per lookup and may add waits; a
 * wait with nothing to wait for gives the work back; a resolver freed
 * under a wait frees the work instead of running done; without a resolver
 * nothing waits.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "check-main.h"
#include "resolver-fixture.h"
#include "user-wait.h"

#define FAILING_UID 2000 /* the lookup fails with EIO */
#define SLOW_UID 3000	 /* the lookup takes 300 ms */

typedef struct Work {
	UserWait *wait;
	unsigned each, done, freed;
	int error;
	uid_t error_uid;
	uid_t add_on_each; /* each adds a wait for it, once */
} Work;

static void on_each(uid_t uid, int error, void *userdata)
{
	Work *w = userdata;

	w->each++;
	if (w->add_on_each) {
		ck_assert_int_eq(user_wait_add(w->wait, w->add_on_each), 0);
		w->add_on_each = 0;
	}
}

static void work_done(int error, uid_t error_uid, void *userdata)
{
	Work *w = userdata;

	w->done++;
	w->error = error;
	w->error_uid = error_uid;
}

static void on_free(void *userdata)
{
	Work *w = userdata;

	w->freed++;
}

static const UserWaitOps ops = { .each = on_each, .done = work_done, .free_userdata = on_free };

static void daemon_init(Daemon *d)
{
	ResolverSettings rs = resolver_fake_settings(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 4);

	fake_reset();
	fake_fail_uid(FAILING_UID);
	fake_slow(SLOW_UID, 300 * 1000);
	*d = (Daemon){};
	ck_assert_int_ge(sd_event_new(&d->event), 0);
	ck_assert_int_eq(resolver_new(d->event, &rs, &d->resolver), 0);
}

static void daemon_fini(Daemon *d)
{
	d->resolver = resolver_free(d->resolver);
	d->event = sd_event_unref(d->event);
	resolver_fixture_teardown();
}

/* Runs the loop until w is done (3 s at most). */
static void run_until_done(Daemon *d, const Work *w)
{
	uint64_t end = now_usec(CLOCK_MONOTONIC) + 3 * USEC_PER_SEC;

	while (w->done == 0 && now_usec(CLOCK_MONOTONIC) < end)
		ck_assert_int_ge(sd_event_run(d->event, 10 * USEC_PER_MSEC), 0);
}

START_TEST(test_done_once_with_first_failure)
{
	Work w = {};
	Daemon d;

	daemon_init(&d);
	w.wait = user_wait_new(&d, &ops, &w);
	ck_assert_ptr_nonnull(w.wait);
	ck_assert_int_eq(user_wait_add(w.wait, 1001), 0);
	ck_assert_int_eq(user_wait_add(w.wait, NO_SUCH_UID + 1), 0);
	ck_assert_int_eq(user_wait_add(w.wait, FAILING_UID), 0);
	ck_assert_uint_eq(user_wait_pending(w.wait), 3);
	ck_assert(user_wait_release(w.wait));
	/* never from within the calls: from the loop */
	ck_assert_uint_eq(w.each + w.done, 0);
	run_until_done(&d, &w);
	ck_assert_uint_eq(w.each, 3);
	ck_assert_uint_eq(w.done, 1);
	ck_assert_int_eq(w.error, -EIO);
	ck_assert_uint_eq(w.error_uid, FAILING_UID);
	ck_assert_uint_eq(w.freed, 0);
	daemon_fini(&d);
}
END_TEST

START_TEST(test_each_adds_waits)
{
	Work w = { .add_on_each = 1002 };
	Daemon d;

	daemon_init(&d);
	w.wait = user_wait_new(&d, &ops, &w);
	ck_assert_ptr_nonnull(w.wait);
	ck_assert_int_eq(user_wait_add(w.wait, 1001), 0);
	ck_assert(user_wait_release(w.wait));
	run_until_done(&d, &w);
	ck_assert_uint_eq(w.each, 2);
	ck_assert_uint_eq(w.done, 1);
	ck_assert_int_eq(w.error, 0);
	daemon_fini(&d);
}
END_TEST

START_TEST(test_nothing_to_wait_for)
{
	Work w = {};
	Daemon d;

	daemon_init(&d);
	w.wait = user_wait_new(&d, &ops, &w);
	ck_assert_ptr_nonnull(w.wait);
	/* the work is the caller's again, and nothing is ever called */
	ck_assert(!user_wait_release(w.wait));
	ck_assert_int_eq(sd_event_run(d.event, 50 * USEC_PER_MSEC), 0);
	ck_assert_uint_eq(w.each + w.done + w.freed, 0);
	daemon_fini(&d);

	/* no resolver (as in most unit tests): nothing waits */
	d = (Daemon){};
	ck_assert_int_eq(user_wait_one(&d, 1001, &ops, &w), -EOPNOTSUPP);
	ck_assert_uint_eq(w.each + w.done + w.freed, 0);
}
END_TEST

START_TEST(test_resolver_gone)
{
	Work w = {};
	Daemon d;

	daemon_init(&d);
	ck_assert_int_eq(user_wait_one(&d, SLOW_UID, &ops, &w), 0);
	/* the daemon stops while the lookup runs: the work is freed, not done */
	daemon_fini(&d);
	ck_assert_uint_eq(w.freed, 1);
	ck_assert_uint_eq(w.each + w.done, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-user-wait");

	check_add_case(s, "user-wait",
		       CHECK_TESTS(test_done_once_with_first_failure, test_each_adds_waits,
				   test_nothing_to_wait_for, test_resolver_gone));
	return check_run(s);
}
