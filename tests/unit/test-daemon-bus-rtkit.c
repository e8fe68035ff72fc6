/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-rtkit.c, the RealtimeKit 0.13 object as an
 * rtkit client (PipeWire, PulseAudio) sees it through bus_dispatch(), on
 * the daemon fixture (a fake /proc, sleeping threads of this test) and
 * the bus fixture (bus-fixture.h). The caller is this test's own uid, a
 * [User #UID] rule covers it (no polkit).
 *   - MakeThreadHighPriority (the caller's own process) and its WithPID
 *     form grant a nice level, an empty return; MakeThreadRealtime and
 *     its WithPID form are refused past the policy with rtkit's own
 *     error, org.freedesktop.DBus.Error.AccessDenied, a thread that is
 *     not there with Failed, as rtkit-daemon answers;
 *   - ResetKnown and ResetAll take back every grant, Exit stops the
 *     loop, all three root's only (AccessDenied "Only root may call X");
 *   - a wrong signature is InvalidArgs, an unknown method UnknownMethod;
 *   - the properties through the compat object, and its XML.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "bus-rtkit.h"
#include "check-main.h"
#include "creds.h"
#include "daemon-fixture.h"

#define CALLER ":1.1" /* this test's uid and process */
#define ROOT ":1.2"
#define PLAIN ":1.3" /* uid 4321, not root */
#define ST 4242

static Daemon d;
static Sleeper sleepers[2];

static void setup(void)
{
	char policy[256];

	fixture_setup();
	snprintf(policy, sizeof(policy),
		 "[Default]\nNice=10\n\n[User #%u]\nNice=5\nRealtimePriority=20\n"
		 "Policies=rr\nRTTime=50ms\n",
		 (unsigned)getuid());
	fixture_write(fixture_conf, policy);
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	ck_assert_int_eq(creds_cache_put(d.creds, CALLER, getuid(), getpid()), 0);
	ck_assert_int_eq(creds_cache_put(d.creds, ROOT, 0, getpid()), 0);
	ck_assert_int_eq(creds_cache_put(d.creds, PLAIN, 4321, getpid()), 0);
	/* this process and its sleepers, the caller's in the fake /proc */
	fixture_stat(getpid(), 0, ST);
	for (size_t i = 0; i < ELEMENTSOF(sleepers); i++) {
		sleeper_start(&sleepers[i]);
		fixture_stat(getpid(), sleepers[i].tid, ST + 1 + i);
	}
}

static void teardown(void)
{
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
	fixture_teardown();
}

static DBusMessage *high_priority(uint64_t tid, int32_t nice)
{
	return bus_fixture_call(&d, &bus_rtkit_object, CALLER, "MakeThreadHighPriority",
				DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32, &nice, DBUS_TYPE_INVALID);
}

START_TEST(test_high_priority)
{
	uint64_t pid = (uint64_t)getpid(), tid1 = (uint64_t)sleepers[1].tid;
	int32_t nice = 7;

	/* the caller's own process */
	bus_fixture_expect_ok(high_priority((uint64_t)sleepers[0].tid, 6), "");
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)sleepers[0].tid), 6);
	ck_assert_ptr_nonnull(grant_table_find(d.grants, getpid(), sleepers[0].tid));
	/* a process named */
	bus_fixture_expect_ok(bus_fixture_call(&d, &bus_rtkit_object, CALLER,
					       "MakeThreadHighPriorityWithPID", DBUS_TYPE_UINT64,
					       &pid, DBUS_TYPE_UINT64, &tid1, DBUS_TYPE_INT32,
					       &nice, DBUS_TYPE_INVALID),
			      "");
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)sleepers[1].tid), 7);
}
END_TEST

/* Refusals in rtkit's words: past the policy AccessDenied, a thread that
 * is not there Failed, each with realtimed's reason. */
START_TEST(test_refusals_in_rtkit_words)
{
	uint64_t pid = (uint64_t)getpid(), tid = (uint64_t)sleepers[0].tid, gone = 999999;
	uint32_t prio = 50;

	bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, CALLER,
						  "MakeThreadRealtime", DBUS_TYPE_UINT64, &tid,
						  DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID),
				 DBUS_ERROR_ACCESS_DENIED, "priority 50 exceeds the limit 20");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, CALLER,
						  "MakeThreadRealtimeWithPID", DBUS_TYPE_UINT64,
						  &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_UINT32,
						  &prio, DBUS_TYPE_INVALID),
				 DBUS_ERROR_ACCESS_DENIED, "priority 50 exceeds the limit 20");
	bus_fixture_expect_error(high_priority(tid, -20), DBUS_ERROR_ACCESS_DENIED,
				 "nice level -20 is below the limit 5");
	/* nothing changed */
	ck_assert_int_eq(sched_policy_of(sleepers[0].tid), SCHED_BATCH);
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)sleepers[0].tid), 12);

	bus_fixture_expect_error(high_priority(gone, 6), DBUS_ERROR_FAILED,
				 "thread 999999 is not a thread of process");
	/* another user's thread */
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, PLAIN,
						  "MakeThreadHighPriorityWithPID", DBUS_TYPE_UINT64,
						  &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32,
						  &(int32_t){ 10 }, DBUS_TYPE_INVALID),
				 DBUS_ERROR_ACCESS_DENIED, "names no process of the caller");
	ck_assert_uint_eq(d.grants->n_grants, 0);
}
END_TEST

