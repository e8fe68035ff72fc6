/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-native-demoted.c, the Demoted signal and who
 * hears it, on the daemon fixture and the bus fixture (bus-fixture.h: the
 * callers and the bus daemon are the test's).
 *   - SubscribeDemoted takes root or manage; at most DEMOTED_WATCHERS_MAX
 *     connections watch, the next is LimitsExceeded, a watcher asking
 *     again takes no second place; a watcher that leaves the bus
 *     (NameOwnerChanged from the bus daemon, or no owner when realtimed
 *     asks) frees its place, and a NameOwnerChanged that another client
 *     sends frees nothing;
 *   - Demoted(a(tt) threads, s reason) goes to each watcher with every
 *     thread, and to each connection that asked for a grant with its own
 *     threads only, once (a watcher that owns threads gets the one signal
 *     with all), never to anyone else, nor for a grant whose owner is not
 *     known; it is unicast and starts no service;
 *   - a reset of grants tells their owners and the watchers so.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "bus-native-demoted.h"
#include "bus-native.h"
#include "check-main.h"
#include "creds.h"
#include "daemon-fixture.h"
#include "demote.h"

#define ROOT BUS_FIXTURE_ROOT
#define USER BUS_FIXTURE_USER

static const DaemonHooks hooks = { .answer = bus_answer, .demoted = bus_native_emit_demoted };
static Daemon d;

/* The unique name of root's connection i (":1.100" on). */
static const char *root_name(unsigned i)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), ":1.%u", 100 + i);
	ck_assert_int_eq(creds_cache_put(d.creds, buf, 0, getpid()), 0);
	return buf;
}

static void setup(void)
{
	fixture_setup();
	fixture_daemon_init(&d, &hooks);
	bus_fixture_init(&d);
	ck_assert_int_eq(bus_native_demoted_register(&d), 0);
	(void)bus_fixture_callers(&d);
}

static void teardown(void)
{
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
	fixture_teardown();
}

static DBusMessage *subscribe(const char *sender)
{
	return bus_fixture_call(&d, &bus_native_object, sender, "SubscribeDemoted",
				DBUS_TYPE_INVALID);
}

/* The bus daemon tells that name left the bus; sent by sender (the bus
 * daemon itself, or a client that pretends). */
static void name_left(const char *name, const char *sender)
{
	DBusMessage *s =
		dbus_message_new_signal(DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "NameOwnerChanged");
	const char *old = name, *none = "";

	ck_assert_ptr_nonnull(s);
	ck_assert(dbus_message_set_sender(s, sender));
	ck_assert(dbus_message_append_args(s, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &old,
					   DBUS_TYPE_STRING, &none, DBUS_TYPE_INVALID));
	bus_fixture_send(s);
	bus_fixture_pump(&d, 10);
}

START_TEST(test_subscribe_bounds)
{
	DBusMessage *m;
	const char *arg0 = NULL;

	for (unsigned i = 0; i < DEMOTED_WATCHERS_MAX; i++)
		bus_fixture_expect_ok(subscribe(root_name(i)), "");
	/* again: no second place */
	bus_fixture_expect_ok(subscribe(root_name(0)), "");
	bus_fixture_expect_error(subscribe(root_name(DEMOTED_WATCHERS_MAX)),
				 NATIVE_ERROR "LimitsExceeded",
				 "16 connections watch every demotion already; each gets it until "
				 "it leaves the bus");

	/* realtimed watches each for leaving the bus (polkit's match aside),
	 * and asks whether it is still there */
	for (m = NULL; !m || strstr(arg0, "PolicyKit1");) {
		if (m)
			dbus_message_unref(m);
		m = bus_fixture_take_call("AddMatch");
		ck_assert_ptr_nonnull(m);
		ck_assert(
			dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &arg0, DBUS_TYPE_INVALID));
	}
	ck_assert_msg(strstr(arg0, "sender='org.freedesktop.DBus'"), "%s", arg0);
	ck_assert_msg(strstr(arg0, "member='NameOwnerChanged',arg0=':1.100'"), "%s", arg0);
	dbus_message_unref(m);
	m = bus_fixture_take_call("GetNameOwner");
	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &arg0, DBUS_TYPE_INVALID));
	ck_assert_str_eq(arg0, ":1.100");
	dbus_message_unref(m);

	/* a client that says :1.100 left frees nothing */
	name_left(root_name(0), USER);
	bus_fixture_expect_error(subscribe(root_name(DEMOTED_WATCHERS_MAX)),
				 NATIVE_ERROR "LimitsExceeded", NULL);
	/* the bus daemon does */
	name_left(root_name(0), DBUS_SERVICE_DBUS);
	bus_fixture_expect_ok(subscribe(root_name(DEMOTED_WATCHERS_MAX)), "");
	bus_fixture_expect_error(subscribe(root_name(0)), NATIVE_ERROR "LimitsExceeded", NULL);
}
END_TEST

