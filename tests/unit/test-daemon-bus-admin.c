/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-admin.c, who may make an administrator's call
 * (ListAllGrants here), on the daemon fixture and the bus fixture
 * (bus-fixture.h: the callers and polkitd are the test's):
 *   - root passes without polkit;
 *   - anyone else waits while polkitd is asked about org.realtimed.manage
 *     for the caller's connection (its unique name, not a pid), with user
 *     interaction only when the call allows it; yes runs the call, no is
 *     PermissionDenied naming what needed it and the uid, polkitd not
 *     running is PermissionDenied saying polkit could not be asked;
 *   - manage calls count against ActionsPerBurst= in BurstSec= together
 *     with the same user's grant requests: past it RateLimited, with the
 *     figures, and polkit is not asked;
 *   - a user waiting for POLKIT_MANAGE_PER_UID checks, or a full manage
 *     pool, is RateLimited at once.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <stdio.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "bus-native.h"
#include "check-main.h"
#include "creds.h"
#include "daemon-fixture.h"
#include "polkit.h"

#define ROOT BUS_FIXTURE_ROOT
#define USER BUS_FIXTURE_USER
#define ST 4242

static uid_t user_uid;
static Daemon d;

static void daemon_start(const char *policy)
{
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	user_uid = bus_fixture_callers(&d);
}

static void teardown(void)
{
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
	fixture_teardown();
}

/* ListAllGrants from sender (interactive: allowing polkit to ask the
 * user), dispatched; the call, whose answer may wait. */
static DBusMessage *list_all(const char *sender, bool interactive)
{
	DBusMessage *m = bus_fixture_call_new(sender, NATIVE_PATH, NATIVE_IFACE, "ListAllGrants",
					      DBUS_TYPE_INVALID);

	dbus_message_set_allow_interactive_authorization(m, interactive);
	bus_fixture_dispatch(&d, &bus_native_object, m);
	return m;
}

/* The answer to m, unrefs m. */
static DBusMessage *answer_to(DBusMessage *m)
{
	DBusMessage *reply = bus_fixture_reply(&d, m, 1000);

	dbus_message_unref(m);
	return reply;
}

/* The flags of polkit's check i (1: AllowUserInteraction). */
static uint32_t check_flags(size_t i)
{
	DBusMessageIter it;
	uint32_t flags;

	ck_assert(dbus_message_iter_init(bus_fixture_check(i), &it));
	for (int k = 0; k < 3; k++)
		ck_assert(dbus_message_iter_next(&it));
	dbus_message_iter_get_basic(&it, &flags);
	return flags;
}

START_TEST(test_root_without_polkit)
{
	daemon_start("[Default]\nNice=10\n");
	bus_fixture_expect_ok(answer_to(list_all(ROOT, false)), "a(ttusssit)");
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);
}
END_TEST

START_TEST(test_polkit_asked_about_the_connection)
{
	DBusMessage *m;
	const char *name;
	uid_t uid;

	daemon_start("[Default]\nNice=10\n");
	m = list_all(USER, false);
	ck_assert_ptr_null(bus_fixture_reply(&d, m, 20));
	ck_assert_uint_eq(bus_fixture_n_checks(), 1);
	ck_assert_str_eq(bus_fixture_check_subject(bus_fixture_check(0), &uid, &name),
			 "system-bus-name");
	ck_assert_str_eq(name, USER);
	ck_assert_str_eq(bus_fixture_check_action(bus_fixture_check(0)), "org.realtimed.manage");
	ck_assert_uint_eq(check_flags(0), 0);
	bus_fixture_answer_checks(true);
	bus_fixture_expect_ok(answer_to(m), "a(ttusssit)");

	/* a caller that allows interaction lets polkit ask its user */
	ck_assert_int_eq(creds_cache_put(d.creds, ":1.3", user_uid, getpid()), 0);
	m = list_all(":1.3", true);
	bus_fixture_pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), 1);
	ck_assert_uint_eq(check_flags(0), 1);
	bus_fixture_answer_checks(false);
	bus_fixture_expect_error(answer_to(m), NATIVE_ERROR "PermissionDenied", NULL);
}
END_TEST

START_TEST(test_permission_denied_text)
{
	char text[256];
	DBusMessage *m;

	daemon_start("[Default]\nNice=10\n");
	m = list_all(USER, false);
	bus_fixture_pump(&d, 20);
	bus_fixture_answer_checks(false);
	snprintf(text, sizeof(text),
		 "Listing every user's grants needs root or polkit's org.realtimed.manage, "
		 "which polkit did not grant to uid %u",
		 (unsigned)user_uid);
	bus_fixture_expect_error(answer_to(m), NATIVE_ERROR "PermissionDenied", text);
}
END_TEST

/* No polkitd on the bus: refused, and the caller is told polkit could
 * not be asked, not that polkit said no. */
START_TEST(test_polkit_not_running)
{
	DBusMessage *m;

	daemon_start("[Default]\nNice=10\n");
	m = list_all(USER, false);
	bus_fixture_pump(&d, 20);
	bus_fixture_fail_checks(DBUS_ERROR_SERVICE_UNKNOWN);
	bus_fixture_expect_error(answer_to(m), NATIVE_ERROR "PermissionDenied",
				 "Listing every user's grants needs root or polkit's "
				 "org.realtimed.manage, and polkit could not be asked: ");
}
END_TEST

/* A nice grant of one of this test's sleepers, asked by USER, who owns
 * this process in the fake /proc: the answer. */
