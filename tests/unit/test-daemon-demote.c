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
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "demote.h"
#include "macro.h"

/* One thread of a case, listed with start time 1000: the start time of
 * its grant (0: none in the table), the one the fake /proc now shows, the
 * policy it runs after the demotion, and whether it must still be at the
 * sleeper's own nice 12. */
typedef struct CaseThread {
	uint64_t granted, now;
	int policy;
	bool nice_kept;
} CaseThread;

static const struct {
	const char *what;
	DemoteReason reason;
	size_t n;
	CaseThread threads[2];
	unsigned demoted;
	int order[2]; /* which thread the list then holds at 0 and 1 (-1: any) */
	unsigned grants_left;
} cases[] = {
	/* Another thread took the first tid since: only the second is
	 * demoted, moved to the front; both grants leave the table. */
	{ "reused tid skipped",
	  DEMOTE_POLICY,
	  2,
	  { { 1000, 2000, SCHED_BATCH, true }, { 1000, 1000, SCHED_IDLE, false } },
	  1,
	  { 1, -1 },
	  0 },
	/* A grant that a newer thread holds on the listed tid is that
	 * thread's: it stays, and the thread is not touched. */
	{ "newer grant on tid kept",
	  DEMOTE_RESET,
	  1,
	  { { 2000, 2000, SCHED_BATCH, false } },
	  0,
	  { -1, -1 },
	  1 },
	/* A thread the canary watched before its grant was recorded is not
	 * in the table: its start time alone decides whether it is touched.
	 * Every thread of the canary's list counts as demoted: the watchdog
	 * demoted it already. SCHED_OTHER only for a realtime thread: a
	 * SCHED_BATCH one stays. */
	/* A thread whose /proc stat cannot be read (a directory in its place
	 * here) cannot be told apart: it is not touched, and its grant stays,
	 * so that it is still supervised. */
	{ "unreadable thread kept",
	  DEMOTE_POLICY,
	  1,
	  { { 1000, UINT64_MAX, SCHED_BATCH, true } },
	  0,
	  { -1, -1 },
	  1 },
	{ "canary thread not in table",
	  DEMOTE_CANARY,
	  2,
	  { { 0, 2000, -1, false }, { 0, 1000, SCHED_BATCH, false } },
	  2,
	  { 0, 1 },
	  0 },
};

START_TEST(test_demote_case)
{
	Sleeper sl[2] = {};
	DemoteThread list[2];
	Daemon d;

	for (size_t i = 0; i < cases[_i].n; i++)
		sleeper_start(&sl[i]);
	fixture_daemon_init(&d, NULL);
	for (size_t i = 0; i < cases[_i].n; i++) {
		const CaseThread *t = &cases[_i].threads[i];

		if (t->granted)
			fixture_grant(&d, sl[i].tid, t->granted, 5);
		if (t->now == UINT64_MAX) {
			char path[PATH_MAX];

			fixture_stat(getpid(), sl[i].tid, 1000);
			snprintf(path, sizeof(path), "%s/%d/task/%d/stat", fixture_proc,
				 (int)getpid(), (int)sl[i].tid);
			(void)unlink(path);
			ck_assert_int_eq(mkdir(path, 0755), 0);
		} else
			fixture_stat(getpid(), sl[i].tid, t->now);
		list[i] = (DemoteThread){ .pid = getpid(), .tid = sl[i].tid, .start_time = 1000 };
	}
	ck_assert_msg(demote_threads(d.grants, list, cases[_i].n, cases[_i].reason) ==
			      cases[_i].demoted,
		      "%s", cases[_i].what);
	for (size_t i = 0; i < cases[_i].n; i++) {
		const CaseThread *t = &cases[_i].threads[i];

		if (cases[_i].order[i] >= 0)
			ck_assert_int_eq(list[i].tid, sl[cases[_i].order[i]].tid);
		if (t->policy >= 0)
			ck_assert_int_eq(sched_policy_of(sl[i].tid), t->policy);
		if (t->nice_kept)
			ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)sl[i].tid), 12);
	}
	ck_assert_uint_eq(d.grants->n_grants, cases[_i].grants_left);
	fixture_daemon_fini(&d);
}
END_TEST

START_TEST(test_reason_names)
{
	static const char *const names[_DEMOTE_REASON_MAX] = { "reset", "policy", "canary" };

	for (DemoteReason r = 0; r < _DEMOTE_REASON_MAX; r++)
		ck_assert_str_eq(demote_reason_to_string(r), names[r]);
	ck_assert_ptr_null(demote_reason_to_string(_DEMOTE_REASON_MAX));
	ck_assert_ptr_null(demote_reason_to_string(_DEMOTE_REASON_INVALID));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-demote");
	TCase *tc = check_add_case(s, "demote", CHECK_TESTS(test_reason_names));

	tcase_add_loop_test(tc, test_demote_case, 0, ELEMENTSOF(cases));
	tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
	return check_run(s);
}
