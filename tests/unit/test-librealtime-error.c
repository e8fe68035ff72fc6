// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for librealtime/error.c: each error of realtimed's API, of
 * rtkit-daemon and of the bus maps to the errno that librealtime(3)
 * documents, and the calling thread's message keeps the service's words,
 * cut at a character boundary when long, and is the calling thread's own.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "realtime-internal.h"

/* Spelled out rather than NATIVE_ERROR: the names on the wire are the
 * contract (realtimed(8)), whatever common/bus-names.h says. */
#define E(x) "org.realtimed.Realtime1.Error." x
#define D(x) "org.freedesktop.DBus.Error." x

START_TEST(test_native_errors)
{
	ck_assert_int_eq(realtime_errno_from_bus_error(E("PermissionDenied")), -EPERM);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("PolicyDenied")), -EPERM);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("NoSuchProcess")), -ESRCH);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("NoSuchGrant")), -ENOENT);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("InvalidArgs")), -EINVAL);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("LimitsExceeded")), -EDQUOT);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("RateLimited")), -EAGAIN);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("Refusing")), -EBUSY);
	ck_assert_int_eq(realtime_errno_from_bus_error(E("Failed")), -EIO);
	/* a newer realtimed's error this library does not know */
	ck_assert_int_eq(realtime_errno_from_bus_error(E("SomethingNew")), -EIO);
}
END_TEST

START_TEST(test_bus_and_rtkit_errors)
{
	/* what rtkit-daemon answers (and realtimed's compat interface) */
	ck_assert_int_eq(realtime_errno_from_bus_error(D("AccessDenied")), -EPERM);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("InvalidArgs")), -EINVAL);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("NoMemory")), -ENOMEM);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("Failed")), -EIO);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("InteractiveAuthorizationRequired")),
			 -EPERM);
	/* nobody answers */
	ck_assert_int_eq(realtime_errno_from_bus_error(D("NoReply")), -ETIMEDOUT);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("Timeout")), -ETIMEDOUT);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("TimedOut")), -ETIMEDOUT);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("ServiceUnknown")), -ENXIO);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("NameHasNoOwner")), -ENXIO);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("Spawn.ChildExited")), -ENXIO);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("Spawn.ServiceNotFound")), -ENXIO);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("NoServer")), -ECONNREFUSED);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("FileNotFound")), -ECONNREFUSED);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("Disconnected")), -ECONNRESET);
	/* an older service */
	ck_assert_int_eq(realtime_errno_from_bus_error(D("UnknownMethod")), -EOPNOTSUPP);
	ck_assert_int_eq(realtime_errno_from_bus_error(D("UnknownProperty")), -EOPNOTSUPP);
	ck_assert_int_eq(realtime_errno_from_bus_error(NULL), -EIO);
	ck_assert_int_eq(realtime_errno_from_bus_error("not.an.Error"), -EIO);
}
END_TEST

START_TEST(test_message_from_bus_error)
{
	DBusError error;

	dbus_error_init(&error);
	dbus_set_error_const(&error, E("PolicyDenied"),
			     "priority 96 exceeds the limit 95 for user rtaudio "
			     "(/etc/realtime/realtime.conf:12)");
	ck_assert_int_eq(realtime_fail_bus(&error, "MakeThreadRealtime"), -EPERM);
	ck_assert_str_eq(realtime_error_message(),
			 "priority 96 exceeds the limit 95 for user rtaudio "
			 "(/etc/realtime/realtime.conf:12)");

	/* no text: the call and the error's name */
	dbus_error_init(&error);
	dbus_set_error_const(&error, E("NoSuchGrant"), "");
	ck_assert_int_eq(realtime_fail_bus(&error, "ResetThread"), -ENOENT);
	ck_assert_str_eq(realtime_error_message(), "ResetThread: " E("NoSuchGrant"));

	realtime_clear_error();
	ck_assert_str_eq(realtime_error_message(), "");
}
END_TEST

START_TEST(test_utf8_cut)
{
	/* Into 8 bytes (1 for the last): "é" is 2 bytes, "€" 3, never half a
	 * character. */
	static const struct {
		size_t size;
		const char *in, *out;
	} cuts[] = {
		{ 8, "abc", "abc" },	   { 8, "abcdefghij", "abcdefg" },
		{ 8, "abcdeé", "abcdeé" }, { 8, "abcdefé", "abcdef" },
		{ 8, "abcde€", "abcde" },  { 8, "€€€", "€€" },
		{ 1, "abc", "" },
	};
	char buf[8];

	for (size_t i = 0; i < ELEMENTSOF(cuts); i++) {
		realtime_utf8_copy(buf, cuts[i].size, cuts[i].in);
		ck_assert_str_eq(buf, cuts[i].out);
	}
}
END_TEST

START_TEST(test_long_message_is_cut)
{
	char *long_text = malloc(4 * REALTIME_MESSAGE_MAX);
	size_t i, n;

	ck_assert_ptr_nonnull(long_text);
	/* "é" repeated, starting one byte in, so the cut falls mid-character */
	long_text[0] = 'x';
	for (i = 1; i + 2 < 4 * REALTIME_MESSAGE_MAX; i += 2)
		memcpy(long_text + i, "é", 2);
	long_text[i] = '\0';
	ck_assert_int_eq(realtime_fail(-EIO, "%s", long_text), -EIO);
	n = strlen(realtime_error_message());
	ck_assert_uint_lt(n, REALTIME_MESSAGE_MAX);
	ck_assert_uint_ge(n, REALTIME_MESSAGE_MAX - 3);
	/* x then whole "é"s: an odd length */
	ck_assert_uint_eq(n % 2, 1);
	ck_assert_int_eq(memcmp(realtime_error_message(), long_text, n), 0);
	free(long_text);
}
END_TEST

static void *fail_in_thread(void *arg)
{
	realtime_fail(-EPERM, "the other thread's refusal");
	*(char **)arg = strdup(realtime_error_message());
	return NULL;
}

START_TEST(test_message_is_per_thread)
{
	char *theirs = NULL;
	pthread_t t;

	realtime_fail(-ESRCH, "mine");
	ck_assert_int_eq(pthread_create(&t, NULL, fail_in_thread, &theirs), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_str_eq(theirs, "the other thread's refusal");
	ck_assert_str_eq(realtime_error_message(), "mine");
	free(theirs);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("librealtime-error");

	check_add_case(s, "names",
		       CHECK_TESTS(test_native_errors, test_bus_and_rtkit_errors,
				   test_message_from_bus_error));
	check_add_case(
		s, "message",
		CHECK_TESTS(test_utf8_cut, test_long_message_is_cut, test_message_is_per_thread));
	return check_run(s);
}
