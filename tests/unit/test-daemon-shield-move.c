// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for ShieldPin= (daemon/shield-move.c), on threads of the test
 * itself (sleepers) granted in the daemon's table (daemon-fixture.c) and
 * shield-fixture.c's machine (shield 1,3; the kernel runs them on the CPUs
 * of that which this machine has): a realtime grant pins its thread to the
 * shield, a nice-level one does not; a thread whose grant ends gets its
 * own affinity back while the shield holds for others; one whose affinity
 * someone changed meanwhile keeps it, and the journal says so; without
 * ShieldPin= nothing is pinned.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "daemon-fixture.h"
#include "log-fixture.h"
#include "manager.h"
#include "pidfd.h"
#include "shield-fixture.h"
#include "shield.h"

static Daemon d;
static Sleeper a, b;
static cpu_set_t original;

static void setup(void)
{
	char from[256], to[256];

	fixture_setup();
	shield_fixture_setup();
	log_capture();
	ck_assert_int_eq(sched_getaffinity(0, sizeof(original), &original), 0);
	sleeper_start(&a);
	sleeper_start(&b);
	fixture_stat(getpid(), a.tid, 11);
	fixture_stat(getpid(), b.tid, 12);
	/* the table's /proc and the shield's show the same process */
	snprintf(from, sizeof(from), "%s/%d", fixture_proc, (int)getpid());
	snprintf(to, sizeof(to), "%s/%d", shield_roots.proc, (int)getpid());
	ck_assert_int_eq(symlink(from, to), 0);
}

static void teardown(void)
{
	close(a.pipe[1]);
	close(b.pipe[1]);
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
	shield_fixture_teardown();
	fixture_teardown();
}

static void daemon_start(const char *conf)
{
	fixture_write(fixture_conf, conf);
	fixture_daemon_init(&d, NULL);
	ck_assert_int_eq(shield_new(d.event, &shield_roots, &d.shield), 0);
	manager_apply_settings(&d);
}

static void daemon_stop(void)
{
	shield_stop(d.shield);
	d.shield = shield_free(d.shield);
	fixture_daemon_fini(&d);
}

static Grant *grant(pid_t tid, uint64_t st, PolicyGrantKind kind)
{
	const SchedState before = { .policy = SCHED_OTHER };
	Grant *g = NULL;

	ck_assert_int_eq(grant_table_add(d.grants, getpid(), 1, getuid(),
					 pidfd_open_cloexec(getpid()), tid, st, kind,
					 kind == POLICY_GRANT_NICE ? 10 : 5, &before, 0, &g),
			 0);
	return g;
}

static bool affinity_is(pid_t tid, const cpu_set_t *want)
{
	cpu_set_t now;

	ck_assert_int_eq(sched_getaffinity(tid, sizeof(now), &now), 0);
	return CPU_EQUAL(&now, want);
}

/* The CPUs of the shield (1,3) that this machine has. */
static void shield_here(cpu_set_t *ret)
{
	CPU_ZERO(ret);
	for (int c = 1; c <= 3; c += 2)
		if (CPU_ISSET(c, &original))
			CPU_SET(c, ret);
}

START_TEST(test_pin_and_unpin)
{
	cpu_set_t pinned, zero;
	Grant *ga, *gb;

	shield_here(&pinned);
	daemon_start("[Default]\nNice=10\n[Daemon]\nShield=auto\nShieldPin=yes\n");
	(void)grant(b.tid, 12, POLICY_GRANT_NICE);
	ck_assert(affinity_is(b.tid, &original));
	ga = grant(a.tid, 11, POLICY_GRANT_FIFO);
	gb = grant(b.tid, 12, POLICY_GRANT_RR);
	ck_assert(affinity_is(a.tid, &pinned));
	ck_assert(affinity_is(b.tid, &pinned));

	/* a's grant ends, b's holds the shield: a gets its own affinity back */
	grant_table_remove(d.grants, ga);
	ck_assert(affinity_is(a.tid, &original));
	ck_assert(affinity_is(b.tid, &pinned));

	/* someone moves b meanwhile: it keeps that */
	CPU_ZERO(&zero);
	CPU_SET(0, &zero);
	ck_assert_int_eq(sched_setaffinity(b.tid, sizeof(zero), &zero), 0);
	grant_table_remove(d.grants, gb);
	daemon_stop();
	ck_assert(affinity_is(b.tid, &zero));
	ck_assert_uint_eq(log_count_lines("Left thread"), 1);
}
END_TEST

START_TEST(test_stop_gives_back)
{
	cpu_set_t pinned;

	shield_here(&pinned);
	daemon_start("[Default]\nNice=10\n[Daemon]\nShield=auto\nShieldPin=yes\n");
	(void)grant(a.tid, 11, POLICY_GRANT_FIFO);
	ck_assert(affinity_is(a.tid, &pinned));
	daemon_stop();
	ck_assert(affinity_is(a.tid, &original));
	ck_assert(!shield_fixture_record_exists());
}
END_TEST

START_TEST(test_no_pin)
{
	daemon_start("[Default]\nNice=10\n[Daemon]\nShield=auto\n");
	(void)grant(a.tid, 11, POLICY_GRANT_FIFO);
	ck_assert(affinity_is(a.tid, &original));
	ck_assert_str_eq(shield_fixture_affinity(24), "0,2");
	daemon_stop();
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc;

	/* pinned and not pinned are told apart by CPUs 0 and 1 */
	if (sched_getaffinity(0, sizeof(original), &original) < 0 || !CPU_ISSET(0, &original) ||
	    !CPU_ISSET(1, &original)) {
		printf("SKIP: this test runs on CPUs 0 and 1, which this process may not use\n");
		return 77;
	}
	s = suite_create("daemon-shield-move");
	tc = check_add_case(s, "pin",
			    CHECK_TESTS(test_pin_and_unpin, test_stop_gives_back, test_no_pin));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
