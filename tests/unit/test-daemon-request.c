// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for daemon/request.c around the polkit wait, on the daemon
 * fixture (a fake /proc, sleeping threads of this test) and a fake
 * polkitd (bus-fixture.h: realtimed's connection is a private one to a
 * DBusServer of this test, whose far end answers CheckAuthorization when
 * the test says so and collects realtimed's answers). A burst of
 * requests that all wait for polkit at once ends at ThreadsPerUserMax=:
 * the limits are checked again right before the grant, after the wait.
 * However many checks are asked for, fewer wait on the bus than
 * dbus-daemon allows one connection; manage calls of many uids leave the
 * grants' share; a connection's "no" to a manage call is reused. Every
 * check goes to polkitd at once (nothing waits inside realtimed) and ends
 * within its timeout when polkitd does not answer. Checks pending when
 * realtimed exits are freed once, unanswered.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <errno.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-names.h"
#include "check-main.h"
#include "bus-fixture.h"
#include "creds.h"
#include "daemon-fixture.h"
#include "polkit.h"
#include "request.h"
#include "users.h"

#define SENDER ":1.7"
#define N_REQUESTS 6
#define SERIAL0 100
#define ST 4242

static unsigned n_granted, n_limits, n_other;

/* Counts the answers to the requests (serials SERIAL0 on) that reached
 * the far end. */
static void count_answers(void)
{
	n_granted = n_limits = n_other = 0;
	for (size_t i = 0; i < bus_fixture_n_received(); i++) {
		DBusMessage *m = bus_fixture_received(i);
		uint32_t serial = dbus_message_get_reply_serial(m);

		if (serial < SERIAL0 || serial >= SERIAL0 + N_REQUESTS)
			continue;
		if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_METHOD_RETURN)
			n_granted++;
		else if (streq(dbus_message_get_error_name(m), NATIVE_ERROR "LimitsExceeded"))
			n_limits++;
		else
			n_other++;
	}
}

/* Runs both ends a while: realtimed's (replies to its pending calls) and
 * the fake's. */
static void pump(Daemon *d, unsigned rounds)
{
	bus_fixture_pump(d, rounds);
	count_answers();
}

/* N_REQUESTS nice grants for N_REQUESTS threads of one process of a user
 * no rule covers, all sent before polkit answers, with ThreadsPerUserMax=2:
 * two are granted, the rest refused with LimitsExceeded. */
