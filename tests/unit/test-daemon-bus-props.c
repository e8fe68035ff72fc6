/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-props.c, the properties both objects answer
 * for their caller, through bus_dispatch() on the daemon fixture and the
 * bus fixture (bus-fixture.h), with the users from the resolver's fake
 * directory (resolver-fixture.h: uid N is "uN", of gid 29 unless the test
 * says otherwise):
 *   - a member of audio ([Group #29]) reads its own MaxRealtimePriority,
 *     MinNiceLevel and RTTimeUSecMax (infinity: INT64_MAX), another user
 *     [Default]'s; the first call of a user not looked up yet waits for
 *     the lookup (no answer before it), never answering [Default]'s;
 *   - GetAll: the native object's six (Version, CpuDmaLatency as
 *     (sxus), Shield as (ssuua(uss)ss), "unset" without Shield=), the
 *     rtkit object's three; Get of each in its type;
 *   - Get of another interface is UnknownInterface, of an unknown property
 *     UnknownProperty; Set is PropertyReadOnly; a lookup that fails is
 *     Failed with the reason.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "bus-native.h"
#include "bus-rtkit.h"
#include "check-main.h"
#include "config.h"
#include "creds.h"
#include "daemon-fixture.h"
#include "resolver-fixture.h"

#define MEMBER ":1.1" /* uid 1000, in audio */
#define OTHER ":1.2"  /* uid 1001, in no group of the policy */
#define POLICY                                                       \
	"[Default]\nRealtimePriority=20\nNice=-15\nRTTime=200ms\n\n" \
	"[Group #29]\nRealtimePriority=95\nNice=-19\nRTTime=infinity\n"

static Daemon d;

static void setup(void)
{
	fixture_setup();
	fake_reset();
	fixture_write(fixture_conf, POLICY);
	fixture_daemon_init(&d, NULL);
	d.resolver = resolver(5 * USEC_PER_SEC, 5 * USEC_PER_SEC, 2);
	bus_fixture_init(&d);
	ck_assert_int_eq(creds_cache_put(d.creds, MEMBER, 1000, getpid()), 0);
	ck_assert_int_eq(creds_cache_put(d.creds, OTHER, 1001, getpid()), 0);
}

static void teardown(void)
{
	bus_fixture_fini(&d);
	d.resolver = NULL; /* the resolver fixture's */
	fixture_daemon_fini(&d);
	resolver_fixture_teardown();
	fixture_teardown();
}

/* m on o, and its answer, running the resolver's loop beside the bus;
 * waits tells whether no answer may come before the loop ran. */
static DBusMessage *call_on(const BusObject *o, DBusMessage *m, bool waits)
{
	DBusMessage *reply;

	bus_fixture_dispatch(&d, o, m);
	reply = bus_fixture_reply(&d, m, 10);
	if (waits)
		ck_assert_msg(!reply, "answered before the user was looked up");
	for (int i = 0; i < 500 && !reply; i++) {
		ck_assert_int_ge(sd_event_run(fixture_event, 10 * USEC_PER_MSEC), 0);
		reply = bus_fixture_reply(&d, m, 1);
	}
	dbus_message_unref(m);
	return reply;
}

static DBusMessage *get(const BusObject *o, const char *sender, const char *iface, const char *name,
			bool waits)
{
	return call_on(o,
		       bus_fixture_call_new(sender, o->path, DBUS_INTERFACE_PROPERTIES, "Get",
					    DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
					    DBUS_TYPE_INVALID),
		       waits);
}

static DBusMessage *get_all(const BusObject *o, const char *sender, const char *iface, bool waits)
{
	return call_on(o,
		       bus_fixture_call_new(sender, o->path, DBUS_INTERFACE_PROPERTIES, "GetAll",
					    DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID),
		       waits);
}

/* The value of Get's answer, of type type, into value. */
static void get_value(DBusMessage *reply, int type, void *value)
{
	DBusMessageIter it, v;

	bus_fixture_expect_return(reply, "v");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &v);
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&v), type);
	dbus_message_iter_get_basic(&v, value);
	dbus_message_unref(reply);
}

