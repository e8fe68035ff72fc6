// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the rlimits realtimed puts on a process with prlimit(),
 * which names the process by its pid number: GrantLimits
 * (daemon/request-sched.c) and the lowering of RLIMIT_RTTIME to RTTime=
 * before a realtime grant. Each is checked against the pinned pidfd before
 * and after the change; a process that exited is answered NoSuchProcess,
 * and a change that landed on a process that took its pid is put back
 * where that process still shows exactly what realtimed set.
 *
 * The targets are children of the test, on the daemon fixture's fake /proc
 * (daemon-fixture.h), whose limits files are copies of theirs. The reuse of
 * a pid is made certain through the linker's --wrap=prlimit64: at the
 * chosen call, the target is killed and reaped (its pidfd turns readable),
 * and from then on its pid names another child, as it would name a process
 * that took the number.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "daemon-policy.h"
#include "macro.h"
#include "pidfd.h"
#include "request-check.h"
#include "request-sched.h"

#define MIB (1024ULL * 1024ULL)

/* What the wrapper does: at the next change of resource reuse_resource on
 * reuse_pid, that child dies and its pid names reuse_by from then on; with
 * change_after, reuse_by changes that limit itself right after (to
 * change_to). Every change is recorded. */
static pid_t reuse_pid, reuse_by, renamed_from, renamed_to;
static int reuse_resource;
static bool change_after;
static struct rlimit change_to;

typedef struct Change {
	pid_t pid; /* the process it went to */
	int resource;
	struct rlimit rl;
} Change;
static Change changes[16];
static unsigned n_changes;

int __real_prlimit64(pid_t pid, int resource, const struct rlimit *rl, struct rlimit *old);
int __wrap_prlimit64(pid_t pid, int resource, const struct rlimit *rl, struct rlimit *old);

int __wrap_prlimit64(pid_t pid, int resource, const struct rlimit *rl, struct rlimit *old)
{
	int k;

	if (rl && reuse_pid && pid == reuse_pid && resource == reuse_resource) {
		(void)kill(reuse_pid, SIGKILL);
		(void)waitpid(reuse_pid, NULL, 0);
		renamed_from = reuse_pid;
		renamed_to = reuse_by;
		reuse_pid = 0;
	}
	if (renamed_from && pid == renamed_from)
		pid = renamed_to;
	if (rl && n_changes < sizeof(changes) / sizeof(changes[0]))
		changes[n_changes++] = (Change){ pid, resource, *rl };
	k = __real_prlimit64(pid, resource, rl, old);
	if (rl && change_after && pid == renamed_to) {
		change_after = false;
		ck_assert_int_eq(__real_prlimit64(pid, resource, &change_to, NULL), 0);
	}
	return k;
}

/* From a's next change of resource on, its pid names b. */
static void reuse_as(pid_t a, pid_t b, int resource)
{
	reuse_pid = a;
	reuse_by = b;
	reuse_resource = resource;
}

