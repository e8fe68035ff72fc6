// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for daemon/request-sched.c, the grant itself, on the daemon
 * fixture (a fake /proc, threads of this test that only sleep): a grant the
 * canary cannot watch is not made. The canary is handed the thread before
 * it turns realtime; when it cannot take it (here calloc() of the list
 * fails, through the linker's --wrap=calloc), the thread stays as it was
 * and the client is answered with the reason. A repeated grant leaves a
 * canary that watches the thread already alone. The target is read again
 * before the grant only when polkit was waited for. A tid reused while the
 * canary takes the thread (the widest window) is not changed, and a change
 * that landed on a reused tid is undone, never raising that thread: the
 * fake /proc turns the tid into another thread's at those two points,
 * through the calloc() of the canary's list and the linker's
 * --wrap=sched_apply.
 */
#include <check.h>
#include <errno.h>
#include <pwd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "canary.h"
#include "check-main.h"
#include "daemon-fixture.h"
#include "pidfd.h"
#include "daemon-policy.h"
#include "request-check.h"
#include "request-sched.h"

/* While fail_targets is set, the next calloc() of one CanaryTarget (the
 * canary's list: no grants yet, plus the one under way) fails. */
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
static bool fail_targets;
/* lists of CanaryTarget allocated: each update of the canary makes some */
static unsigned n_target_lists;
/* While set, the next canary list (supervise_canary_sync()) or the next
 * sched_apply() makes this tid of the test's process look reused: the
 * fake /proc gives it another start time. */
static pid_t reuse_at_canary, reuse_at_apply;
#define REUSED_START 2001

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (size == sizeof(CanaryTarget))
		n_target_lists++;
	if (reuse_at_canary && size == sizeof(CanaryTarget)) {
		pid_t tid = reuse_at_canary;

		reuse_at_canary = 0;
		fixture_stat(getpid(), tid, REUSED_START);
	}
	if (fail_targets && nmemb == 1 && size == sizeof(CanaryTarget)) {
		fail_targets = false;
		return NULL;
	}
	return __real_calloc(nmemb, size);
}

int __real_sched_apply(pid_t tid, PolicyGrantKind kind, int value);
int __wrap_sched_apply(pid_t tid, PolicyGrantKind kind, int value);

int __wrap_sched_apply(pid_t tid, PolicyGrantKind kind, int value)
{
	int r = __real_sched_apply(tid, kind, value);

	if (reuse_at_apply && reuse_at_apply == tid) {
		reuse_at_apply = 0;
		fixture_stat(getpid(), tid, REUSED_START);
	}
	return r;
}

static void on_fired(const CanaryReport *report, void *userdata)
{
}

/* Grants RR 1 to s's thread as its owner would ask, and returns the answer. */
static int grant_rr(Daemon *d, const Sleeper *s, Request *r)
{
	PolicyEval e;
	const PolicyGrant *g = &e.grant;
	const char *user = e.user;

	*r = (Request){ .d = d,
			.type = REQUEST_SCHED,
			.kind = POLICY_GRANT_RR,
			.value = 1,
			.uid = getuid(),
			.caller_pid = getpid(),
			.pid = getpid(),
			.tid = s->tid,
			.pidfd = -EBADF };
	ck_assert_msg(request_pin(r) == 0, "pin: %s", r->why);
	ck_assert_int_eq(request_check_policy(r, &e), 0);
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
	PolicyEval e;
	const PolicyGrant *g = &e.grant;
	const char *user = e.user;
	Sleeper s = {};
	Daemon d;
	Request r;
	uid_t me, other;
	char text[32];
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
		       .kind = POLICY_GRANT_RR,
		       .value = 1,
		       .uid = me,
		       .caller_pid = getpid(),
		       .pid = getpid(),
		       .tid = s.tid,
		       .pidfd = -EBADF };
	ck_assert_int_eq(request_pin(&r), 0);
	ck_assert_int_eq(request_check_policy(&r, &e), 0);

	/* The thread takes another uid after the pin. Without a wait the
	 * pin's answer stands: the fake /proc is not read again. */
	fixture_task(getpid(), s.tid, other, other, other, 2000);
	ck_assert_int_eq(request_recheck(&r), 0);

	/* polkit was asked (request.c sets waited): read again, refused */
	r.waited = true;
	k = request_recheck(&r);
	ck_assert_msg(k == REQUEST_E_PERMISSION_DENIED, "answer %d: %s", k, r.why);
	ck_assert_ptr_nonnull(strstr(r.why, "not the caller's"));
	snprintf(text, sizeof(text), "%u", (unsigned)other);
	ck_assert_msg(!strstr(r.why, text), "%s", r.why); /* whose it is now is not said */
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

/* Grants RR 1 to a sleeper while *reuse_point makes its tid look taken by
 * another thread (reuse_at_canary or reuse_at_apply): refused, and the
 * thread on the tid runs as it did before (SCHED_BATCH, nice 12), not
 * recorded. */
static void grant_on_reused_tid(pid_t *reuse_point)
{
	Sleeper s = {};
	Daemon d;
	Request r;
	int k;

	setup(&d, &s);

	*reuse_point = s.tid;
	k = grant_rr(&d, &s, &r);
	ck_assert_msg(*reuse_point == 0, "the tid was not made to look reused");
	ck_assert_msg(k == REQUEST_E_NO_SUCH_PROCESS, "answer %d: %s", k, r.why);
	ck_assert_msg(sched_policy_of(s.tid) == SCHED_BATCH,
		      "the thread on the reused tid was left at policy %d, unsupervised",
		      sched_policy_of(s.tid));
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)s.tid), 12);
	ck_assert_uint_eq(d.grants->n_grants, 0);
	safe_close(r.pidfd);

	d.canary = canary_free(d.canary);
	fixture_daemon_fini(&d);
}

/* The pinned thread exits and its tid is taken by another thread while
 * the canary starts watching it: the grant must not land on that other
 * thread. The pin is checked right before the change. */
START_TEST(test_reused_before_change_not_changed)
{
	grant_on_reused_tid(&reuse_at_canary);
}
END_TEST

/* The tid is taken by another thread just as it is changed: the change
 * landed on that thread, and is undone, never further up than it was. */
START_TEST(test_reused_at_change_undone)
{
	grant_on_reused_tid(&reuse_at_apply);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-request-sched", "grant",
			      CHECK_TESTS(test_unwatched_grant_not_made,
					  test_repeated_grant_keeps_canary, test_recheck_after_wait,
					  test_reused_before_change_not_changed,
					  test_reused_at_change_undone),
			      fixture_setup, fixture_teardown);
}
