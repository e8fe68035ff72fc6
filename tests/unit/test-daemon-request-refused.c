/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/request-refused.c, over a real resolver and the
 * fake directory of resolver-fixture.h: a refusal is kept only for a user
 * NSS knows. One the resolver knows already is kept at once; one it does
 * not know yet waits for the lookup, from the loop, and is kept then; a
 * uid that is no user, or whose lookup fails, keeps nothing and takes no
 * one's place.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "refusals.h"
#include "request-refused.h"
#include "resolver-fixture.h"
#include "users.h"

/* A daemon with the test's resolver (resolver-fixture.h), whose
 * teardown frees it. */
static void daemon_init(Daemon *d)
{
	Resolver *r = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 4);

	*d = (Daemon){ .event = fixture_event, .resolver = r };
	ck_assert_int_eq(users_new(&d->users), 0);
}

/* uid's FIFO 95 refused PolicyDenied, recorded. */
static void refuse(Daemon *d, uid_t uid)
{
	Request r = { .d = d,
		      .type = REQUEST_SCHED,
		      .kind = POLICY_GRANT_FIFO,
		      .value = 95,
		      .uid = uid,
		      .caller_pid = 1,
		      .pidfd = -EBADF,
		      .tidfd = -EBADF };

	strcpy(r.why, "priority 95 exceeds the limit 70");
	request_record_refusal(&r, REQUEST_E_POLICY_DENIED);
}

/* How many refusals of uid were kept (repeats are folded into one entry). */
static unsigned kept(Daemon *d, uid_t uid)
{
	const Refusal **l = NULL;
	unsigned count = 0;
	size_t n = 0;

	ck_assert_int_eq(refusals_list(d->users, uid, 0, &l, &n), 0);
	for (size_t i = 0; i < n; i++)
		count += l[i]->count;
	free(l);
	return count;
}

/* Refuses uid, then runs the loop until uid's lookup has ended with
 * error: the refusal's wait has then ended too. */
static void refuse_and_wait(Daemon *d, uid_t uid, int error)
{
	Answer a = {};

	refuse(d, uid);
	expect_wait(d->resolver, uid, &a, error, 29);
}

START_TEST(test_known_user)
{
	Answer a = {};
	Daemon d;

	daemon_init(&d);
	/* not known yet: kept when the lookup has ended, from the loop */
	refuse(&d, 1001);
	ck_assert_uint_eq(kept(&d, 1001), 0);
	expect_wait(d.resolver, 1001, &a, 0, 29);
	ck_assert_uint_eq(kept(&d, 1001), 1);
	/* known now: kept at once */
	refuse(&d, 1001);
	ck_assert_uint_eq(kept(&d, 1001), 2);
	d.users = users_free(d.users);
}
END_TEST

START_TEST(test_unknown_uid)
{
	Daemon d;

	daemon_init(&d);
	refuse_and_wait(&d, 1001, 0);
	/* no such user, and a lookup that fails: nothing kept */
	refuse_and_wait(&d, NO_SUCH_UID + 1, -ESRCH);
	ck_assert_uint_eq(kept(&d, NO_SUCH_UID + 1), 0);
	fake_set(29, -EIO);
	refuse_and_wait(&d, 2000, -EIO);
	ck_assert_uint_eq(kept(&d, 2000), 0);
	/* the resolver knows it is no user: nothing, at once */
	refuse(&d, NO_SUCH_UID + 1);
	ck_assert_uint_eq(kept(&d, NO_SUCH_UID + 1), 0);
	/* none of them took a place with refusals */
	ck_assert_uint_eq(kept(&d, 2000), 0);
	ck_assert_uint_eq(kept(&d, 1001), 1);
	d.users = users_free(d.users);
}
END_TEST

int main(void)
{
	return resolver_check_run("daemon-request-refused", "request-refused",
				  CHECK_TESTS(test_known_user, test_unknown_uid));
}
