/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/polkit.c's message: the question to polkitd and its
 * answer, as polkitd sees them (org.freedesktop.PolicyKit1.Authority's
 * CheckAuthorization(subject (sa{sv}), action s, details a{ss}, flags u,
 * cancellation_id s)), without a bus:
 *   - a grant's subject is the pinned process (unix-process: pid as u,
 *     start-time as t, uid as u); a manage call's is the caller's
 *     connection (system-bus-name: its unique name, no pid), which
 *     polkitd looks up itself, not a pid that may be another process by
 *     now;
 *   - the action is asked as given, with no details, flags 1
 *     (AllowUserInteraction) only when the caller allowed interaction, and
 *     no cancellation id;
 *   - the answer: authorized or not; polkitd not running is -EHOSTUNREACH
 *     (ServiceUnknown, NameHasNoOwner), another error -EIO, and an answer
 *     of another shape -EBADMSG, never a "yes".
 */
#include <check.h>
#include <dbus/dbus.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bus-fixture.h"
#include "check-main.h"
#include "polkit.h"

static PolkitCacheEntry process_key(const char *action, pid_t pid, uint64_t start_time, uid_t uid)
{
	PolkitCacheEntry k = { .pid = pid, .start_time = start_time, .uid = uid };

	snprintf(k.action, sizeof(k.action), "%s", action);
	return k;
}

static PolkitCacheEntry manage_key(const char *bus_name, uid_t uid, bool interactive)
{
	PolkitCacheEntry k = { .uid = uid, .interactive = interactive };

	snprintf(k.action, sizeof(k.action), "org.realtimed.manage");
	snprintf(k.bus_name, sizeof(k.bus_name), "%s", bus_name);
	return k;
}

/* The kind of a CheckAuthorization's subject, its first argument (kind,
 * {details}); *ret_found: whether it has the detail named detail, whose
 * variant goes into *ret_value. */
static const char *subject_kind(DBusMessage *m, const char *detail, DBusMessageIter *ret_value,
				bool *ret_found)
{
	DBusMessageIter it, st, dict, entry;
	const char *kind = NULL, *name;

	*ret_found = false;
	ck_assert(dbus_message_iter_init(m, &it));
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&it), DBUS_TYPE_STRUCT);
	dbus_message_iter_recurse(&it, &st);
	dbus_message_iter_get_basic(&st, &kind);
	ck_assert(dbus_message_iter_next(&st));
	dbus_message_iter_recurse(&st, &dict);
	while (dbus_message_iter_get_arg_type(&dict) == DBUS_TYPE_DICT_ENTRY) {
		dbus_message_iter_recurse(&dict, &entry);
		dbus_message_iter_get_basic(&entry, &name);
		dbus_message_iter_next(&entry);
		if (strcmp(name, detail) == 0) {
			dbus_message_iter_recurse(&entry, ret_value);
			*ret_found = true;
		}
		dbus_message_iter_next(&dict);
	}
	return kind;
}

/* The detail of m's subject named detail, of D-Bus type type, into value. */
static void subject_detail(DBusMessage *m, const char *detail, int type, void *value)
{
	DBusMessageIter v;
	bool found;

	(void)subject_kind(m, detail, &v, &found);
	ck_assert_msg(found, "the subject has no %s", detail);
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&v), type);
	dbus_message_iter_get_basic(&v, value);
}

/* The arguments after the subject: action, details, flags, cancellation
 * id; the details must be empty. */
static void check_rest(DBusMessage *m, const char *action, uint32_t flags)
{
	DBusMessageIter it, details;
	const char *s;
	uint32_t u;

	ck_assert_str_eq(dbus_message_get_signature(m), "(sa{sv})sa{ss}us");
	ck_assert_str_eq(dbus_message_get_destination(m), POLKIT_NAME);
	ck_assert_str_eq(dbus_message_get_path(m), POLKIT_PATH);
	ck_assert_str_eq(dbus_message_get_interface(m), POLKIT_IFACE);
	ck_assert_str_eq(dbus_message_get_member(m), "CheckAuthorization");
	ck_assert(dbus_message_iter_init(m, &it));
	ck_assert(dbus_message_iter_next(&it));
	dbus_message_iter_get_basic(&it, &s);
	ck_assert_str_eq(s, action);
	ck_assert(dbus_message_iter_next(&it));
	dbus_message_iter_recurse(&it, &details);
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&details), DBUS_TYPE_INVALID);
	ck_assert(dbus_message_iter_next(&it));
	dbus_message_iter_get_basic(&it, &u);
	ck_assert_uint_eq(u, flags);
	ck_assert(dbus_message_iter_next(&it));
	dbus_message_iter_get_basic(&it, &s);
	ck_assert_str_eq(s, "");
}