START_TEST(test_burst_past_polkit_ends_at_the_limit)
{
	struct passwd *pw = getpwnam("nobody");
	Sleeper s[N_REQUESTS] = {};
	pid_t self = getpid();
	Daemon d;

	if (!pw)
		return; /* no such user here: nothing to ask polkit for */
	fixture_write(fixture_conf, "[Daemon]\nThreadsPerUserMax=2\n\n[Default]\nNice=-5\n");
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	/* the caller, as the bus named it, and its process and threads */
	ck_assert_int_eq(creds_cache_put(d.creds, SENDER, pw->pw_uid, self), 0);
	fixture_task(self, 0, pw->pw_uid, pw->pw_uid, pw->pw_uid, ST);
	for (int i = 0; i < N_REQUESTS; i++) {
		sleeper_start(&s[i]);
		fixture_task(self, s[i].tid, pw->pw_uid, pw->pw_uid, pw->pw_uid, ST + 1 + i);
	}

	for (int i = 0; i < N_REQUESTS; i++) {
		RequestArgs args = { .type = REQUEST_SCHED,
				     .flavour = FLAVOUR_NATIVE,
				     .kind = POLICY_GRANT_NICE,
				     .value = 15,
				     .pid = (uint64_t)self,
				     .tid = (uint64_t)s[i].tid,
				     .uid = pw->pw_uid,
				     .caller_pid = self };
		DBusMessage *m = dbus_message_new_method_call(
			NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadHighPriority");

		ck_assert_ptr_nonnull(m);
		ck_assert(dbus_message_set_sender(m, SENDER));
		dbus_message_set_serial(m, SERIAL0 + i);
		request_start(&d, m, &args);
		dbus_message_unref(m);
	}
	pump(&d, 200);
	ck_assert_msg(n_granted + n_limits + n_other == 0,
		      "answered before polkit: %u granted, %u limits, %u other", n_granted,
		      n_limits, n_other);
	ck_assert_uint_gt(bus_fixture_n_checks(), 0);
	bus_fixture_answer_checks(true);
	for (int i = 0; i < 2000 && n_granted + n_limits + n_other < N_REQUESTS; i++)
		pump(&d, 1);
	ck_assert_msg(n_granted == 2 && n_limits == N_REQUESTS - 2 && n_other == 0,
		      "%u granted, %u LimitsExceeded, %u other answers", n_granted, n_limits,
		      n_other);

	for (int i = 0; i < N_REQUESTS; i++)
		close(s[i].pipe[1]);
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
}
END_TEST

static unsigned n_callbacks;

static unsigned n_failed;

static void on_answer(int r, void *userdata)
{
	n_failed += r < 0;
	n_callbacks++;
}

/* polkitd answers yes (or no) to every check until realtimed has had
 * expected answers: those queued in realtimed go out as the first are
 * answered. */
static void answer_all(Daemon *d, bool yes, unsigned expected)
{
	for (int i = 0; i < 2000 && n_callbacks < expected; i++) {
		pump(d, 1);
		bus_fixture_answer_checks(yes);
	}
	ck_assert_uint_eq(n_callbacks, expected);
}

/* However many checks are asked for, fewer wait on the bus than
 * dbus-daemon allows one connection (128 on the system bus), with room to
 * spare for realtimed's other calls; and one uid gets no more than its
 * share. Each refused check is answered at once, not queued. */
START_TEST(test_checks_on_the_bus_stay_below_its_limit)
{
	Daemon d;
	unsigned refused = 0;
	int r;

	fixture_write(fixture_conf, "[Default]\nNice=-5\n");
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	for (unsigned i = 0; i < 300; i++) {
		r = polkit_check(d.polkit, "org.realtimed.acquire-realtime", (pid_t)(1000 + i), 1,
				 (uid_t)(2000 + i / 10), on_answer, NULL, NULL);
		if (r < 0)
			refused++;
	}
	pump(&d, 200);
	ck_assert_uint_le(POLKIT_PENDING_MAX + 32, 128);
	ck_assert_uint_eq(300 - refused, POLKIT_GRANT_MAX);
	/* all on the bus at once: none waits inside realtimed */
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_GRANT_MAX);
	answer_all(&d, true, 300 - refused);

	/* one uid: at most its share of the pool waits */
	n_callbacks = 0;
	refused = 0;
	for (unsigned i = 0; i < 40; i++)
		if (polkit_check(d.polkit, "org.realtimed.acquire-realtime", (pid_t)(5000 + i), 1,
				 1000, on_answer, NULL, NULL) < 0)
			refused++;
	pump(&d, 200);
	ck_assert_uint_eq(40 - refused, POLKIT_GRANT_PER_UID);
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_GRANT_PER_UID);
	answer_all(&d, true, 40 - refused);
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
}
END_TEST

/* Manage calls from a crowd of uids (one person's /etc/subuid range) fill
 * the manage pool and no more: a grant's check still goes out. A
 * connection's "no" to a manage call is then answered from the cache, and
 * a grant's check asked twice for one process is one question. */