START_TEST(test_reset)
{
	static const char *const methods[] = { "ResetKnown", "ResetAll" };

	for (size_t m = 0; m < ELEMENTSOF(methods); m++) {
		bus_fixture_expect_ok(high_priority((uint64_t)sleepers[0].tid, 6), "");
		bus_fixture_expect_ok(high_priority((uint64_t)sleepers[1].tid, 8), "");
		ck_assert_uint_eq(d.grants->n_grants, 2);
		/* not root */
		bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, PLAIN, methods[m],
							  DBUS_TYPE_INVALID),
					 DBUS_ERROR_ACCESS_DENIED, NULL);
		ck_assert_uint_eq(d.grants->n_grants, 2);
		bus_fixture_expect_ok(bus_fixture_call(&d, &bus_rtkit_object, ROOT, methods[m],
						       DBUS_TYPE_INVALID),
				      "");
		ck_assert_uint_eq(d.grants->n_grants, 0);
		/* back to what they ran before */
		ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)sleepers[0].tid), 12);
		ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)sleepers[1].tid), 12);
		ck_assert_int_eq(sched_policy_of(sleepers[0].tid), SCHED_BATCH);
	}
}
END_TEST

START_TEST(test_root_only)
{
	static const char *const methods[] = { "ResetKnown", "ResetAll", "Exit" };
	char text[64];

	for (size_t m = 0; m < ELEMENTSOF(methods); m++) {
		snprintf(text, sizeof(text), "Only root may call %s", methods[m]);
		bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, PLAIN, methods[m],
							  DBUS_TYPE_INVALID),
					 DBUS_ERROR_ACCESS_DENIED, text);
	}
	ck_assert_int_eq(sd_event_get_exit_code(d.event, &(int){ 0 }), -ENODATA);
	bus_fixture_expect_ok(
		bus_fixture_call(&d, &bus_rtkit_object, ROOT, "Exit", DBUS_TYPE_INVALID), "");
	ck_assert_int_eq(sd_event_get_exit_code(d.event, &(int){ 1 }), 0);
}
END_TEST

START_TEST(test_wrong_calls)
{
	uint64_t tid = 1;
	uint32_t prio = 10;
	const char *fifo = "fifo";

	bus_fixture_expect_error(
		bus_fixture_call(&d, &bus_rtkit_object, CALLER, "MakeThreadRealtime",
				 DBUS_TYPE_UINT64, &tid, DBUS_TYPE_STRING, &fifo, DBUS_TYPE_UINT32,
				 &prio, DBUS_TYPE_INVALID),
		DBUS_ERROR_INVALID_ARGS, "Expected arguments of signature 'tu', got 'tsu'");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, CALLER,
						  "MakeThreadHighPriority", DBUS_TYPE_UINT64, &tid,
						  DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID),
				 DBUS_ERROR_INVALID_ARGS, "signature 'ti', got 'tu'");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_rtkit_object, ROOT, "ResetAll",
						  DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INVALID),
				 DBUS_ERROR_INVALID_ARGS, "signature '', got 't'");
	/* the native interface's methods are not rtkit's */
	bus_fixture_expect_error(
		bus_fixture_call(&d, &bus_rtkit_object, CALLER, "ListGrants", DBUS_TYPE_INVALID),
		DBUS_ERROR_UNKNOWN_METHOD, "Unknown method ListGrants");
}
END_TEST

/* The value of property name (of D-Bus type type) on the rtkit object. */
static int64_t property(const char *name, int type)
{
	const char *iface = RTKIT_IFACE;
	DBusMessage *m, *reply;
	DBusMessageIter it, v;
	int64_t x = 0;
	int32_t i = 0;

	m = bus_fixture_call_new(CALLER, RTKIT_PATH, DBUS_INTERFACE_PROPERTIES, "Get",
				 DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
				 DBUS_TYPE_INVALID);
	bus_fixture_dispatch(&d, &bus_rtkit_object, m);
	reply = bus_fixture_expect_return(bus_fixture_reply(&d, m, 1000), "v");
	dbus_message_unref(m);
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &v);
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&v), type);
	dbus_message_iter_get_basic(&v, type == DBUS_TYPE_INT64 ? (void *)&x : (void *)&i);
	dbus_message_unref(reply);
	return type == DBUS_TYPE_INT64 ? x : i;
}

START_TEST(test_properties_and_xml)
{
	DBusMessage *m, *reply;
	const char *xml;

	ck_assert_int_eq(property("MaxRealtimePriority", DBUS_TYPE_INT32), 20);
	ck_assert_int_eq(property("MinNiceLevel", DBUS_TYPE_INT32), 5);
	ck_assert_int_eq(property("RTTimeUSecMax", DBUS_TYPE_INT64), 50000);

	m = bus_fixture_call_new(CALLER, RTKIT_PATH, DBUS_INTERFACE_INTROSPECTABLE, "Introspect",
				 DBUS_TYPE_INVALID);
	bus_fixture_dispatch(&d, &bus_rtkit_object, m);
	reply = bus_fixture_expect_return(bus_fixture_reply(&d, m, 1000), "s");
	dbus_message_unref(m);
	ck_assert(dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &xml, DBUS_TYPE_INVALID));
	ck_assert_ptr_nonnull(strstr(xml, "<interface name=\"" RTKIT_IFACE "\">"));
	ck_assert_ptr_nonnull(strstr(xml, "<method name=\"MakeThreadRealtimeWithPID\">"));
	dbus_message_unref(reply);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-rtkit");
	TCase *tc = check_add_case(s, "rtkit",
				   CHECK_TESTS(test_high_priority, test_refusals_in_rtkit_words,
					       test_reset, test_root_only, test_wrong_calls,
					       test_properties_and_xml));

	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
