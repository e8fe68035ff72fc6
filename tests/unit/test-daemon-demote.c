/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/demote.c: demote_threads() changes a listed thread
 * only while its tid is still the thread that was granted, drops the
 * grants it was given, and leaves the grant another thread holds on a
 * reused tid. The start times come from a fake /proc (daemon-fixture.h),
 * so a tid can be made to look reused; the threads are the test's own
 * sleepers, whose grants record SCHED_IDLE as what they ran with before.
 */
#include <check.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "demote.h"

static DemoteThread thread_of(pid_t tid, uint64_t st)
{
	return (DemoteThread){ .pid = getpid(), .tid = tid, .start_time = st };
}

START_TEST(test_skips_reused_tid)
{
	Sleeper reused = {}, same = {};
	DemoteThread list[2];
	Daemon d;

	sleeper_start(&reused);
	sleeper_start(&same);
	fixture_daemon_init(&d, NULL);
	fixture_grant(&d, reused.tid, 1000, 5);
	fixture_grant(&d, same.tid, 1000, 5);
	fixture_stat(getpid(), reused.tid, 2000); /* another thread took the tid since */
	fixture_stat(getpid(), same.tid, 1000);

	list[0] = thread_of(reused.tid, 1000);
	list[1] = thread_of(same.tid, 1000);
	ck_assert_uint_eq(demote_threads(d.grants, list, 2, DEMOTE_POLICY), 1);
	/* the demoted thread, moved to the front */
	ck_assert_int_eq(list[0].tid, same.tid);
	/* the granted thread has what it had; the newcomer on its tid is untouched */
	ck_assert_int_eq(sched_policy_of(same.tid), SCHED_IDLE);
	ck_assert_int_eq(sched_policy_of(reused.tid), SCHED_BATCH);
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)reused.tid), 12);
	/* both grants are gone from the table */
	ck_assert_uint_eq(d.grants->n_grants, 0);
	fixture_daemon_fini(&d);
}
END_TEST

/* A grant that a newer thread holds on the listed tid is that thread's: it
 * stays, and the thread is not touched. */
START_TEST(test_keeps_newer_grant_on_tid)
{
	Sleeper s = {};
	DemoteThread list[1];
	Daemon d;

	sleeper_start(&s);
	fixture_daemon_init(&d, NULL);
	fixture_grant(&d, s.tid, 2000, 5);
	fixture_stat(getpid(), s.tid, 2000);

	list[0] = thread_of(s.tid, 1000);
	ck_assert_uint_eq(demote_threads(d.grants, list, 1, DEMOTE_RESET), 0);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	ck_assert_int_eq(sched_policy_of(s.tid), SCHED_BATCH);
	fixture_daemon_fini(&d);
}
END_TEST

/* A thread the canary watched before its grant was recorded is not in the
 * table: its start time alone decides whether it is touched. Every thread
 * of the canary's list counts as demoted: the watchdog demoted it already. */
START_TEST(test_canary_thread_not_in_table)
{
	Sleeper gone = {}, same = {};
	DemoteThread list[2];
	Daemon d;

	sleeper_start(&gone);
	sleeper_start(&same);
	fixture_daemon_init(&d, NULL);
	fixture_stat(getpid(), gone.tid, 2000);
	fixture_stat(getpid(), same.tid, 1000);

	list[0] = thread_of(gone.tid, 1000);
	list[1] = thread_of(same.tid, 1000);
	ck_assert_uint_eq(demote_threads(d.grants, list, 2, DEMOTE_CANARY), 2);
	ck_assert_int_eq(list[0].tid, gone.tid);
	ck_assert_int_eq(list[1].tid, same.tid);
	/* SCHED_OTHER only for a realtime thread: a SCHED_BATCH one stays */
	ck_assert_int_eq(sched_policy_of(same.tid), SCHED_BATCH);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_reason_names)
{
	ck_assert_str_eq(demote_reason_to_string(DEMOTE_RESET), "reset");
	ck_assert_str_eq(demote_reason_to_string(DEMOTE_POLICY), "policy");
	ck_assert_str_eq(demote_reason_to_string(DEMOTE_CANARY), "canary");
	ck_assert_ptr_null(demote_reason_to_string(_DEMOTE_REASON_MAX));
	ck_assert_ptr_null(demote_reason_to_string(_DEMOTE_REASON_INVALID));
}
END_TEST

int main(void)
{
	return check_run_case("daemon-demote", "demote",
			      CHECK_TESTS(test_skips_reused_tid, test_keeps_newer_grant_on_tid,
					  test_canary_thread_not_in_table, test_reason_names),
			      fixture_setup, fixture_teardown);
}
