/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-native-refusals.c, ListRefusals and
 * ListAllRefusals as a client sees them, on the daemon fixture and the
 * bus fixture (bus-fixture.h), with refusals recorded as requests record
 * them (refusals.h):
 *   - each entry is (t time, u uid, t pid, t tid, s comm, s asked,
 *     s error, s reason, s source, u count), oldest first, repeats folded
 *     into a count, a comm that was not UTF-8 escaped;
 *   - ListRefusals gives a user their own, root every user's;
 *   - ListAllRefusals gives root every user's at once, another user every
 *     user's when polkit grants org.realtimed.manage on its connection,
 *     and PermissionDenied when it does not;
 *   - nothing refused: an empty list.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "bus-native.h"
#include "check-main.h"
#include "daemon-fixture.h"
#include "refusals.h"

#define ROOT BUS_FIXTURE_ROOT
#define USER BUS_FIXTURE_USER
#define OTHER_UID 4321

static uid_t user_uid;
static Daemon d;

static void setup(void)
{
	fixture_setup();
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

/* uid refused at time t (seconds) for thread tid named comm. */
static void refuse(uid_t uid, uint64_t t, pid_t tid, const char *comm)
{
	Refusal r = { .time_usec = t * USEC_PER_SEC, .uid = uid, .pid = 100, .tid = tid };

	refusal_set_strings(&r, comm, "FIFO 95", "PolicyDenied", "priority 95 exceeds the limit 70",
			    "/etc/realtime/realtime.conf:12");
	ck_assert_int_ge(refusals_add(d.users, &r, true, t * USEC_PER_SEC, NULL), 0);
}

typedef struct Row {
	uint64_t time, pid, tid;
	uint32_t uid, count;
	const char *comm, *asked, *error, *reason, *source;
} Row;

/* The rows of an answer, which the caller keeps (the strings are its). */
static size_t rows_of(DBusMessage *reply, Row *rows, size_t max)
{
	DBusMessageIter it, arr, st;
	size_t n = 0;

	bus_fixture_expect_return(reply, "a(tuttsssssu)");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &arr);
	for (; dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT;
	     dbus_message_iter_next(&arr)) {
		Row *r = &rows[n++];
		void *fields[] = { &r->time,  &r->uid,	 &r->pid,    &r->tid,	 &r->comm,
				   &r->asked, &r->error, &r->reason, &r->source, &r->count };

		ck_assert_uint_le(n, max);
		dbus_message_iter_recurse(&arr, &st);
		for (size_t f = 0; f < ELEMENTSOF(fields); f++) {
			dbus_message_iter_get_basic(&st, fields[f]);
			dbus_message_iter_next(&st);
		}
	}
	return n;
}

static DBusMessage *call(const char *sender, const char *member)
{
	return bus_fixture_call(&d, &bus_native_object, sender, member, DBUS_TYPE_INVALID);
}

START_TEST(test_own_refusals)
{
	DBusMessage *reply;
	Row rows[8];

	refuse(user_uid, 10, 101, "synth");
	refuse(0, 11, 102, "jackd");
	refuse(user_uid, 12, 103, "bad\xff-comm");
	refuse(user_uid, 13, 103, "bad\xff-comm"); /* the same again: folded */
	refuse(OTHER_UID, 14, 104, "ardour");

	reply = call(USER, "ListRefusals");
	ck_assert_uint_eq(rows_of(reply, rows, 8), 2);
	ck_assert_uint_eq(rows[0].time, 10 * USEC_PER_SEC);
	ck_assert_uint_eq(rows[0].uid, user_uid);
	ck_assert_uint_eq(rows[0].pid, 100);
	ck_assert_uint_eq(rows[0].tid, 101);
	ck_assert_str_eq(rows[0].comm, "synth");
	ck_assert_str_eq(rows[0].asked, "FIFO 95");
	ck_assert_str_eq(rows[0].error, "PolicyDenied");
	ck_assert_str_eq(rows[0].reason, "priority 95 exceeds the limit 70");
	ck_assert_str_eq(rows[0].source, "/etc/realtime/realtime.conf:12");
	ck_assert_uint_eq(rows[0].count, 1);
	ck_assert_str_eq(rows[1].comm, "bad\\xff-comm");
	ck_assert_uint_eq(rows[1].count, 2);
	ck_assert_uint_eq(rows[1].time, 13 * USEC_PER_SEC);
	dbus_message_unref(reply);

	/* root's ListRefusals: everyone's, oldest first */
	reply = call(ROOT, "ListRefusals");
	ck_assert_uint_eq(rows_of(reply, rows, 8), 4);
	ck_assert_uint_eq(rows[0].tid, 101);
	ck_assert_uint_eq(rows[1].uid, 0);
	ck_assert_uint_eq(rows[2].tid, 103);
	ck_assert_uint_eq(rows[3].uid, OTHER_UID);
	dbus_message_unref(reply);
	/* no polkit for either */
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);
}
END_TEST

START_TEST(test_none)
{
	DBusMessage *reply;
	Row rows[1];

	reply = call(USER, "ListRefusals");
	ck_assert_uint_eq(rows_of(reply, rows, 1), 0);
	dbus_message_unref(reply);
	reply = call(ROOT, "ListAllRefusals");
	ck_assert_uint_eq(rows_of(reply, rows, 1), 0);
	dbus_message_unref(reply);
}
END_TEST

/* ListAllRefusals from USER, and polkitd's answer yes or no. */
static DBusMessage *all_via_polkit(bool yes)
{
	return bus_fixture_call_via_polkit(&d, &bus_native_object,
					   bus_fixture_call_new(USER, NATIVE_PATH, NATIVE_IFACE,
								"ListAllRefusals",
								DBUS_TYPE_INVALID),
					   USER, yes);
}

START_TEST(test_all_refusals)
{
	DBusMessage *reply;
	Row rows[8];

	refuse(user_uid, 10, 101, "synth");
	refuse(0, 11, 102, "jackd");
	refuse(OTHER_UID, 14, 104, "ardour");

	reply = call(ROOT, "ListAllRefusals");
	ck_assert_uint_eq(rows_of(reply, rows, 8), 3);
	dbus_message_unref(reply);
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);

	bus_fixture_expect_error(all_via_polkit(false), NATIVE_ERROR "PermissionDenied",
				 "Listing every user's refusals needs root or polkit's "
				 "org.realtimed.manage, which polkit did not grant to uid");
}
END_TEST

START_TEST(test_all_refusals_with_polkit)
{
	DBusMessage *reply;
	Row rows[8];

	refuse(user_uid, 10, 101, "synth");
	refuse(OTHER_UID, 14, 104, "ardour");
	reply = all_via_polkit(true);
	ck_assert_uint_eq(rows_of(reply, rows, 8), 2);
	ck_assert_uint_eq(rows[1].uid, OTHER_UID);
	dbus_message_unref(reply);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-native-refusals");
	TCase *tc = check_add_case(s, "refusals",
				   CHECK_TESTS(test_own_refusals, test_none, test_all_refusals,
					       test_all_refusals_with_polkit));

	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