/* A watcher gone before realtimed's match was in place: the bus daemon
 * answers that its name has no owner, and its place is free. */
START_TEST(test_watcher_gone_at_once)
{
	DBusMessage *call, *reply;
	const char *arg0;

	for (unsigned i = 0; i < DEMOTED_WATCHERS_MAX; i++)
		bus_fixture_expect_ok(subscribe(root_name(i)), "");
	bus_fixture_expect_error(subscribe(root_name(DEMOTED_WATCHERS_MAX)),
				 NATIVE_ERROR "LimitsExceeded", NULL);
	call = bus_fixture_take_call("GetNameOwner");
	ck_assert_ptr_nonnull(call);
	ck_assert(dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &arg0, DBUS_TYPE_INVALID));
	ck_assert_str_eq(arg0, ":1.100");
	bus_fixture_send(dbus_message_new_error(call, DBUS_ERROR_NAME_HAS_NO_OWNER, "gone"));
	dbus_message_unref(call);
	bus_fixture_pump(&d, 10);
	bus_fixture_expect_ok(subscribe(root_name(DEMOTED_WATCHERS_MAX)), "");
	/* an owner that is still there keeps its place */
	call = bus_fixture_take_call("GetNameOwner");
	ck_assert_ptr_nonnull(call);
	reply = dbus_message_new_method_return(call);
	ck_assert(dbus_message_get_args(call, NULL, DBUS_TYPE_STRING, &arg0, DBUS_TYPE_INVALID));
	ck_assert(dbus_message_append_args(reply, DBUS_TYPE_STRING, &arg0, DBUS_TYPE_INVALID));
	bus_fixture_send(reply);
	dbus_message_unref(call);
	bus_fixture_pump(&d, 10);
	bus_fixture_expect_error(subscribe(root_name(DEMOTED_WATCHERS_MAX + 1)),
				 NATIVE_ERROR "LimitsExceeded", NULL);
}
END_TEST

/* Without manage, a user's SubscribeDemoted is refused and hears
 * nothing of others. */
START_TEST(test_subscribe_needs_manage)
{
	DemoteThread t = { .pid = 10, .tid = 11, .owner = ":1.50" };
	DBusMessage *m = bus_fixture_call_new(USER, NATIVE_PATH, NATIVE_IFACE, "SubscribeDemoted",
					      DBUS_TYPE_INVALID);

	bus_fixture_expect_error(
		bus_fixture_call_via_polkit(&d, &bus_native_object, m, USER, false),
		NATIVE_ERROR "PermissionDenied",
		"Watching every user's demotions needs root or polkit's "
		"org.realtimed.manage");
	bus_fixture_flush();
	bus_native_emit_demoted(&d, &t, 1, "reset");
	bus_fixture_pump(&d, 10);
	ck_assert_ptr_null(bus_fixture_take_signal("Demoted", USER));
}
END_TEST

/* The tids a Demoted signal names, in order, and its reason. */
static size_t demoted_tids(DBusMessage *s, uint64_t *tids, size_t max, const char **reason)
{
	DBusMessageIter it, arr, st;
	size_t n = 0;

	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(dbus_message_get_signature(s), "a(tt)s");
	ck_assert_str_eq(dbus_message_get_path(s), NATIVE_PATH);
	ck_assert_str_eq(dbus_message_get_interface(s), NATIVE_IFACE);
	ck_assert(!dbus_message_get_auto_start(s));
	ck_assert(dbus_message_iter_init(s, &it));
	dbus_message_iter_recurse(&it, &arr);
	for (; dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT;
	     dbus_message_iter_next(&arr)) {
		ck_assert_uint_lt(n, max);
		dbus_message_iter_recurse(&arr, &st);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &tids[n++]);
	}
	dbus_message_iter_next(&it);
	dbus_message_iter_get_basic(&it, reason);
	return n;
}