/* A manage call asks about the caller's connection, which polkitd looks up
 * itself, not about a pid that may be another process by now; with user
 * interaction only when the caller allowed it. */
START_TEST(test_manage_subject_is_the_connection)
{
	PolkitCacheEntry k = manage_key(":1.42", 1000, true);
	DBusMessageIter v;
	DBusMessage *m = NULL;
	const char *name;
	bool found;

	ck_assert_int_eq(polkit_message_new(&k, &m), 0);
	ck_assert_str_eq(dbus_message_get_member(m), "CheckAuthorization");
	ck_assert_str_eq(subject_kind(m, "name", &v, &found), "system-bus-name");
	ck_assert(found);
	ck_assert_int_eq(dbus_message_iter_get_arg_type(&v), DBUS_TYPE_STRING);
	dbus_message_iter_get_basic(&v, &name);
	ck_assert_str_eq(name, ":1.42");
	(void)subject_kind(m, "pid", &v, &found);
	ck_assert(!found);
	(void)subject_kind(m, "uid", &v, &found);
	ck_assert(!found);
	(void)subject_kind(m, "start-time", &v, &found);
	ck_assert(!found);
	check_rest(m, "org.realtimed.manage", 1);
	dbus_message_unref(m);

	k = manage_key(":1.42", 1000, false);
	ck_assert_int_eq(polkit_message_new(&k, &m), 0);
	check_rest(m, "org.realtimed.manage", 0);
	dbus_message_unref(m);

	k = process_key("org.realtimed.acquire-realtime", 4242, 777, 1000);
	ck_assert_int_eq(polkit_message_new(&k, &m), 0);
	ck_assert_str_eq(subject_kind(m, "start-time", &v, &found), "unix-process");
	ck_assert(found);
	dbus_message_unref(m);
}
END_TEST

/* A grant's question, whole: the process by pid, start time and uid, in
 * the types polkitd reads them as. */
START_TEST(test_process_question)
{
	PolkitCacheEntry k =
		process_key("org.realtimed.acquire-realtime", 4242, 123456789012345ULL, 1000);
	DBusMessageIter v;
	DBusMessage *m = NULL;
	uint64_t start_time;
	uint32_t pid, uid;
	bool found;

	ck_assert_int_eq(polkit_message_new(&k, &m), 0);
	check_rest(m, "org.realtimed.acquire-realtime", 0);
	subject_detail(m, "pid", DBUS_TYPE_UINT32, &pid);
	ck_assert_uint_eq(pid, 4242);
	subject_detail(m, "start-time", DBUS_TYPE_UINT64, &start_time);
	ck_assert_uint_eq(start_time, 123456789012345ULL);
	subject_detail(m, "uid", DBUS_TYPE_UINT32, &uid);
	ck_assert_uint_eq(uid, 1000);
	(void)subject_kind(m, "name", &v, &found);
	ck_assert(!found);
	dbus_message_unref(m);
}
END_TEST

/* polkitd's answer to a question: (b is_authorized, b is_challenge,
 * a{ss} details), or the shape a malformed one has. */
typedef enum Shape {
	SHAPE_GOOD,
	SHAPE_EMPTY,		  /* no arguments at all */
	SHAPE_BARE_BOOL,	  /* b, not in a struct */
	SHAPE_STRING_HEAD,	  /* (sbb): the struct starts with no boolean */
	SHAPE_EMPTY_STRUCT_ARRAY, /* a(b): an array where the struct belongs */
} Shape;

