/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/rtkit-name.c, whether the rtkit object is served,
 * on the bus fixture (bus-fixture.h: the test plays the bus daemon, which
 * answers RequestName, and the clients, whose calls on
 * /org/freedesktop/RealtimeKit1 reach the object or libdbus's "no such
 * object"):
 *   - served: the path answers at once, and RequestName asks for
 *     org.freedesktop.RealtimeKit1 without queueing; owning it, the object
 *     stays, and the journal says so;
 *   - the name taken (rtkit-daemon runs) or the bus refusing: the path is
 *     dropped, the journal says why;
 *   - given up: ReleaseName, the path dropped; an answer to a request
 *     given up since counts for nothing;
 *   - asked twice: one RequestName.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "check-main.h"
#include "daemon-fixture.h"
#include "log-fixture.h"
#include "rtkit-name.h"

static Daemon d;
static RtkitName *name;
static unsigned n_calls;

/* The stand-in object: counts calls and answers each. */
static DBusHandlerResult object_message(DBusConnection *c, DBusMessage *m, void *userdata)
{
	DBusMessage *r = dbus_message_new_method_return(m);

	ck_assert_ptr_eq(userdata, &d);
	n_calls++;
	ck_assert(dbus_connection_send(c, r, NULL));
	dbus_message_unref(r);
	return DBUS_HANDLER_RESULT_HANDLED;
}

static const DBusObjectPathVTable vtable = { .message_function = object_message };

static void setup(void)
{
	fixture_setup();
	log_capture();
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	ck_assert_int_eq(rtkit_name_new(d.bus, &vtable, &d, &name), 0);
	n_calls = 0;
}

static void teardown(void)
{
	name = rtkit_name_free(name);
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
	fixture_teardown();
}

/* Whether a client's call on the rtkit path reaches the object. */
static bool served(void)
{
	DBusMessage *m = dbus_message_new_method_call(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE,
						      "MakeThreadRealtime");
	unsigned before = n_calls;
	DBusMessage *reply;
	uint32_t serial;

	serial = bus_fixture_send(m);
	reply = bus_fixture_reply_serial(&d, serial, 200);
	ck_assert_ptr_nonnull(reply);
	if (n_calls == before)
		ck_assert_int_eq(dbus_message_get_type(reply), DBUS_MESSAGE_TYPE_ERROR);
	dbus_message_unref(reply);
	return n_calls > before;
}

/* The bus daemon's RequestName that realtimed sent, checked and taken. */
static DBusMessage *request_name(void)
{
	DBusMessage *m;
	const char *n;
	uint32_t flags;

	bus_fixture_pump(&d, 10);
	m = bus_fixture_take_call("RequestName");
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(dbus_message_get_destination(m), DBUS_SERVICE_DBUS);
	ck_assert(dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &n, DBUS_TYPE_UINT32, &flags,
					DBUS_TYPE_INVALID));
	ck_assert_str_eq(n, RTKIT_NAME);
	ck_assert_uint_eq(flags, DBUS_NAME_FLAG_DO_NOT_QUEUE);
	return m;
}

/* The bus daemon answers call with code (DBUS_REQUEST_NAME_REPLY_*). */
static void answer(DBusMessage *call, uint32_t code)
{
	DBusMessage *r = dbus_message_new_method_return(call);

	ck_assert(dbus_message_append_args(r, DBUS_TYPE_UINT32, &code, DBUS_TYPE_INVALID));
	bus_fixture_send(r);
	dbus_message_unref(call);
	bus_fixture_pump(&d, 10);
}

START_TEST(test_owned)
{
	ck_assert(!served());
	rtkit_name_serve(name, true);
	/* calls find the object before the name is ours */
	ck_assert(served());
	answer(request_name(), DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
	ck_assert(served());
	ck_assert_uint_eq(log_count_lines("Serving " RTKIT_NAME " (RtkitCompat=yes)"), 1);
	/* asked again: nothing more to ask */
	rtkit_name_serve(name, true);
	bus_fixture_pump(&d, 10);
	ck_assert_ptr_null(bus_fixture_take_call("RequestName"));
}
END_TEST

/* rtkit-daemon owns the name: the rtkit object is not served. */
START_TEST(test_name_taken)
{
	rtkit_name_serve(name, true);
	answer(request_name(), DBUS_REQUEST_NAME_REPLY_EXISTS);
	ck_assert(!served());
	ck_assert_uint_eq(log_count_lines("Could not own " RTKIT_NAME
					  " (name taken); is rtkit-daemon running? The rtkit "
					  "interface is not served"),
			  1);
	/* a reload asks again */
	rtkit_name_serve(name, true);
	answer(request_name(), DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
	ck_assert(served());
}
END_TEST

/* The bus refuses (its policy does not let realtimed own the name). */
START_TEST(test_bus_refuses)
{
	DBusMessage *call;

	rtkit_name_serve(name, true);
	call = request_name();
	bus_fixture_send(dbus_message_new_error(call, DBUS_ERROR_ACCESS_DENIED,
						"Connection is not allowed to own the service"));
	dbus_message_unref(call);
	bus_fixture_pump(&d, 10);
	ck_assert(!served());
	ck_assert_uint_eq(log_count_lines("Could not own " RTKIT_NAME
					  " (Connection is not allowed to own the service)"),
			  1);
}
END_TEST

START_TEST(test_given_up)
{
	DBusMessage *m;
	const char *n;

	rtkit_name_serve(name, true);
	answer(request_name(), DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
	rtkit_name_serve(name, false);
	ck_assert(!served());
	m = bus_fixture_take_call("ReleaseName");
	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &n, DBUS_TYPE_INVALID));
	ck_assert_str_eq(n, RTKIT_NAME);
	answer(m, DBUS_RELEASE_NAME_REPLY_RELEASED);
	ck_assert_uint_eq(log_count_lines("No longer serving " RTKIT_NAME " (RtkitCompat=no)"), 1);
}
END_TEST

/* Given up before the bus answered the request: its late "yes" serves
 * nothing (the bus daemon released the name, asked after). */
START_TEST(test_late_answer)
{
	DBusMessage *request, *release;

	rtkit_name_serve(name, true);
	request = request_name();
	rtkit_name_serve(name, false);
	bus_fixture_pump(&d, 10);
	release = bus_fixture_take_call("ReleaseName");
	ck_assert_ptr_nonnull(release);
	dbus_message_unref(release);
	answer(request, DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER);
	ck_assert(!served());
	ck_assert_uint_eq(log_count_lines("Serving " RTKIT_NAME), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-rtkit-name");
	TCase *tc = check_add_case(s, "name",
				   CHECK_TESTS(test_owned, test_name_taken, test_bus_refuses,
					       test_given_up, test_late_answer));

	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
