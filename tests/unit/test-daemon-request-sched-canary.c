/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/request-sched.c: what the canary watchdog is given to
 * watch, on the daemon fixture's grant table (daemon-fixture.h). The
 * canary's own calls are replaced through the linker (--wrap): the test
 * records what canary_update() is handed and says what
 * canary_max_grant_priority() answers, so no canary thread runs.
 *   - only realtime grants (FIFO and RR) are handed over, never nice ones,
 *     each with its pid, tid, start time and uid, and with the settings of
 *     [Daemon]; each change of the table hands the list again, and the
 *     last realtime grant gone hands an empty one (the threads stop);
 *   - a grant under way (pending) is watched beside them, alone too;
 *   - Canary=no hands nothing and disables the watchdog;
 *   - a canary that cannot take the list is an error: the grant under way
 *     must not be made, and the canary is marked out of step;
 *   - the highest priority granted is 99 without the canary or with
 *     Canary=no, else what the watchdog can preempt.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "pidfd.h"
#include "request-sched.h"

#define TARGETS_MAX 16

/* What the last canary_update() was handed, and how it answers. */
static CanaryTarget got[TARGETS_MAX];
static size_t n_got, n_updates;
static CanarySettings got_settings;
static int update_result, max_priority = 99;

int __wrap_canary_update(Canary *c, const CanaryTarget *targets, size_t n, const CanarySettings *s);
int __wrap_canary_max_grant_priority(const Canary *c);

int __wrap_canary_update(Canary *c, const CanaryTarget *targets, size_t n, const CanarySettings *s)
{
	ck_assert_uint_le(n, TARGETS_MAX);
	if (n)
		memcpy(got, targets, n * sizeof(*targets));
	n_got = n;
	got_settings = *s;
	n_updates++;
	return update_result;
}

int __wrap_canary_max_grant_priority(const Canary *c)
{
	return max_priority;
}

/* A grant under way. */
static const CanaryTarget pending = { .pid = 4000, .tid = 4001, .start_time = 77, .uid = 1234 };

/* Never dereferenced: every call on it is the test's. */
static char fake_canary;

#define POLICY                                                                             \
	"[Daemon]\nCanary=yes\nCanaryWatchdogSec=3\nCanaryRefuseSec=30\n"                  \
	"CanaryDemoteUnknown=no\n\n[Default]\nNice=0\nRealtimePriority=50\nPolicies=fifo " \
	"rr\n"

static void setup(void)
{
	fixture_setup();
	n_got = n_updates = 0;
	update_result = 0;
	max_priority = 99;
}

static void daemon_init(Daemon *d, const char *policy)
{
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(d, NULL);
	d->canary = (Canary *)&fake_canary;
}

static void daemon_fini(Daemon *d)
{
	d->canary = NULL;
	fixture_daemon_fini(d);
}

/* A grant of tid (start time st) of this process, of kind and value,
 * added to d's table (whose change hands the canary the list). */
static void grant(Daemon *d, pid_t tid, uint64_t st, PolicyGrantKind kind, int value)
{
	const SchedState before = { .policy = SCHED_OTHER };
	pid_t self = getpid();

	ck_assert_int_eq(grant_table_add(d->grants, self, 1, getuid(), pidfd_open_cloexec(self),
					 tid, st, kind, value, &before, 0, NULL),
			 0);
}

/* Whether the canary was last handed tid, with start time st. */
static bool watched(pid_t tid, uint64_t st)
{
	for (size_t i = 0; i < n_got; i++)
		if (got[i].tid == tid) {
			ck_assert_uint_eq(got[i].start_time, st);
			ck_assert_int_eq(got[i].pid, getpid());
			ck_assert_uint_eq(got[i].uid, getuid());
			return true;
		}
	return false;
}

START_TEST(test_only_realtime_grants)
{
	Daemon d;

	daemon_init(&d, POLICY);
	grant(&d, 101, 1001, POLICY_GRANT_NICE, -5);
	ck_assert_uint_eq(n_updates, 1);
	ck_assert_uint_eq(n_got, 0);
	grant(&d, 102, 1002, POLICY_GRANT_FIFO, 40);
	grant(&d, 103, 1003, POLICY_GRANT_RR, 30);
	grant(&d, 104, 1004, POLICY_GRANT_NICE, 0);
	ck_assert_uint_eq(n_updates, 4);
	ck_assert_uint_eq(n_got, 2);
	ck_assert(watched(102, 1002));
	ck_assert(watched(103, 1003));
	ck_assert(!watched(101, 1001));
	ck_assert(!watched(104, 1004));
	ck_assert_uint_eq(got_settings.watchdog_usec, 3 * USEC_PER_SEC);
	ck_assert_uint_eq(got_settings.refuse_usec, 30 * USEC_PER_SEC);
	ck_assert(!got_settings.demote_unknown);
	ck_assert(d.canary_synced);

	/* asked again, the same list */
	ck_assert_int_eq(supervise_canary_sync(&d, NULL), 0);
	ck_assert_uint_eq(n_got, 2);

	/* the realtime grants end: an empty list, the threads stop */
	grant_table_remove(d.grants, grant_table_find(d.grants, getpid(), 102));
	ck_assert_uint_eq(n_got, 1);
	ck_assert(watched(103, 1003));
	grant_table_remove(d.grants, grant_table_find(d.grants, getpid(), 103));
	ck_assert_uint_eq(n_got, 0);
	daemon_fini(&d);
}
END_TEST