static DBusMessage *grant(Sleeper *s, int32_t nice)
{
	uint64_t pid = (uint64_t)getpid(), tid;

	sleeper_start(s);
	tid = (uint64_t)s->tid;
	fixture_task(getpid(), s->tid, user_uid, user_uid, user_uid, ST + (uint64_t)s->tid);
	return bus_fixture_call(&d, &bus_native_object, USER, "MakeThreadHighPriority",
				DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32,
				&nice, DBUS_TYPE_INVALID);
}

/* ActionsPerBurst=3: two grants and one manage call of one user use it
 * up; the next of either kind is RateLimited, and polkit is not asked. */
START_TEST(test_rate_shared_with_grants)
{
	Sleeper s[3] = {};
	char text[256];
	DBusMessage *m;

	daemon_start("[Daemon]\nActionsPerBurst=3\nBurstSec=60\n\n"
		     "[Default]\nNice=10\n\n[User nobody]\nNice=5\n");
	fixture_task(getpid(), 0, user_uid, user_uid, user_uid, ST);
	bus_fixture_expect_ok(grant(&s[0], 7), "");
	bus_fixture_expect_ok(grant(&s[1], 7), "");
	m = list_all(USER, false);
	bus_fixture_pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), 1);
	bus_fixture_answer_checks(true);
	bus_fixture_expect_ok(answer_to(m), "a(ttusssit)");

	snprintf(text, sizeof(text),
		 "too many manage calls from uid %u: at most 3 per 60 s (ActionsPerBurst=, "
		 "BurstSec=)",
		 (unsigned)user_uid);
	m = list_all(USER, false);
	bus_fixture_expect_error(answer_to(m), NATIVE_ERROR "RateLimited", text);
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);
	bus_fixture_expect_error(grant(&s[2], 7), NATIVE_ERROR "RateLimited", NULL);
	/* root is never limited */
	bus_fixture_expect_ok(answer_to(list_all(ROOT, false)), "a(ttusssit)");
	for (size_t i = 0; i < ELEMENTSOF(s); i++)
		close(s[i].pipe[1]);
}
END_TEST

/* One user waits for its share of polkit's manage checks: its next call
 * is RateLimited at once, another user's still asks. */
START_TEST(test_per_uid_share)
{
	DBusMessage *waiting[POLKIT_MANAGE_PER_UID], *m;
	char name[32], text[256];

	daemon_start("[Default]\nNice=10\n");
	for (unsigned i = 0; i <= POLKIT_MANAGE_PER_UID; i++) {
		snprintf(name, sizeof(name), ":1.%u", 10 + i);
		ck_assert_int_eq(creds_cache_put(d.creds, name, user_uid, getpid()), 0);
		if (i < POLKIT_MANAGE_PER_UID)
			waiting[i] = list_all(name, false);
	}
	bus_fixture_pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_MANAGE_PER_UID);
	snprintf(text, sizeof(text),
		 "Listing every user's grants needs polkit's org.realtimed.manage, and uid %u "
		 "waits for %u such checks already; try again when they are answered",
		 (unsigned)user_uid, POLKIT_MANAGE_PER_UID);
	bus_fixture_expect_error(answer_to(list_all(name, false)), NATIVE_ERROR "RateLimited",
				 text);

	ck_assert_int_eq(creds_cache_put(d.creds, ":1.50", 4321, getpid()), 0);
	m = list_all(":1.50", false);
	bus_fixture_pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_MANAGE_PER_UID + 1);
	bus_fixture_answer_checks(true);
	for (unsigned i = 0; i < POLKIT_MANAGE_PER_UID; i++)
		bus_fixture_expect_ok(answer_to(waiting[i]), "a(ttusssit)");
	bus_fixture_expect_ok(answer_to(m), "a(ttusssit)");
}
END_TEST

/* The manage pool is full (a crowd of uids waits): the next caller is
 * RateLimited at once. */
START_TEST(test_pool_full)
{
	DBusMessage *waiting[POLKIT_MANAGE_MAX];
	char name[32];

	daemon_start("[Default]\nNice=10\n");
	for (unsigned i = 0; i <= POLKIT_MANAGE_MAX; i++) {
		snprintf(name, sizeof(name), ":1.%u", 100 + i);
		ck_assert_int_eq(creds_cache_put(d.creds, name, 5000 + i, getpid()), 0);
		if (i < POLKIT_MANAGE_MAX)
			waiting[i] = list_all(name, false);
	}
	bus_fixture_pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), POLKIT_MANAGE_MAX);
	bus_fixture_expect_error(answer_to(list_all(name, false)), NATIVE_ERROR "RateLimited",
				 "Listing every user's grants needs polkit's org.realtimed.manage, "
				 "and too many checks are pending; try again later");
	bus_fixture_answer_checks(false);
	for (unsigned i = 0; i < POLKIT_MANAGE_MAX; i++)
		bus_fixture_expect_error(answer_to(waiting[i]), NATIVE_ERROR "PermissionDenied",
					 NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-admin");
	TCase *tc = check_add_case(
		s, "manage",
		CHECK_TESTS(test_root_without_polkit, test_polkit_asked_about_the_connection,
			    test_permission_denied_text, test_polkit_not_running,
			    test_rate_shared_with_grants, test_per_uid_share, test_pool_full));

	tcase_add_checked_fixture(tc, fixture_setup, teardown);
	return check_run(s);
}