START_TEST(test_manage_flood_leaves_grants)
{
	unsigned sent = 0;
	char name[32];
	Daemon d;

	fixture_write(fixture_conf, "[Default]\nNice=-5\n");
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	n_callbacks = 0;
	for (unsigned i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), ":1.%u", 100 + i);
		if (polkit_check_bus_name(d.polkit, "org.realtimed.manage", name,
					  (uid_t)(100000 + i / 4), false, on_answer, NULL,
					  NULL) == 0)
			sent++;
	}
	ck_assert_uint_eq(sent, POLKIT_MANAGE_MAX);
	ck_assert_int_eq(polkit_check(d.polkit, "org.realtimed.acquire-realtime", 77, 1, 1000,
				      on_answer, NULL, NULL),
			 0);
	/* the same process again: it waits for the same answer */
	ck_assert_int_eq(polkit_check(d.polkit, "org.realtimed.acquire-realtime", 77, 1, 1000,
				      on_answer, NULL, NULL),
			 0);
	pump(&d, 200);
	/* the manage pool's checks, and the grant's beside them */
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_MANAGE_MAX + 1);
	answer_all(&d, false, POLKIT_MANAGE_MAX + 2);

	/* ":1.100" was told no a moment ago; ":1.99" was never asked about */
	ck_assert_int_eq(polkit_check_bus_name(d.polkit, "org.realtimed.manage", ":1.100", 100000,
					       false, on_answer, NULL, NULL),
			 2);
	ck_assert_int_eq(polkit_check_bus_name(d.polkit, "org.realtimed.manage", ":1.99", 100000,
					       false, on_answer, NULL, NULL),
			 0);
	pump(&d, 50);
	ck_assert_uint_eq(bus_fixture_n_checks(), 1);
	bus_fixture_answer_checks(true);
	for (int i = 0; i < 2000 && n_callbacks < POLKIT_MANAGE_MAX + 3; i++)
		pump(&d, 1);
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
}
END_TEST

#define ACQUIRE "org.realtimed.acquire-realtime"

/* A daemon that asks the fake polkitd, nothing asked yet. */
static void daemon_start(Daemon *d)
{
	fixture_write(fixture_conf, "[Default]\nNice=-5\n");
	fixture_daemon_init(d, NULL);
	bus_fixture_init(d);
	n_callbacks = n_failed = 0;
}

/* The position of uid's first check among those that reached polkitd and
 * wait for its answer. */
static size_t first_arrival(uid_t uid)
{
	for (size_t i = 0; i < bus_fixture_n_checks(); i++) {
		uid_t u;

		(void)bus_fixture_check_subject(bus_fixture_check(i), &u, NULL);
		if (u == uid)
			return i;
	}
	return SIZE_MAX;
}

/* Nothing waits inside realtimed: uid 1000's 16 checks and then uid
 * 2000's all reach polkitd at once, in the order they were asked (the bus
 * queue, which takes users in turn, orders the asking); each is answered. */
START_TEST(test_checks_go_out_at_once)
{
	Daemon d;

	daemon_start(&d);
	for (unsigned i = 0; i < POLKIT_GRANT_PER_UID; i++)
		ck_assert_int_eq(polkit_check(d.polkit, ACQUIRE, (pid_t)(1000 + i), 1, 1000,
					      on_answer, NULL, NULL),
				 0);
	ck_assert_int_eq(polkit_check(d.polkit, ACQUIRE, 3000, 1, 2000, on_answer, NULL, NULL), 0);
	pump(&d, 50);
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_GRANT_PER_UID + 1);
	ck_assert_uint_eq(first_arrival(2000), POLKIT_GRANT_PER_UID);
	answer_all(&d, true, POLKIT_GRANT_PER_UID + 1);
	/* answered, the places are free again: the user's count is back to 0 */
	ck_assert_uint_eq(users_find(d.users, 1000)->polkit_grant, 0);
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
}
END_TEST

/* libdbus's timeouts of realtimed's connection: what realtimed's event
 * loop runs (bus.c), run here by expire_timeouts(). */
static DBusTimeout *timeouts[64];
static size_t n_timeouts;

static dbus_bool_t add_timeout(DBusTimeout *t, void *data)
{
	ck_assert_uint_lt(n_timeouts, ELEMENTSOF(timeouts));
	timeouts[n_timeouts++] = t;
	return TRUE;
}