static int32_t get_i(const BusObject *o, const char *sender, const char *name, bool waits)
{
	int32_t v;

	get_value(get(o, sender, o->iface, name, waits), DBUS_TYPE_INT32, &v);
	return v;
}

static int64_t get_x(const BusObject *o, const char *sender, const char *name)
{
	int64_t v;

	get_value(get(o, sender, o->iface, name, false), DBUS_TYPE_INT64, &v);
	return v;
}

START_TEST(test_member_reads_its_own)
{
	/* the first call waits for the lookup */
	ck_assert_int_eq(get_i(&bus_native_object, MEMBER, "MaxRealtimePriority", true), 95);
	ck_assert_int_eq(get_i(&bus_native_object, MEMBER, "MinNiceLevel", false), -19);
	ck_assert_int_eq(get_x(&bus_native_object, MEMBER, "RTTimeUSecMax"), INT64_MAX);
	/* the same through the rtkit object */
	ck_assert_int_eq(get_i(&bus_rtkit_object, MEMBER, "MaxRealtimePriority", false), 95);

	/* a user of another group: [Default]'s */
	fake_set(100, 0);
	ck_assert_int_eq(get_i(&bus_rtkit_object, OTHER, "MaxRealtimePriority", true), 20);
	ck_assert_int_eq(get_i(&bus_rtkit_object, OTHER, "MinNiceLevel", false), -15);
	ck_assert_int_eq(get_x(&bus_rtkit_object, OTHER, "RTTimeUSecMax"), 200000);
}
END_TEST

/* GetAll's names, in order, and their types. */
static void expect_all(DBusMessage *reply, const char *const *names, const char *const *types,
		       size_t n)
{
	DBusMessageIter it, arr, e, v;
	size_t i = 0;

	bus_fixture_expect_return(reply, "a{sv}");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &arr);
	for (; dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY;
	     dbus_message_iter_next(&arr), i++) {
		const char *k;
		char *sig;

		ck_assert_uint_lt(i, n);
		dbus_message_iter_recurse(&arr, &e);
		dbus_message_iter_get_basic(&e, &k);
		ck_assert_str_eq(k, names[i]);
		dbus_message_iter_next(&e);
		dbus_message_iter_recurse(&e, &v);
		sig = dbus_message_iter_get_signature(&v);
		ck_assert_str_eq(sig, types[i]);
		dbus_free(sig);
	}
	ck_assert_uint_eq(i, n);
	dbus_message_unref(reply);
}

START_TEST(test_get_all)
{
	static const char *const names[] = { "RTTimeUSecMax", "MaxRealtimePriority", "MinNiceLevel",
					     "Version",	      "CpuDmaLatency",	     "Shield" };
	static const char *const types[] = { "x", "i", "i", "s", "(sxus)", "(ssuua(uss)ss)" };
	DBusMessageIter it, v, st;
	DBusMessage *reply;
	const char *s;
	int64_t usec;
	uint32_t grants;

	expect_all(get_all(&bus_native_object, MEMBER, NATIVE_IFACE, true), names, types, 6);
	expect_all(get_all(&bus_rtkit_object, MEMBER, RTKIT_IFACE, false), names, types, 3);
	/* the empty interface is every interface's */
	expect_all(get_all(&bus_native_object, MEMBER, "", false), names, types, 6);

	/* no Shield= (no shield made): unset */
	reply = bus_fixture_expect_return(
		get(&bus_native_object, MEMBER, NATIVE_IFACE, "Shield", false), "v");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &v);
	dbus_message_iter_recurse(&v, &st);
	dbus_message_iter_get_basic(&st, &s);
	ck_assert_str_eq(s, "unset");
	dbus_message_unref(reply);

	/* no CpuDmaLatency= set: unset, -1, no grants, no failure */
	reply = bus_fixture_expect_return(
		get(&bus_native_object, MEMBER, NATIVE_IFACE, "CpuDmaLatency", false), "v");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &v);
	dbus_message_iter_recurse(&v, &st);
	dbus_message_iter_get_basic(&st, &s);
	ck_assert_str_eq(s, "unset");
	dbus_message_iter_next(&st);
	dbus_message_iter_get_basic(&st, &usec);
	ck_assert_int_eq(usec, -1);
	dbus_message_iter_next(&st);
	dbus_message_iter_get_basic(&st, &grants);
	ck_assert_uint_eq(grants, 0);
	dbus_message_iter_next(&st);
	dbus_message_iter_get_basic(&st, &s);
	ck_assert_str_eq(s, "");
	dbus_message_unref(reply);
}
END_TEST

