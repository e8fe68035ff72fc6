/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/request-check.c, the checks before a grant, and
 * the answer table of daemon/request.c, without a bus: each check returns
 * 0, or the RequestError a client is answered with and its text. The
 * checks read /proc under the grant table's root, here a fake one
 * (daemon-fixture.h), so that any uid may own any task: ownership
 * of a process and of its thread (real, effective and saved uid), the
 * per-user and per-machine caps of the grant table (stale grants do not
 * count near a cap), the admission (the per-user rate, shared with manage
 * calls, and the canary's cool-down), and what policy allows.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "manager.h"
#include "pidfd.h"
#include "daemon-policy.h"
#include "request-check.h"
#include "users.h"

/* The daemon on the fake /proc with this policy. */
static void daemon_init(Daemon *d, const char *policy)
{
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(d, NULL);
}

/* A request of uid (calling from its process caller) for thread tid of pid. */
static Request request(Daemon *d, uid_t uid, pid_t pid, pid_t tid)
{
	return (Request){ .d = d,
			  .type = REQUEST_SCHED,
			  .kind = POLICY_GRANT_RR,
			  .value = 10,
			  .uid = uid,
			  .caller_pid = pid,
			  .pid = pid,
			  .tid = tid,
			  .pidfd = -EBADF };
}

/* uid asks for tid of pid, none of its processes: the one answer. */
static void expect_not_callers(Daemon *d, uid_t uid, pid_t pid, pid_t tid)
{
	Request r = request(d, uid, pid, tid);
	char want[256];

	snprintf(want, sizeof(want),
		 "pid %d names no process of the caller (one whose real, effective and saved "
		 "uids are all the caller's)",
		 (int)pid);
	ck_assert_int_eq(request_check_owner(&r), REQUEST_E_PERMISSION_DENIED);
	ck_assert_str_eq(r.why, want);
}

START_TEST(test_owner)
{
	Daemon d;
	Request r;

	daemon_init(&d, "");
	fixture_task(500, 0, 1000, 1000, 1000, 7);
	fixture_task(500, 501, 1000, 1000, 1000, 8);
	fixture_task(500, 502, 1001, 1001, 1001, 9); /* a thread that changed its uids */
	fixture_task(510, 0, 1000, 0, 1000, 7);	     /* a setuid program */
	fixture_task(520, 0, 1001, 1001, 1001, 7);

	r = request(&d, 1000, 500, 500);
	ck_assert_int_eq(request_check_owner(&r), 0);
	ck_assert_uint_eq(r.owner, 1000);
	r = request(&d, 1000, 500, 501);
	ck_assert_int_eq(request_check_owner(&r), 0);

	/* Not the caller's: another user's process, a setuid program, a pid
	 * that does not exist; nor is anything said of the threads of
	 * another user's process. One answer, word for word but the pid, and
	 * no uid in it (/proc with hidepid= tells no more). */
	expect_not_callers(&d, 1000, 520, 520);
	expect_not_callers(&d, 1000, 510, 510);
	expect_not_callers(&d, 1000, 530, 530);
	expect_not_callers(&d, 1001, 500, 503);
	/* credentials are per thread; of its own process the caller is told
	 * which thread, not whose it is */
	r = request(&d, 1000, 500, 502);
	ck_assert_int_eq(request_check_owner(&r), REQUEST_E_PERMISSION_DENIED);
	ck_assert_str_eq(r.why, "thread 502 of process 500 runs with a real, effective or saved "
				"uid that is not the caller's");
	r = request(&d, 1000, 500, 503);
	ck_assert_int_eq(request_check_owner(&r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "thread 503 is not a thread of process 500");
	/* root is told what there is */
	r = request(&d, 0, 530, 530);
	ck_assert_int_eq(request_check_owner(&r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "process 530 does not exist");

	/* root may act on anyone; the policy is the owner's */
	r = request(&d, 0, 520, 520);
	ck_assert_int_eq(request_check_owner(&r), 0);
	ck_assert_uint_eq(r.owner, 1001);
	r = request(&d, 0, 500, 502);
	ck_assert_int_eq(request_check_owner(&r), 0);
	ck_assert_uint_eq(r.owner, 1000);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_args)
{
	Daemon d;
	Request r;

	daemon_init(&d, "");
	r = request(&d, 1000, 0, 0);
	r.caller_pid = 4242;
	ck_assert_int_eq(request_check_args(&r), 0);
	ck_assert_int_eq(r.pid, 4242);
	ck_assert_int_eq(r.tid, 4242);
	r.pid_arg = 10;
	r.tid_arg = 11;
	ck_assert_int_eq(request_check_args(&r), 0);
	ck_assert_int_eq(r.pid, 10);
	ck_assert_int_eq(r.tid, 11);
	r.tid_arg = 1ULL << 31;
	ck_assert_int_eq(request_check_args(&r), REQUEST_E_INVALID_ARGS);
	ck_assert_str_eq(r.why, "pid 10 / tid 2147483648 out of range");
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_policy)
{
	PolicyEval e;
	const PolicyGrant *g = &e.grant;
	const char *user = e.user;
	Daemon d;
	Request r;

	daemon_init(&d, "[Default]\nRealtimePriority=20\nPolicies=rr\nNice=-5\n");
	r = request(&d, getuid(), getpid(), getpid());
	r.owner = getuid();
	ck_assert_int_eq(request_check_policy(&r, &e), 0);
	ck_assert_int_eq(g->realtime_priority, 20);
	ck_assert_ptr_nonnull(user);

	r.value = 21;
	ck_assert_int_eq(request_check_policy(&r, &e), REQUEST_E_POLICY_DENIED);
	ck_assert_msg(strstr(r.why, "priority 21") && strstr(r.why, fixture_conf), "%s", r.why);
	/* the file:line a refusal keeps for its user (refusals.h) */
	ck_assert_msg(startswith(r.cite, fixture_conf) &&
			      streq(r.cite + strlen(fixture_conf), ":2"),
		      "%s", r.cite);
	r.kind = POLICY_GRANT_FIFO;
	r.value = 10;
	ck_assert_int_eq(request_check_policy(&r, &e), REQUEST_E_POLICY_DENIED);
	r.kind = POLICY_GRANT_NICE;
	r.value = -6;
	ck_assert_int_eq(request_check_policy(&r, &e), REQUEST_E_POLICY_DENIED);
	r.value = -5;
	ck_assert_int_eq(request_check_policy(&r, &e), 0);
	/* no policy allows priority 0 */
	r.kind = POLICY_GRANT_RR;
	r.value = 0;
	ck_assert_int_eq(request_check_policy(&r, &e), REQUEST_E_INVALID_ARGS);

	/* rtkit's realtime calls get rr where policy allows no fifo */
	r.kind = POLICY_GRANT_FIFO;
	r.compat_rt = true;
	r.value = 10;
	ck_assert_int_eq(request_check_policy(&r, &e), 0);
	ck_assert_int_eq(r.kind, POLICY_GRANT_RR);

	/* GrantLimits needs only the policy */
	r = request(&d, getuid(), getpid(), getpid());
	r.type = REQUEST_LIMITS;
	r.value = 99;
	ck_assert_int_eq(request_check_policy(&r, &e), 0);

	r.owner = 4000000000u;
	ck_assert_int_eq(request_check_policy(&r, &e), REQUEST_E_POLICY_DENIED);
	ck_assert_str_eq(r.why, "uid 4000000000 is not a known user");
	fixture_daemon_fini(&d);
}
END_TEST

/* A grant of the table: thread tid of pid (pinned by this test's own
 * pidfd), uid, start time 1000. */
static void grant(Daemon *d, pid_t pid, pid_t tid, uid_t uid)
{
	const SchedState before = { .policy = SCHED_OTHER };

	ck_assert_int_eq(grant_table_add(d->grants, pid, 1, uid, pidfd_open_cloexec(getpid()), tid,
					 1000, POLICY_GRANT_RR, 10, &before, 0, NULL),
			 0);
	fixture_task(pid, tid, uid, uid, uid, 1000);
}

START_TEST(test_limits)
{
	Daemon d;
	Request r;

	daemon_init(&d, "[Daemon]\nUsersMax=2\nProcessesPerUserMax=2\nThreadsPerUserMax=3\n");
	grant(&d, 500, 501, 1000);
	grant(&d, 500, 502, 1000);
	grant(&d, 600, 601, 1000);

	r = request(&d, 1000, 500, 503);
	r.owner = 1000;
	r.pid_start = 1;
	ck_assert_int_eq(request_check_limits(&r, "alice"), REQUEST_E_LIMITS_EXCEEDED);
	ck_assert_str_eq(r.why,
			 "user alice holds grants for 3 threads already (ThreadsPerUserMax=3)");
	/* [Daemon] keys are cited too */
	ck_assert_msg(startswith(r.cite, fixture_conf) &&
			      streq(r.cite + strlen(fixture_conf), ":4"),
		      "%s", r.cite);
	/* a grant that is there already changes, and counts nothing new */
	r.tid = 502;
	ck_assert_int_eq(request_check_limits(&r, "alice"), 0);
	/* another process of the same pid is another process */
	r.pid_start = 2;
	ck_assert_int_eq(request_check_limits(&r, "alice"), REQUEST_E_LIMITS_EXCEEDED);
	ck_assert_str_eq(r.why,
			 "user alice holds grants for 2 processes already (ProcessesPerUserMax=2)");

	/* near a cap, a grant whose thread is gone does not count */
	fixture_task(500, 502, 1000, 1000, 1000, 2000); /* tid 502 is another thread now */
	r = request(&d, 1000, 500, 503);
	r.owner = 1000;
	r.pid_start = 1;
	ck_assert_int_eq(request_check_limits(&r, "alice"), 0);
	ck_assert_uint_eq(d.grants->n_grants, 2);

	/* UsersMax=: a third user is refused, the two who hold grants are not */
	grant(&d, 700, 701, 1001);
	r = request(&d, 1002, 800, 801);
	r.owner = 1002;
	ck_assert_int_eq(request_check_limits(&r, "carol"), REQUEST_E_LIMITS_EXCEEDED);
	ck_assert_str_eq(r.why, "2 users hold grants already (UsersMax=2)");
	r = request(&d, 1001, 700, 702);
	r.owner = 1001;
	r.pid_start = 1;
	ck_assert_int_eq(request_check_limits(&r, "bob"), 0);

	/* GrantLimits and resets hold no grant */
	r = request(&d, 1002, 800, 801);
	r.owner = 1002;
	r.type = REQUEST_LIMITS;
	ck_assert_int_eq(request_check_limits(&r, "carol"), 0);
	fixture_daemon_fini(&d);
}
END_TEST

/* The admission: ActionsPerBurst= per BurstSec= of each user's grant
 * requests, decided before anything is read of /proc. */
START_TEST(test_rate)
{
	const uint64_t now = 1000ULL * 1000000ULL;
	Daemon d;
	Request r, other;

	daemon_init(&d, "[Daemon]\nActionsPerBurst=3\nBurstSec=60\n");
	r = request(&d, 1000, 500, 500);
	other = request(&d, 1001, 600, 600);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(request_check_admission(&r, now), 0);
	ck_assert_int_eq(request_check_admission(&r, now), REQUEST_E_RATE_LIMITED);
	ck_assert_str_eq(r.why, "too many requests from uid 1000: at most 3 per 60 s "
				"(ActionsPerBurst=, BurstSec=)");
	ck_assert_msg(startswith(r.cite, fixture_conf) &&
			      streq(r.cite + strlen(fixture_conf), ":2"),
		      "%s", r.cite);
	/* the limit is per user */
	ck_assert_int_eq(request_check_admission(&other, now), 0);
	/* resets are not counted */
	r.type = REQUEST_RESET_THREAD;
	ck_assert_int_eq(request_check_admission(&r, now), 0);
	fixture_daemon_fini(&d);
}
END_TEST

/* One limiter for ActionsPerBurst=: a user's administrator's calls
 * (bus-admin.c) and grant requests count in the same window. */
START_TEST(test_rate_shared_with_manage)
{
	const uint64_t now = 1000ULL * 1000000ULL;
	Daemon d;
	Request r;
	User *u;

	daemon_init(&d, "[Daemon]\nActionsPerBurst=3\nBurstSec=60\n");
	u = users_get(d.users, 1000, now);
	ck_assert_ptr_nonnull(u);
	for (int i = 0; i < 2; i++)
		ck_assert(user_count_action(u, 3, 60 * 1000000ULL, now));
	r = request(&d, 1000, 500, 500);
	ck_assert_int_eq(request_check_admission(&r, now), 0);
	ck_assert_int_eq(request_check_admission(&r, now), REQUEST_E_RATE_LIMITED);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_refusing)
{
	const uint64_t now = 1000ULL * 1000000ULL;
	Daemon d;
	Request r, root, other;

	daemon_init(&d, "[Daemon]\nCanaryRefuseSec=30\n");
	r = request(&d, 1000, 500, 500);
	r.owner = 1000;
	ck_assert_int_eq(request_check_refusing(&r, now), 0);
	users_cool_down(d.users, 1000, now + 4500000, now);
	ck_assert_int_eq(request_check_refusing(&r, now), REQUEST_E_REFUSING);
	/* the admission refuses it first, before anything is read of /proc */
	ck_assert_int_eq(request_check_admission(&r, now), REQUEST_E_REFUSING);
	ck_assert_str_eq(r.why, "refusing uid 1000 for 5 more seconds: the canary watchdog found "
				"its realtime threads starving the system (CanaryRefuseSec=30s)");
	/* GrantLimits would give back the RLIMIT_RTPRIO the canary took */
	r.type = REQUEST_LIMITS;
	ck_assert_int_eq(request_check_refusing(&r, now), REQUEST_E_REFUSING);
	/* a reset takes nothing: served */
	r.type = REQUEST_RESET_THREAD;
	ck_assert_int_eq(request_check_refusing(&r, now), 0);
	r.type = REQUEST_SCHED;

	/* per user: root's own requests and another user's are served */
	root = request(&d, 0, 1, 1);
	ck_assert_int_eq(request_check_refusing(&root, now), 0);
	root.type = REQUEST_LIMITS;
	ck_assert_int_eq(request_check_refusing(&root, now), 0);
	other = request(&d, 1001, 600, 600);
	other.owner = 1001;
	ck_assert_int_eq(request_check_refusing(&other, now), 0);
	other.type = REQUEST_LIMITS;
	ck_assert_int_eq(request_check_refusing(&other, now), 0);
	/* root asking for the refused user's thread: refused */
	root = request(&d, 0, 500, 500);
	root.owner = 1000;
	ck_assert_int_eq(request_check_refusing(&root, now), REQUEST_E_REFUSING);

	/* over after CanaryRefuseSec */
	ck_assert_int_eq(request_check_refusing(&r, now + 4500000), 0);
	fixture_daemon_fini(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-request-check");
	TCase *tc;

	tc = check_add_case(s, "checks",
			    CHECK_TESTS(test_owner, test_args, test_policy, test_limits, test_rate,
					test_rate_shared_with_manage, test_refusing));
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	return check_run(s);
}
