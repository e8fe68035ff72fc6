// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for daemon/request-sched.c, the grant itself, on the daemon
 * fixture (a fake /proc, threads of this test that only sleep): a grant the
 * canary cannot watch is not made. The canary is handed the thread before
 * it turns realtime; when it cannot take it (here calloc() of the list
 * fails, through the linker's --wrap=calloc), the thread stays as it was
 * and the client is answered with the reason. A repeated grant leaves a
 * canary that watches the thread already alone. The target is read again
 * before the grant only when polkit was waited for.
 */
#include <check.h>
#include <errno.h>
#include <pwd.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "canary.h"
#include "check-main.h"
#include "daemon-fixture.h"
#include "pidfd.h"
#include "policy-cache.h"
#include "request-check.h"
#include "request-sched.h"

/* While fail_targets is set, the next calloc() of one CanaryTarget (the
 * canary's list: no grants yet, plus the one under way) fails. */
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
static bool fail_targets;
/* lists of CanaryTarget allocated: each update of the canary makes some */
static unsigned n_target_lists;

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (size == sizeof(CanaryTarget))
		n_target_lists++;
	if (fail_targets && nmemb == 1 && size == sizeof(CanaryTarget)) {
		fail_targets = false;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

static void on_fired(const CanaryReport *report, void *userdata)
{
}

/* Grants RR 1 to s's thread as its owner would ask, and returns the answer. */
static int grant_rr(Daemon *d, const Sleeper *s, Request *r)
{
	const PolicyGrant *g;
	const char *user;

	*r = (Request){ .d = d,
			.type = REQUEST_SCHED,
			.kind = GRANT_RR,
			.value = 1,
			.uid = getuid(),
			.caller_pid = getpid(),
			.pid = getpid(),
			.tid = s->tid,
			.pidfd = -EBADF };
	ck_assert_int_eq(request_pin(r), 0);
	ck_assert_int_eq(request_check_policy(r, &g, &user), 0);
	return request_grant_sched(r, g, user);
}

/* grant_rr(), which must succeed. */
static void grant_rr_ok(Daemon *d, const Sleeper *s, Request *r)
{
	int k = grant_rr(d, s, r);

	ck_assert_msg(k == 0, "answer %d: %s", k, r->why);
}

/* A daemon with a canary, policy RR up to 10 for all, and a sleeping
 * thread s of this test's, which the test's uid owns. */
static void setup(Daemon *d, Sleeper *s)
{
	sleeper_start(s);
	fixture_write(fixture_conf, "[Default]\nRealtimePriority=10\nPolicies=rr\n");
	fixture_daemon_init(d, NULL);
	fixture_task(getpid(), 0, getuid(), getuid(), getuid(), 1000);
	fixture_stat(getpid(), s->tid, 2000);
	ck_assert_int_eq(canary_new(d->event, fixture_proc, on_fired, d, &d->canary), 0);
}

START_TEST(test_unwatched_grant_not_made)
{
	Sleeper s = {};
	Daemon d;
	Request r;
	int k;

	setup(&d, &s);

	fail_targets = true;
	k = grant_rr(&d, &s, &r);
	ck_assert_msg(k == REQUEST_E_FAILED, "answer %d: %s", k, r.why);
	ck_assert_ptr_nonnull(strstr(r.why, "canary"));
	ck_assert_int_eq(sched_policy_of(s.tid), SCHED_BATCH);
	ck_assert_uint_eq(d.grants->n_grants, 0);
	safe_close(r.pidfd);

	/* With memory again, the same request is granted and watched. */
	grant_rr_ok(&d, &s, &r);
	ck_assert_int_eq(sched_policy_of(s.tid), SCHED_RR);
	ck_assert_uint_eq(d.grants->n_grants, 1);

	d.canary = canary_free(d.canary);
	fixture_daemon_fini(&d);
}
END_TEST

/* A grant repeated to a thread whose realtime grant the canary watches
 * already leaves the canary as it is: handing it the thread as pending and
 * back rebuilt its list twice to end where it began. Unless the canary
 * missed the table's last change: then the thread is handed over again. */
START_TEST(test_repeated_grant_keeps_canary)
{
	Sleeper s = {};
	Daemon d;
	Request r;

	setup(&d, &s);

	grant_rr_ok(&d, &s, &r);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	ck_assert(d.canary_synced);

	n_target_lists = 0;
	grant_rr_ok(&d, &s, &r);
	ck_assert_uint_eq(n_target_lists, 0);
	ck_assert_int_eq(sched_policy_of(s.tid), SCHED_RR);
	ck_assert_uint_eq(d.grants->n_grants, 1);

	d.canary_synced = false;
	grant_rr_ok(&d, &s, &r);
	ck_assert_uint_gt(n_target_lists, 0);
	ck_assert(d.canary_synced);

	d.canary = canary_free(d.canary);
	fixture_daemon_fini(&d);
}
END_TEST

/* The target is read once when nothing came between the pin and the grant,
 * and again when polkit was waited for: a thread that changed its uids or
 * whose tid was reused meanwhile is then refused. */
START_TEST(test_recheck_after_wait)
{
	const struct passwd *pw = getpwnam("nobody");
	const PolicyGrant *g;
	const char *user;
	Sleeper s = {};
	Daemon d;
	Request r;
	uid_t me, other;
	int k;

	/* a caller other than root, whom the uids of the target bind */
	ck_assert_ptr_nonnull(pw);
	me = pw->pw_uid;
	other = me - 1;
	sleeper_start(&s);
	fixture_write(fixture_conf, "[Default]\nRealtimePriority=10\nPolicies=rr\n");
	fixture_daemon_init(&d, NULL);
	fixture_task(getpid(), 0, me, me, me, 1000);
	fixture_task(getpid(), s.tid, me, me, me, 2000);
	r = (Request){ .d = &d,
		       .type = REQUEST_SCHED,
		       .kind = GRANT_RR,
		       .value = 1,
		       .uid = me,
		       .caller_pid = getpid(),
		       .pid = getpid(),
		       .tid = s.tid,
		       .pidfd = -EBADF };
	ck_assert_int_eq(request_pin(&r), 0);
	ck_assert_int_eq(request_check_policy(&r, &g, &user), 0);

	/* The thread takes another uid after the pin. Without a wait the
	 * pin's answer stands: the fake /proc is not read again. */
	fixture_task(getpid(), s.tid, other, other, other, 2000);
	ck_assert_int_eq(request_recheck(&r), 0);

	/* polkit was asked (request.c sets waited): read again, refused */
	r.waited = true;
	k = request_recheck(&r);
	ck_assert_msg(k == REQUEST_E_PERMISSION_DENIED, "answer %d: %s", k, r.why);
	ck_assert_ptr_nonnull(strstr(r.why, "belongs to uid"));
	ck_assert(!r.waited);

	/* the tid reused by another thread of the process while polkit thought */
	fixture_task(getpid(), s.tid, me, me, me, 2001);
	r.waited = true;
	k = request_recheck(&r);
	ck_assert_msg(k == REQUEST_E_NO_SUCH_PROCESS, "answer %d: %s", k, r.why);

	/* the same thread, the caller's again, after the wait: granted */
	fixture_task(getpid(), s.tid, me, me, me, 2000);
	r.waited = true;
	ck_assert_int_eq(request_recheck(&r), 0);
	k = request_grant_sched(&r, g, user);
	ck_assert_msg(k == 0, "answer %d: %s", k, r.why);
	ck_assert_int_eq(sched_policy_of(s.tid), SCHED_RR);

	fixture_daemon_fini(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-request-sched");
	TCase *tc;

	tc = check_add_case(s, "grant",
			    CHECK_TESTS(test_unwatched_grant_not_made,
					test_repeated_grant_keeps_canary, test_recheck_after_wait));
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	return check_run(s);
}