static DBusMessage *answer(Shape shape, dbus_bool_t authorized)
{
	PolkitCacheEntry k = manage_key(":1.42", 1000, false);
	DBusMessage *call = NULL, *r;
	DBusMessageIter it, st;
	const char *s = "yes";

	ck_assert_int_eq(polkit_message_new(&k, &call), 0);
	dbus_message_set_serial(call, 7);
	/* polkitd's own, as the bus tests' fake polkitd answers */
	r = shape == SHAPE_GOOD ? bus_fixture_polkit_answer(call, authorized)
				: dbus_message_new_method_return(call);
	dbus_message_unref(call);
	ck_assert_ptr_nonnull(r);
	dbus_message_iter_init_append(r, &it);
	switch (shape) {
	case SHAPE_GOOD:
	case SHAPE_EMPTY:
		break;
	case SHAPE_BARE_BOOL:
		ck_assert(dbus_message_iter_append_basic(&it, DBUS_TYPE_BOOLEAN, &authorized));
		break;
	case SHAPE_STRING_HEAD:
		ck_assert(dbus_message_iter_open_container(&it, DBUS_TYPE_STRUCT, NULL, &st));
		ck_assert(dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &s));
		ck_assert(dbus_message_iter_append_basic(&st, DBUS_TYPE_BOOLEAN, &authorized));
		ck_assert(dbus_message_iter_close_container(&it, &st));
		break;
	case SHAPE_EMPTY_STRUCT_ARRAY:
		ck_assert(dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(b)", &st));
		ck_assert(dbus_message_iter_close_container(&it, &st));
		break;
	}
	return r;
}

static int parse(DBusMessage *r)
{
	int result = polkit_reply_parse(r);

	dbus_message_unref(r);
	return result;
}

START_TEST(test_answers)
{
	ck_assert_int_eq(parse(answer(SHAPE_GOOD, TRUE)), 1);
	ck_assert_int_eq(parse(answer(SHAPE_GOOD, FALSE)), 0);
}
END_TEST

/* An answer of another shape is no answer: never read as a "yes". */
START_TEST(test_malformed_answers)
{
	ck_assert_int_eq(parse(answer(SHAPE_EMPTY, TRUE)), -EBADMSG);
	ck_assert_int_eq(parse(answer(SHAPE_BARE_BOOL, TRUE)), -EBADMSG);
	ck_assert_int_eq(parse(answer(SHAPE_STRING_HEAD, TRUE)), -EBADMSG);
	ck_assert_int_eq(parse(answer(SHAPE_EMPTY_STRUCT_ARRAY, TRUE)), -EBADMSG);
}
END_TEST

static DBusMessage *error_answer(const char *name)
{
	PolkitCacheEntry k = process_key("org.realtimed.acquire-realtime", 1, 2, 3);
	DBusMessage *call = NULL, *r;

	ck_assert_int_eq(polkit_message_new(&k, &call), 0);
	dbus_message_set_serial(call, 7);
	r = dbus_message_new_error(call, name, "no");
	dbus_message_unref(call);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* No polkitd, as the bus says it; any other error is polkit failing. */
START_TEST(test_error_answers)
{
	ck_assert_int_eq(parse(error_answer(DBUS_ERROR_SERVICE_UNKNOWN)), -EHOSTUNREACH);
	ck_assert_int_eq(parse(error_answer(DBUS_ERROR_NAME_HAS_NO_OWNER)), -EHOSTUNREACH);
	ck_assert_int_eq(parse(error_answer(DBUS_ERROR_NO_REPLY)), -EIO);
	ck_assert_int_eq(parse(error_answer("org.freedesktop.PolicyKit1.Error.Failed")), -EIO);
	ck_assert_int_eq(parse(error_answer(DBUS_ERROR_ACCESS_DENIED)), -EIO);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-polkit-message");

	check_add_case(s, "question",
		       CHECK_TESTS(test_manage_subject_is_the_connection, test_process_question));
	check_add_case(s, "answer",
		       CHECK_TESTS(test_answers, test_malformed_answers, test_error_answers));
	return check_run(s);
}