/* That the Demoted to dest names exactly tids (in any order), with
 * reason; then no other Demoted to dest. */
static void expect_demoted(const char *dest, const uint64_t *tids, size_t n, const char *reason)
{
	DBusMessage *s = bus_fixture_take_signal("Demoted", dest);
	uint64_t got[16];
	const char *r;
	size_t k;

	ck_assert_msg(s, "no Demoted to %s", dest);
	k = demoted_tids(s, got, 16, &r);
	ck_assert_str_eq(r, reason);
	ck_assert_uint_eq(k, n);
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t j = 0; j < k; j++)
			found |= got[j] == tids[i];
		ck_assert_msg(found, "Demoted to %s lacks tid %llu", dest,
			      (unsigned long long)tids[i]);
	}
	dbus_message_unref(s);
	ck_assert_msg(!bus_fixture_take_signal("Demoted", dest), "a second Demoted to %s", dest);
}

START_TEST(test_who_hears)
{
	/* :1.5 owns two threads, :1.6 one, one was adopted (no owner), and
	 * :1.1 watches and owns one */
	DemoteThread t[] = {
		{ .pid = 10, .tid = 11, .owner = ":1.5" },
		{ .pid = 20, .tid = 21, .owner = ":1.6" },
		{ .pid = 10, .tid = 12, .owner = ":1.5" },
		{ .pid = 30, .tid = 31, .owner = "" },
		{ .pid = 40, .tid = 41, .owner = ROOT },
	};

	bus_fixture_expect_ok(subscribe(ROOT), "");
	bus_fixture_flush();
	bus_native_emit_demoted(&d, t, ELEMENTSOF(t), "canary");
	bus_fixture_pump(&d, 10);
	expect_demoted(ROOT, (const uint64_t[]){ 11, 21, 12, 31, 41 }, 5, "canary");
	expect_demoted(":1.5", (const uint64_t[]){ 11, 12 }, 2, "canary");
	expect_demoted(":1.6", (const uint64_t[]){ 21 }, 1, "canary");
	/* nothing else, to anyone */
	ck_assert_ptr_null(bus_fixture_take_signal("Demoted", NULL));

	/* nothing to tell: nothing sent */
	bus_native_emit_demoted(&d, t, 0, "reset");
	bus_fixture_pump(&d, 10);
	ck_assert_ptr_null(bus_fixture_take_signal("Demoted", NULL));
}
END_TEST

/* A reset of every grant: each owner hears of its own thread, the watcher
 * of both, reason "reset". */
START_TEST(test_reset_tells)
{
	Sleeper a = {}, b = {};
	Grant *g;

	bus_fixture_expect_ok(subscribe(ROOT), "");
	bus_fixture_flush();
	sleeper_start(&a);
	sleeper_start(&b);
	fixture_stat(getpid(), a.tid, 1000);
	fixture_stat(getpid(), b.tid, 1001);
	fixture_grant(&d, a.tid, 1000, 5);
	fixture_grant(&d, b.tid, 1001, 5);
	g = grant_table_find(d.grants, getpid(), a.tid);
	grant_set_owner(g, ":1.5");
	g = grant_table_find(d.grants, getpid(), b.tid);
	grant_set_owner(g, ":1.6");

	ck_assert_uint_eq(demote_reset(&d, 0, 0), 2);
	bus_fixture_pump(&d, 10);
	expect_demoted(ROOT, (const uint64_t[]){ (uint64_t)a.tid, (uint64_t)b.tid }, 2, "reset");
	expect_demoted(":1.5", (const uint64_t[]){ (uint64_t)a.tid }, 1, "reset");
	expect_demoted(":1.6", (const uint64_t[]){ (uint64_t)b.tid }, 1, "reset");
	close(a.pipe[1]);
	close(b.pipe[1]);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-native-demoted");
	TCase *tc;

	tc = check_add_case(s, "subscribe",
			    CHECK_TESTS(test_subscribe_bounds, test_watcher_gone_at_once,
					test_subscribe_needs_manage));
	tcase_add_checked_fixture(tc, setup, teardown);
	tc = check_add_case(s, "signal", CHECK_TESTS(test_who_hears, test_reset_tells));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