static void remove_timeout(DBusTimeout *t, void *data)
{
	for (size_t i = 0; i < n_timeouts; i++)
		if (timeouts[i] == t) {
			timeouts[i] = timeouts[--n_timeouts];
			return;
		}
}

/* Runs every timeout of realtimed's connection (their time has come). */
static void expire_timeouts(void)
{
	DBusTimeout *due[ELEMENTSOF(timeouts)];
	size_t n = n_timeouts;

	memcpy(due, timeouts, n * sizeof(*due));
	for (size_t i = 0; i < n; i++)
		dbus_timeout_handle(due[i]);
}

/* polkitd does not answer: each check ends when its timeout (the one it
 * was sent with) comes, as polkit failing, and gives its place back. */
START_TEST(test_unanswered_check_ends)
{
	const unsigned n = 8;
	Daemon d;

	daemon_start(&d);
	n_timeouts = 0;
	ck_assert(dbus_connection_set_timeout_functions(d.bus, add_timeout, remove_timeout, NULL,
							NULL, NULL));
	polkit_set_timeout(d.polkit, 200);
	for (unsigned i = 0; i < n; i++)
		ck_assert_int_eq(polkit_check(d.polkit, ACQUIRE, (pid_t)(1000 + i), 1, 1000,
					      on_answer, NULL, NULL),
				 0);
	pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), n);
	ck_assert_uint_eq(n_timeouts, n);
	for (size_t i = 0; i < n_timeouts; i++)
		ck_assert_int_eq(dbus_timeout_get_interval(timeouts[i]), 200);
	expire_timeouts();
	for (int i = 0; i < 200 && n_callbacks < n; i++)
		pump(&d, 1);
	ck_assert_uint_eq(n_callbacks, n);
	ck_assert_uint_eq(n_failed, n);
	ck_assert_uint_eq(users_find(d.users, 1000)->polkit_grant, 0);
	bus_fixture_drop_checks();
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
}
END_TEST

static unsigned freed[POLKIT_GRANT_PER_UID + 1];

static void on_free(void *userdata)
{
	freed[(unsigned *)userdata - freed]++;
}

/* realtimed exits while checks wait (on the bus, and one joined to
 * another): no callback runs, and each waiter's userdata is freed exactly
 * once. */
START_TEST(test_free_with_queued_checks_frees_each_once)
{
	Daemon d;

	daemon_start(&d);
	memset(freed, 0, sizeof(freed));
	for (unsigned i = 0; i < POLKIT_GRANT_PER_UID; i++)
		ck_assert_int_eq(polkit_check(d.polkit, ACQUIRE, (pid_t)(1000 + i), 1, 1000,
					      on_answer, &freed[i], on_free),
				 0);
	/* the same process as the last one queued: joins its question */
	ck_assert_int_eq(polkit_check(d.polkit, ACQUIRE, (pid_t)(1000 + POLKIT_GRANT_PER_UID - 1),
				      1, 1000, on_answer, &freed[POLKIT_GRANT_PER_UID], on_free),
			 0);
	pump(&d, 50);
	bus_fixture_drop_checks();
	bus_fixture_fini(&d);
	ck_assert_uint_eq(n_callbacks, 0);
	for (unsigned i = 0; i <= POLKIT_GRANT_PER_UID; i++)
		ck_assert_msg(freed[i] == 1, "waiter %u freed %u times", i, freed[i]);
	fixture_daemon_fini(&d);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-request", "polkit",
			      CHECK_TESTS(test_burst_past_polkit_ends_at_the_limit,
					  test_checks_on_the_bus_stay_below_its_limit,
					  test_manage_flood_leaves_grants,
					  test_checks_go_out_at_once, test_unanswered_check_ends,
					  test_free_with_queued_checks_frees_each_once),
			      fixture_setup, fixture_teardown);
}