START_TEST(test_version)
{
	DBusMessage *reply = get(&bus_native_object, MEMBER, NATIVE_IFACE, "Version", true);
	DBusMessageIter it, v;
	const char *s;

	bus_fixture_expect_return(reply, "v");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &v);
	dbus_message_iter_get_basic(&v, &s);
	ck_assert_str_eq(s, PACKAGE_VERSION);
	dbus_message_unref(reply);
}
END_TEST

START_TEST(test_refusals)
{
	const char *iface = RTKIT_IFACE, *name = "MaxRealtimePriority";
	int32_t value = 99;
	DBusMessageIter it, v;
	DBusMessage *m;

	/* resolved first, so that the errors below are answered at once */
	ck_assert_int_eq(get_i(&bus_native_object, MEMBER, "MinNiceLevel", true), -19);
	bus_fixture_expect_error(
		get(&bus_native_object, MEMBER, RTKIT_IFACE, "MaxRealtimePriority", false),
		DBUS_ERROR_UNKNOWN_INTERFACE, "Unknown interface " RTKIT_IFACE);
	bus_fixture_expect_error(get(&bus_native_object, MEMBER, NATIVE_IFACE, "Root", false),
				 DBUS_ERROR_UNKNOWN_PROPERTY, "Unknown property Root");
	/* the rtkit object has no Version */
	bus_fixture_expect_error(get(&bus_rtkit_object, MEMBER, RTKIT_IFACE, "Version", false),
				 DBUS_ERROR_UNKNOWN_PROPERTY, "Unknown property Version");
	bus_fixture_expect_error(get_all(&bus_rtkit_object, MEMBER, NATIVE_IFACE, false),
				 DBUS_ERROR_UNKNOWN_INTERFACE, NULL);

	m = bus_fixture_call_new(MEMBER, RTKIT_PATH, DBUS_INTERFACE_PROPERTIES, "Set",
				 DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
				 DBUS_TYPE_INVALID);
	dbus_message_iter_init_append(m, &it);
	ck_assert(dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "i", &v));
	ck_assert(dbus_message_iter_append_basic(&v, DBUS_TYPE_INT32, &value));
	ck_assert(dbus_message_iter_close_container(&it, &v));
	bus_fixture_expect_error(call_on(&bus_rtkit_object, m, false),
				 DBUS_ERROR_PROPERTY_READ_ONLY, "The properties are read-only");
	/* and nothing changed */
	ck_assert_int_eq(get_i(&bus_rtkit_object, MEMBER, "MaxRealtimePriority", false), 95);

	/* a wrong signature */
	bus_fixture_expect_error(
		call_on(&bus_rtkit_object,
			bus_fixture_call_new(MEMBER, RTKIT_PATH, DBUS_INTERFACE_PROPERTIES, "Get",
					     DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID),
			false),
		DBUS_ERROR_INVALID_ARGS, "signature 'ss', got 's'");
}
END_TEST

/* The directory fails: the caller is told why, not given [Default]'s. */
START_TEST(test_lookup_fails)
{
	fake_set(29, -EIO);
	bus_fixture_expect_error(
		get(&bus_native_object, OTHER, NATIVE_IFACE, "MaxRealtimePriority", true),
		DBUS_ERROR_FAILED,
		"Could not evaluate the policy for the caller: could not resolve "
		"uid 1001 through NSS: Input/output error");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-props");
	TCase *tc = check_add_case(s, "properties",
				   CHECK_TESTS(test_member_reads_its_own, test_get_all,
					       test_version, test_refusals, test_lookup_fails));

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	return check_run(s);
}