/* A grant under way is watched before it is made: with others, and
 * alone. */
START_TEST(test_pending_watched)
{
	Daemon d;

	daemon_init(&d, POLICY);
	ck_assert_int_eq(supervise_canary_sync(&d, &pending), 0);
	ck_assert_uint_eq(n_got, 1);
	ck_assert_int_eq(got[0].pid, 4000);
	ck_assert_int_eq(got[0].tid, 4001);
	ck_assert_uint_eq(got[0].start_time, 77);
	ck_assert_uint_eq(got[0].uid, 1234);

	grant(&d, 102, 1002, POLICY_GRANT_FIFO, 40);
	grant(&d, 101, 1001, POLICY_GRANT_NICE, -5);
	ck_assert_int_eq(supervise_canary_sync(&d, &pending), 0);
	ck_assert_uint_eq(n_got, 2);
	ck_assert(watched(102, 1002));
	ck_assert_int_eq(got[1].tid, 4001);
	daemon_fini(&d);
}
END_TEST

/* Canary=no: nothing is watched and the watchdog is off, whatever the
 * grants; 99 may be granted. */
START_TEST(test_canary_off)
{
	Daemon d;

	daemon_init(&d, "[Daemon]\nCanary=no\n\n[Default]\nNice=0\n");
	max_priority = 98;
	grant(&d, 102, 1002, POLICY_GRANT_FIFO, 40);
	ck_assert_int_eq(supervise_canary_sync(&d, &pending), 0);
	ck_assert_uint_eq(n_got, 0);
	ck_assert_uint_eq(got_settings.watchdog_usec, 0);
	ck_assert_int_eq(supervise_max_priority(&d), 99);
	daemon_fini(&d);
}
END_TEST

/* No canary at all (a unit test, realtimed before it made one): nothing
 * to hand, and no cap. */
START_TEST(test_no_canary)
{
	Daemon d;

	daemon_init(&d, POLICY);
	d.canary = NULL;
	grant(&d, 102, 1002, POLICY_GRANT_FIFO, 40);
	ck_assert_int_eq(supervise_canary_sync(&d, NULL), 0);
	ck_assert_uint_eq(n_updates, 0);
	ck_assert_int_eq(supervise_max_priority(&d), 99);
	daemon_fini(&d);
}
END_TEST

/* The canary cannot take the list: an error, so that the grant under way
 * is not made, and the canary is out of step until it takes one. */
START_TEST(test_canary_refuses_list)
{
	Daemon d;

	daemon_init(&d, POLICY);
	update_result = -ENOMEM;
	ck_assert_int_lt(supervise_canary_sync(&d, &pending), 0);
	ck_assert(!d.canary_synced);
	update_result = 0;
	ck_assert_int_eq(supervise_canary_sync(&d, &pending), 0);
	ck_assert(d.canary_synced);
	daemon_fini(&d);
}
END_TEST

/* With the canary in force, what its watchdog can preempt caps grants. */
START_TEST(test_max_priority)
{
	Daemon d;

	daemon_init(&d, POLICY);
	ck_assert_int_eq(supervise_max_priority(&d), 99);
	max_priority = 98; /* the watchdog as SCHED_FIFO 99 */
	ck_assert_int_eq(supervise_max_priority(&d), 98);
	max_priority = 0; /* it cannot run realtime */
	ck_assert_int_eq(supervise_max_priority(&d), 0);
	daemon_fini(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-request-sched-canary");
	TCase *tc = check_add_case(s, "supervise",
				   CHECK_TESTS(test_only_realtime_grants, test_pending_watched,
					       test_canary_off, test_no_canary,
					       test_canary_refuses_list, test_max_priority));

	tcase_add_checked_fixture(tc, setup, fixture_teardown);
	return check_run(s);
}
