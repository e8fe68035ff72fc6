/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/request-pidns.c: the ids a caller in a pid
 * namespace names, mapped to realtimed's through the NSpid lines of a fake
 * /proc (daemon-fixture.h) whose ns/pid links say which namespace each
 * process lives in. realtimed's namespace is pid:[100]; the caller's,
 * pid:[200], is one level below, beside pid:[300], where the same ids
 * name other processes; pid:[400] is nested in pid:[200]. Each refusal
 * names the namespace; a caller in realtimed's namespace keeps its ids,
 * unless its tid is no thread of the pid and the pid's process lives in a
 * namespace below (xdg-desktop-portal's call).
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "creds.h"
#include "daemon-fixture.h"
#include "request-check.h"
#include "request-pidns.h"
#include "users.h"

/* PROC/PID or PROC/PID/task/TID of the test's uid, with the NSpid line
 * nspid ("1000\t5"), in namespace ns when it is a process (tid 0). */
static void task(pid_t pid, pid_t tid, const char *nspid, unsigned ns)
{
	char path[512], text[256];
	uid_t uid = getuid();

	fixture_stat(pid, tid, 7);
	if (tid)
		snprintf(path, sizeof(path), "%s/%d/task/%d/status", fixture_proc, (int)pid,
			 (int)tid);
	else
		snprintf(path, sizeof(path), "%s/%d/status", fixture_proc, (int)pid);
	snprintf(text, sizeof(text), "Name:\ttest\nUid:\t%u\t%u\t%u\t%u\nNSpid:\t%s\n",
		 (unsigned)uid, (unsigned)uid, (unsigned)uid, (unsigned)uid, nspid);
	fixture_write(path, text);
	if (tid == 0)
		fixture_pidns(pid, ns);
}

/* The fake machine of the header comment. */
static void machine(void)
{
	fixture_pidns(0, 100);
	task(900, 0, "900", 100); /* a host process */
	task(900, 900, "900", 0);
	task(900, 901, "901", 0);
	task(1000, 0, "1000\t5", 200); /* the caller: pid 5 in its namespace */
	task(1000, 1000, "1000\t5", 0);
	task(1000, 1002, "1002\t6", 0);
	task(1010, 0, "1010\t7", 200); /* another process there: pid 7 */
	task(1010, 1010, "1010\t7", 0);
	task(1010, 1011, "1011\t8", 0);
	task(1020, 0, "1020\t7", 300); /* pid 7 too, in the namespace beside */
	task(1020, 1020, "1020\t7", 0);
	task(1020, 1021, "1021\t8", 0);
	task(1030, 0, "1030\t9\t1", 400); /* nested: pid 9 in 200, 1 in 400 */
	task(1030, 1030, "1030\t9\t1", 0);
	task(1030, 1031, "1031\t10\t2", 0);
}

static void daemon_init(Daemon *d)
{
	fixture_write(fixture_conf, "[Default]\nNice=10\n");
	fixture_daemon_init(d, NULL);
	machine();
}

/* r: a grant request of uid from caller, naming pid and tid. */
static int map_as(Daemon *d, uid_t uid, pid_t caller, uint64_t pid, uint64_t tid, Request *r)
{
	*r = (Request){ .d = d,
			.type = REQUEST_SCHED,
			.kind = POLICY_GRANT_NICE,
			.value = 10,
			.uid = uid,
			.caller_pid = caller,
			.pid_arg = pid,
			.tid_arg = tid,
			.pidfd = -EBADF,
			.tidfd = -EBADF };
	ck_assert_int_eq(request_check_args(r), 0);
	return request_map_pidns(r);
}

/* The same for the test's uid. */
static int map(Daemon *d, pid_t caller, uint64_t pid, uint64_t tid, Request *r)
{
	return map_as(d, getuid(), caller, pid, tid, r);
}

START_TEST(test_caller_in_namespace)
{
	Daemon d;
	Request r;

	daemon_init(&d);
	/* nothing named: the caller's main thread */
	ck_assert_int_eq(map(&d, 1000, 0, 0, &r), 0);
	ck_assert_int_eq(r.pid, 1000);
	ck_assert_int_eq(r.tid, 1000);
	/* its own pid and its thread, by their ids there */
	ck_assert_int_eq(map(&d, 1000, 5, 6, &r), 0);
	ck_assert_int_eq(r.pid, 1000);
	ck_assert_int_eq(r.tid, 1002);
	ck_assert_uint_eq(r.pidns_level, 1);
	ck_assert_uint_eq(r.caller_pidns, 200);
	ck_assert_int_eq(map(&d, 1000, 0, 5, &r), 0);
	ck_assert_int_eq(r.tid, 1000);
	/* another process of its namespace, never the one beside with the same id */
	ck_assert_int_eq(map(&d, 1000, 7, 8, &r), 0);
	ck_assert_int_eq(r.pid, 1010);
	ck_assert_int_eq(r.tid, 1011);
	ck_assert_int_eq(map(&d, 1000, 7, 0, &r), 0);
	ck_assert_int_eq(r.tid, 1010);
	/* the main thread, by the process's id */
	ck_assert_int_eq(map(&d, 1000, 7, 7, &r), 0);
	ck_assert_int_eq(r.tid, 1010);
	ck_assert_int_eq(request_pidns_verify(&r), 0);

	/* after the search, the thread found still has the id named: else
	 * its tid was reused meanwhile */
	ck_assert_int_eq(map(&d, 1000, 7, 8, &r), 0);
	ck_assert_int_eq(request_pidns_verify(&r), 0);
	task(1010, 1011, "1011\t99", 0);
	ck_assert_int_eq(request_pidns_verify(&r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "thread 8 of the caller's pid namespace (pid:[200]) exited");
	fixture_pidns(1010, 300); /* a process of another namespace now */
	ck_assert_int_eq(map(&d, 1000, 0, 5, &r), 0);
	r.pid = r.tid = 1010;
	r.pid_arg = 7;
	r.tid_arg = 0;
	ck_assert_int_eq(request_pidns_verify(&r), REQUEST_E_NO_SUCH_PROCESS);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_refused)
{
	Daemon d;
	Request r;

	daemon_init(&d);
	/* a thread of another process there */
	ck_assert_int_eq(map(&d, 1000, 5, 8, &r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "tid 8 is no thread of pid 5 in the caller's pid namespace "
				"(pid:[200])");
	ck_assert_int_eq(map(&d, 1000, 0, 8, &r), REQUEST_E_NO_SUCH_PROCESS);
	/* host ids of a process outside: not looked up as the host's */
	ck_assert_int_eq(map(&d, 1000, 900, 901, &r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "pid 900 is no process in the caller's pid namespace (pid:[200])");
	ck_assert_int_eq(map(&d, 1000, 0, 901, &r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "tid 901 is no thread of pid 5 in the caller's pid namespace "
				"(pid:[200])");
	/* a process of a nested namespace is not followed by its id here */
	ck_assert_int_eq(map(&d, 1000, 9, 0, &r), REQUEST_E_NO_SUCH_PROCESS);
	/* the process beside, as its own caller: its namespace, its ids */
	ck_assert_int_eq(map(&d, 1020, 7, 8, &r), 0);
	ck_assert_int_eq(r.tid, 1021);
	ck_assert_int_eq(map(&d, 1020, 5, 0, &r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "pid 5 is no process in the caller's pid namespace (pid:[300])");
	/* a caller that is gone */
	ck_assert_int_eq(map(&d, 1099, 5, 6, &r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_str_eq(r.why, "the calling process 1099 exited; its ids cannot be mapped");
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_hostile_proc)
{
	char path[512];
	Daemon d;
	Request r;

	daemon_init(&d);
	/* an NSpid line that says nothing sound: no mapping, an answer */
	snprintf(path, sizeof(path), "%s/1000/status", fixture_proc);
	fixture_write(path, "Name:\ttest\nNSpid:\t1000\tfive\n");
	ck_assert_int_eq(map(&d, 1000, 5, 6, &r), -EINVAL);
	ck_assert_str_eq(r.why, "could not read the pid namespace ids of process 1000: Invalid "
				"argument");
	/* one id only in a namespace that is not realtimed's: not below it */
	fixture_write(path, "Name:\ttest\nNSpid:\t1000\n");
	ck_assert_int_eq(map(&d, 1000, 5, 6, &r), REQUEST_E_PERMISSION_DENIED);
	/* a link that is no pid namespace */
	snprintf(path, sizeof(path), "%s/1010/ns/pid", fixture_proc);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(symlink("pid:[200", path), 0);
	snprintf(path, sizeof(path), "%s/1000/status", fixture_proc);
	fixture_write(path, "Name:\ttest\nNSpid:\t1000\t5\n");
	ck_assert_int_eq(map(&d, 1000, 7, 0, &r), REQUEST_E_NO_SUCH_PROCESS);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_host_caller)
{
	Daemon d;
	Request r;

	daemon_init(&d);
	/* realtimed's namespace: the ids stay as they are */
	ck_assert_int_eq(map(&d, 900, 1010, 8, &r), 0);
	ck_assert_int_eq(r.pid, 1010);
	ck_assert_int_eq(r.tid, 8);
	ck_assert_uint_eq(r.pidns_level, 0);
	/* the portal's call: the host pid, the tid of the app's namespace */
	ck_assert_int_eq(request_pidns_retry(&r, REQUEST_E_NO_SUCH_PROCESS), 0);
	ck_assert_int_eq(r.tid, 1011);
	/* by the innermost id, for a process of a nested namespace */
	ck_assert_int_eq(map(&d, 900, 1030, 2, &r), 0);
	ck_assert_int_eq(request_pidns_retry(&r, REQUEST_E_NO_SUCH_PROCESS), 0);
	ck_assert_int_eq(r.tid, 1031);
	/* a host tid that is a thread of the pid wins: nothing to retry */
	ck_assert_int_eq(map(&d, 900, 1010, 1011, &r), 0);
	ck_assert_int_eq(request_pidns_retry(&r, REQUEST_E_NO_SUCH_PROCESS),
			 REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_int_eq(r.tid, 1011);
	/* a host process: no namespace below to look in */
	ck_assert_int_eq(map(&d, 900, 900, 5, &r), 0);
	ck_assert_int_eq(request_pidns_retry(&r, REQUEST_E_NO_SUCH_PROCESS),
			 REQUEST_E_NO_SUCH_PROCESS);
	/* no such thread there either */
	ck_assert_int_eq(map(&d, 900, 1010, 99, &r), 0);
	ck_assert_int_eq(request_pidns_retry(&r, REQUEST_E_NO_SUCH_PROCESS),
			 REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_int_eq(r.tid, 99);
	/* a caller in a namespace gets no second look */
	ck_assert_int_eq(map(&d, 1000, 5, 6, &r), 0);
	ck_assert_int_eq(request_pidns_retry(&r, REQUEST_E_NO_SUCH_PROCESS),
			 REQUEST_E_NO_SUCH_PROCESS);
	fixture_daemon_fini(&d);
}
END_TEST

/* A connection's pid namespace is read once, kept with its credentials. */
START_TEST(test_cached)
{
	DBusMessage *m;
	Daemon d;
	Request r;

	daemon_init(&d);
	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ResetThread");
	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_set_sender(m, ":1.42"));
	ck_assert_int_eq(creds_cache_put(d.creds, ":1.42", getuid(), 1000), 0);
	ck_assert_int_eq(map(&d, 1000, 5, 6, &r), 0); /* no message: read, not kept */
	r.msg = m;
	ck_assert_int_eq(request_map_pidns(&r), 0);
	ck_assert_uint_eq(r.caller_pidns, 200);
	/* the link says otherwise now; the connection's process cannot have moved */
	fixture_pidns(1000, 100);
	ck_assert_int_eq(request_check_args(&r), 0);
	ck_assert_int_eq(request_map_pidns(&r), 0);
	ck_assert_uint_eq(r.caller_pidns, 200);
	ck_assert_int_eq(r.tid, 1002);
	dbus_message_unref(m);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_bounded)
{
	Daemon d;
	Request r;

	daemon_init(&d);
	/* more threads than a search reads: it gives up, and says so */
	for (int i = 0; i < PIDNS_READ_MAX + 8; i++) {
		char ids[64];

		snprintf(ids, sizeof(ids), "%d\t%d", 2000 + i, 100 + i);
		task(1010, 2000 + i, ids, 0);
	}
	ck_assert_int_eq(map(&d, 1000, 7, 4000, &r), REQUEST_E_NO_SUCH_PROCESS);
	ck_assert_msg(strstr(r.why, "gave up") && strstr(r.why, "(pid:[200])"), "%s", r.why);
	fixture_daemon_fini(&d);
}
END_TEST

/* A search runs after the admission (request_check_admission(), before
 * anything is read of /proc), which counted the grant request: searches
 * count nothing more, and a crowd of uids that search (one person's
 * /etc/subuid range, on a bus that accepts any uid) leaves a user who
 * never asked counted, not refused. */
START_TEST(test_search_counts_nothing)
{
	const uint64_t now = 1000ULL * 1000000ULL;
	Daemon d;
	Request r, other;

	fixture_write(fixture_conf, "[Default]\nNice=10\n[Daemon]\nActionsPerBurst=1\n"
				    "BurstSec=60\n");
	fixture_daemon_init(&d, NULL);
	machine();
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(map(&d, 1000, 7, 8, &r), 0);
	/* the crowd: each one searches, none is refused for the others */
	for (uid_t u = 0; u < 2 * USERS_MAX; u++)
		ck_assert_int_eq(map_as(&d, 500000 + u, 1000, 7, 8, &other),
				 REQUEST_E_NO_SUCH_PROCESS);
	other = (Request){ .d = &d, .uid = 1001, .type = REQUEST_SCHED };
	ck_assert_int_eq(request_check_admission(&other, now), 0);
	fixture_daemon_fini(&d);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-request-pidns", "pidns",
			      CHECK_TESTS(test_caller_in_namespace, test_refused, test_hostile_proc,
					  test_host_caller, test_cached, test_bounded,
					  test_search_counts_nothing),
			      fixture_setup, fixture_teardown);
}