/* A child that sleeps with these soft and hard limits of resource. */
static pid_t child_start(int resource, rlim_t soft, rlim_t hard)
{
	int p[2];
	char c = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit rl = { soft, hard };

		if (setrlimit(resource, &rl) < 0)
			_exit(1);
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void child_stop(pid_t pid)
{
	if (kill(pid, SIGKILL) == 0)
		(void)waitpid(pid, NULL, 0);
}

static struct rlimit limit_of(pid_t pid, int resource)
{
	struct rlimit rl;

	ck_assert_int_eq(__real_prlimit64(pid, resource, NULL, &rl), 0);
	return rl;
}

/* pid in the fake /proc: the caller's, its limits file a copy of its own. */
static void fake_proc(pid_t pid)
{
	char path[512], text[4096];
	ssize_t n;
	int fd;

	fixture_stat(pid, 0, 1000);
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	n = read(fd, text, sizeof(text) - 1);
	ck_assert_int_gt(n, 0);
	text[n] = 0;
	close(fd);
	snprintf(path, sizeof(path), "%s/%d/limits", fixture_proc, (int)pid);
	fixture_write(path, text);
}

/* The daemon with this policy, and a request of the test's uid for pid,
 * pinned by a pidfd as request_pin() leaves it; its policy in *e. */
static Request request(Daemon *d, const char *policy, RequestType type, pid_t pid, PolicyEval *e)
{
	DBusMessage *m;
	Request r;

	fixture_write(fixture_conf, policy);
	fixture_daemon_init(d, NULL);
	fake_proc(pid);
	m = dbus_message_new_method_call("org.realtimed.Realtime1", "/org/realtimed/Realtime1",
					 "org.realtimed.Realtime1", "GrantLimits");
	ck_assert_ptr_nonnull(m);
	dbus_message_set_serial(m, 1);
	r = (Request){ .d = d,
		       .msg = m,
		       .type = type,
		       .kind = POLICY_GRANT_RR,
		       .value = 1,
		       .uid = getuid(),
		       .owner = getuid(),
		       .caller_pid = pid,
		       .pid = pid,
		       .tid = pid,
		       .pidfd = pidfd_open_cloexec(pid),
		       .tidfd = -EBADF };
	ck_assert_int_ge(r.pidfd, 0);
	ck_assert_int_eq(request_check_policy(&r, e), 0);
	n_changes = 0;
	return r;
}

static void request_done(Daemon *d, Request *r)
{
	if (r->msg)
		dbus_message_unref(r->msg);
	if (r->reply)
		dbus_message_unref(r->reply);
	close(r->pidfd);
	fixture_daemon_fini(d);
}

#define POLICY_MEMLOCK "[Default]\nMemLock=1M\n"
#define POLICY_RTTIME "[Default]\nRTTime=100ms\nRealtimePriority=10\nPolicies=rr\n"

/* The change lands: the process holds what policy gives. */
START_TEST(test_limits_granted)
{
	pid_t a = child_start(RLIMIT_MEMLOCK, 0, 8 * MIB);
	PolicyEval e;
	Daemon d;
	Request r = request(&d, POLICY_MEMLOCK, REQUEST_LIMITS, a, &e);
	struct rlimit rl;

	ck_assert_int_eq(request_grant_limits(&r, &e.grant, e.user), 0);
	ck_assert_ptr_nonnull(r.reply);
	rl = limit_of(a, RLIMIT_MEMLOCK);
	ck_assert_uint_eq(rl.rlim_cur, 1 * MIB);
	ck_assert_uint_eq(rl.rlim_max, 8 * MIB);
	request_done(&d, &r);
	child_stop(a);
}
END_TEST

/* The process exits as prlimit() runs and another takes its pid: the
 * change went to that one, which gets its own limits back, unless it
 * changed them itself meanwhile (what it holds then is not realtimed's
 * doing, and stays); either way the caller is told the process is gone. */
static const struct {
	bool changed; /* by the process that took the pid, right after */
	unsigned n_changes;
	rlim_t want_cur;
} reused_cases[] = {
	{ false, 2, 0 },      /* the change, and its undo */
	{ true, 1, 2 * MIB }, /* the change alone */
};

START_TEST(test_limits_reused)
{
	pid_t a = child_start(RLIMIT_MEMLOCK, 0, 8 * MIB),
	      b = child_start(RLIMIT_MEMLOCK, 0, 8 * MIB);
	PolicyEval e;
	Daemon d;
	Request r = request(&d, POLICY_MEMLOCK, REQUEST_LIMITS, a, &e);
	struct rlimit rl;
	int k;

	reuse_as(a, b, RLIMIT_MEMLOCK);
	change_after = reused_cases[_i].changed;
	change_to = (struct rlimit){ 2 * MIB, 8 * MIB };
	k = request_grant_limits(&r, &e.grant, e.user);
	ck_assert_msg(k == REQUEST_E_NO_SUCH_PROCESS, "answer %d: %s", k, r.why);
	ck_assert_ptr_null(r.reply);
	ck_assert_uint_eq(n_changes, reused_cases[_i].n_changes);
	ck_assert_int_eq(changes[0].pid, b);
	ck_assert_uint_eq(changes[0].rl.rlim_cur, 1 * MIB);
	rl = limit_of(b, RLIMIT_MEMLOCK);
	ck_assert_uint_eq(rl.rlim_cur, reused_cases[_i].want_cur);
	ck_assert_uint_eq(rl.rlim_max, 8 * MIB);
	request_done(&d, &r);
	child_stop(b);
}
END_TEST

/* The process exited before the change: nothing is changed at all. */
START_TEST(test_limits_exited_before)
{
	pid_t a = child_start(RLIMIT_MEMLOCK, 0, 8 * MIB);
	PolicyEval e;
	Daemon d;
	Request r = request(&d, POLICY_MEMLOCK, REQUEST_LIMITS, a, &e);
	int k;

	child_stop(a);
	k = request_grant_limits(&r, &e.grant, e.user);
	ck_assert_msg(k == REQUEST_E_NO_SUCH_PROCESS, "answer %d: %s", k, r.why);
	ck_assert_uint_eq(n_changes, 0);
	request_done(&d, &r);
}
END_TEST

/* Before a realtime grant, RLIMIT_RTTIME comes down to RTTime=. */
START_TEST(test_rttime_lowered)
{
	pid_t a = child_start(RLIMIT_RTTIME, 50000, 200000);
	PolicyEval e;
	Daemon d;
	Request r = request(&d, POLICY_RTTIME, REQUEST_SCHED, a, &e);
	struct rlimit rl;

	ck_assert_int_eq(request_lower_rttime(&r, &e.grant, e.user), 0);
	rl = limit_of(a, RLIMIT_RTTIME);
	ck_assert_uint_eq(rl.rlim_cur, 50000);
	ck_assert_uint_eq(rl.rlim_max, 100000);
	request_done(&d, &r);
	child_stop(a);
}
END_TEST

/* Lowered on a process that took the pid: put back as that process had
 * it (raising a hard limit again needs CAP_SYS_RESOURCE, as realtimed
 * has; without it the test sees the attempt). */
START_TEST(test_rttime_reused)
{
	pid_t a = child_start(RLIMIT_RTTIME, 50000, 200000),
	      b = child_start(RLIMIT_RTTIME, 50000, 200000);
	PolicyEval e;
	Daemon d;
	Request r = request(&d, POLICY_RTTIME, REQUEST_SCHED, a, &e);
	struct rlimit rl;
	int k;

	reuse_as(a, b, RLIMIT_RTTIME);
	k = request_lower_rttime(&r, &e.grant, e.user);
	ck_assert_msg(k == REQUEST_E_NO_SUCH_PROCESS, "answer %d: %s", k, r.why);
	ck_assert_uint_eq(n_changes, 2);
	ck_assert_int_eq(changes[0].pid, b);
	ck_assert_uint_eq(changes[0].rl.rlim_max, 100000);
	ck_assert_int_eq(changes[1].pid, b);
	ck_assert_uint_eq(changes[1].rl.rlim_cur, 50000);
	ck_assert_uint_eq(changes[1].rl.rlim_max, 200000);
	rl = limit_of(b, RLIMIT_RTTIME);
	if (rl.rlim_max == 100000)
		printf("test_rttime_reused: no CAP_SYS_RESOURCE, the hard limit stays lowered\n");
	else
		ck_assert_uint_eq(rl.rlim_max, 200000);
	request_done(&d, &r);
	child_stop(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-request-sched-limits");
	TCase *tc;

	tc = check_add_case(s, "prlimit",
			    CHECK_TESTS(test_limits_granted, test_limits_exited_before,
					test_rttime_lowered, test_rttime_reused));
	tcase_add_loop_test(tc, test_limits_reused, 0, ELEMENTSOF(reused_cases));
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	return check_run(s);
}
