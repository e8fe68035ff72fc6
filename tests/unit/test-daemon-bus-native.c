/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-native.c, the native object's methods as a
 * client sees them through bus_dispatch(), on the daemon fixture (a fake
 * /proc) and the bus fixture (bus-fixture.h: the callers and polkitd are
 * the test's). Callers: root, and a user (nobody) whose calls that need
 * org.realtimed.manage ask polkitd about the caller's connection.
 *   - ListGrants: a(ttusssit), the caller's own grants (root's: every
 *     grant), the user's name ("#UID" for a uid NSS does not know), the
 *     thread's comm from /proc, escaped where it is not valid UTF-8;
 *     ListAllGrants: root at once, another user when polkit says yes,
 *     PermissionDenied naming what needed it when it says no;
 *   - Explain: one's own policy without polkit, each key with its value
 *     and file:line; another user's only with manage; a uid that is no
 *     user is InvalidArgs;
 *   - ListIrqThreads: a(ustsi) from /proc for anyone, sorted, the
 *     action's full name, "other" and the nice level for a thread not
 *     realtime, an action name not valid UTF-8 escaped; Failed when /proc
 *     cannot be read;
 *   - Reload: root, or manage; a broken file is Failed with its file:line
 *     and the last good policy stays;
 *   - MakeThreadRealtime with a policy other than fifo or rr is
 *     InvalidArgs; every method refuses a wrong signature with
 *     org.freedesktop.DBus.Error.InvalidArgs, an unknown one is
 *     UnknownMethod, and Introspect answers the XML.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-fixture.h"
#include "bus-names.h"
#include "bus-native.h"
#include "check-main.h"
#include "creds.h"
#include "daemon-fixture.h"
#include "pidfd.h"

#define ROOT BUS_FIXTURE_ROOT
#define USER BUS_FIXTURE_USER
/* a uid that no passwd entry names, checked in setup */
#define NO_USER 3999999
#define MANAGE_DENIED "needs root or polkit's org.realtimed.manage, which polkit did not grant"

static uid_t user_uid;
static pid_t children[4];
static size_t n_children;

static Daemon d;

static void setup(void)
{
	ck_assert_ptr_null(getpwuid(NO_USER));
	fixture_setup();
	fixture_write(fixture_conf, "[Default]\nNice=10\n\n[User root]\nRealtimePriority=50\n");
	fixture_daemon_init(&d, NULL);
	bus_fixture_init(&d);
	user_uid = bus_fixture_callers(&d);
}

/* A Reload applies the [IRQ] rules, which irq.c hands to realtime.ko
 * under the real /proc: in a private /proc the machine's module is never
 * written to (where the test may not make one, it is not root, and may not
 * write to the module either). */
static void reload_setup(void)
{
	(void)fixture_private_proc();
	setup();
}

static void teardown(void)
{
	for (size_t i = 0; i < n_children; i++) {
		kill(children[i], SIGKILL);
		waitpid(children[i], NULL, 0);
	}
	n_children = 0;
	bus_fixture_fini(&d);
	fixture_daemon_fini(&d);
	fixture_teardown();
}

/* A child of this test that sleeps, as a process of uid in the fake /proc
 * (start time st, comm), granted nice 5 on its main thread since since. */
static pid_t granted_process(uid_t uid, uint64_t st, const char *comm, uint64_t since)
{
	const SchedState before = { .policy = SCHED_OTHER };
	pid_t pid;

	ck_assert_uint_lt(n_children, ELEMENTSOF(children));
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	children[n_children++] = pid;
	fixture_task(pid, 0, uid, uid, uid, st);
	fixture_task(pid, pid, uid, uid, uid, st);
	fixture_comm(pid, pid, comm);
	ck_assert_int_eq(grant_table_add(d.grants, pid, st, uid, pidfd_open_cloexec(pid), pid, st,
					 POLICY_GRANT_NICE, 5, &before, since, NULL),
			 0);
	return pid;
}

/* A call that needs manage, from USER, and polkitd's answer yes or no:
 * the call's answer. */
static DBusMessage *via_polkit(DBusMessage *m, bool yes)
{
	return bus_fixture_call_via_polkit(&d, &bus_native_object, m, USER, yes);
}

static DBusMessage *call(const char *sender, const char *member)
{
	return bus_fixture_call(&d, &bus_native_object, sender, member, DBUS_TYPE_INVALID);
}

static DBusMessage *call_new(const char *sender, const char *member)
{
	return bus_fixture_call_new(sender, NATIVE_PATH, NATIVE_IFACE, member, DBUS_TYPE_INVALID);
}

/* One entry of ListGrants' answer. */
typedef struct GrantRow {
	uint64_t pid, tid, since;
	uint32_t uid;
	const char *user, *comm, *kind;
	int32_t value;
} GrantRow;

/* The rows of a ListGrants answer (which it unrefs after copying nothing:
 * the strings live in reply, which the caller keeps). */
static size_t grant_rows(DBusMessage *reply, GrantRow *rows, size_t max)
{
	DBusMessageIter it, arr, st;
	size_t n = 0;

	bus_fixture_expect_return(reply, "a(ttusssit)");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &arr);
	for (; dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT;
	     dbus_message_iter_next(&arr)) {
		GrantRow *r = &rows[n++];

		ck_assert_uint_le(n, max);
		dbus_message_iter_recurse(&arr, &st);
		dbus_message_iter_get_basic(&st, &r->pid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->tid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->uid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->user);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->comm);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->kind);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->value);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &r->since);
	}
	return n;
}

static const GrantRow *row_of(const GrantRow *rows, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == (uint64_t)pid)
			return &rows[i];
	return NULL;
}

START_TEST(test_list_grants)
{
	pid_t mine = granted_process(user_uid, 5001, "synth", 1234567);
	pid_t roots = granted_process(0, 5002, "bad\xff\xfe-comm", 7);
	pid_t nobodys = granted_process(NO_USER, 5003, "ghost", 8);
	const GrantRow *r;
	GrantRow rows[4];
	DBusMessage *reply;
	size_t n;

	/* a user's own */
	reply = call(USER, "ListGrants");
	n = grant_rows(reply, rows, 4);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(rows[0].pid, (uint64_t)mine);
	ck_assert_uint_eq(rows[0].tid, (uint64_t)mine);
	ck_assert_uint_eq(rows[0].uid, user_uid);
	ck_assert_str_eq(rows[0].user, "nobody");
	ck_assert_str_eq(rows[0].comm, "synth");
	ck_assert_str_eq(rows[0].kind, "nice");
	ck_assert_int_eq(rows[0].value, 5);
	ck_assert_uint_eq(rows[0].since, 1234567);
	dbus_message_unref(reply);

	/* root's: every grant, an unknown uid named by number, a comm that is
	 * not UTF-8 escaped */
	reply = call(ROOT, "ListGrants");
	n = grant_rows(reply, rows, 4);
	ck_assert_uint_eq(n, 3);
	r = row_of(rows, n, roots);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->user, "root");
	ck_assert_str_eq(r->comm, "bad\\xff\\xfe-comm");
	r = row_of(rows, n, nobodys);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->user, "#3999999");
	dbus_message_unref(reply);

	/* a thread gone from /proc is not listed */
	fixture_task(mine, mine, user_uid, user_uid, user_uid, 6001);
	reply = call(USER, "ListGrants");
	ck_assert_uint_eq(grant_rows(reply, rows, 4), 0);
	dbus_message_unref(reply);
}
END_TEST

START_TEST(test_list_all_grants_who)
{
	GrantRow rows[4];
	DBusMessage *m, *reply;

	granted_process(user_uid, 5001, "synth", 1);
	granted_process(0, 5002, "rootd", 2);
	reply = call(ROOT, "ListAllGrants");
	ck_assert_uint_eq(grant_rows(reply, rows, 4), 2);
	dbus_message_unref(reply);
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);

	bus_fixture_expect_error(via_polkit(call_new(USER, "ListAllGrants"), false),
				 NATIVE_ERROR "PermissionDenied",
				 "Listing every user's grants " MANAGE_DENIED);
	/* the "no" is kept a moment for this connection; another asks again */
	bus_fixture_expect_error(call(USER, "ListAllGrants"), NATIVE_ERROR "PermissionDenied",
				 MANAGE_DENIED);
	ck_assert_int_eq(creds_cache_put(d.creds, ":1.3", user_uid, getpid()), 0);
	m = call_new(":1.3", "ListAllGrants");
	bus_fixture_dispatch(&d, &bus_native_object, m);
	dbus_message_unref(m);
	bus_fixture_pump(&d, 20);
	ck_assert_uint_eq(bus_fixture_n_checks(), 1);
	bus_fixture_drop_checks();
}
END_TEST

START_TEST(test_list_all_grants_polkit_yes)
{
	GrantRow rows[4];
	DBusMessage *reply;

	granted_process(user_uid, 5001, "synth", 1);
	granted_process(0, 5002, "rootd", 2);
	reply = via_polkit(call_new(USER, "ListAllGrants"), true);
	ck_assert_uint_eq(grant_rows(reply, rows, 4), 2);
	dbus_message_unref(reply);
}
END_TEST

/* That Explain's answer has key -> (value, where); where NULL: any. */
static void explain_key(DBusMessage *reply, const char *key, const char *value, const char *where)
{
	DBusMessageIter it, arr, e, st;
	unsigned n = 0;
	bool found = false;

	bus_fixture_expect_return(reply, "a{s(ss)}");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &arr);
	for (; dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY;
	     dbus_message_iter_next(&arr)) {
		const char *k, *v, *w;

		n++;
		dbus_message_iter_recurse(&arr, &e);
		dbus_message_iter_get_basic(&e, &k);
		dbus_message_iter_next(&e);
		dbus_message_iter_recurse(&e, &st);
		dbus_message_iter_get_basic(&st, &v);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &w);
		if (!streq(k, key))
			continue;
		found = true;
		ck_assert_str_eq(v, value);
		if (where)
			ck_assert_str_eq(w, where);
	}
	ck_assert_msg(found, "Explain lacks %s", key);
	/* every key, set or not */
	ck_assert_uint_eq(n, _POLICY_KEY_MAX);
}

static DBusMessage *explain(const char *sender, uint32_t uid)
{
	return bus_fixture_call(&d, &bus_native_object, sender, "Explain", DBUS_TYPE_UINT32, &uid,
				DBUS_TYPE_INVALID);
}

START_TEST(test_explain)
{
	char where[300];
	DBusMessage *reply;
	uint32_t root = 0;

	/* one's own: no polkit */
	snprintf(where, sizeof(where), "%s:2", fixture_conf);
	reply = explain(USER, user_uid);
	explain_key(reply, "Nice", "10", where);
	explain_key(reply, "RealtimePriority", "", "");
	dbus_message_unref(reply);
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);

	/* root's, by root */
	snprintf(where, sizeof(where), "%s:5", fixture_conf);
	reply = explain(ROOT, 0);
	explain_key(reply, "RealtimePriority", "50", where);
	dbus_message_unref(reply);

	/* another user's: manage */
	bus_fixture_expect_error(
		via_polkit(bus_fixture_call_new(USER, NATIVE_PATH, NATIVE_IFACE, "Explain",
						DBUS_TYPE_UINT32, &root, DBUS_TYPE_INVALID),
			   false),
		NATIVE_ERROR "PermissionDenied", "Explaining another user's policy " MANAGE_DENIED);

	/* no such user */
	bus_fixture_expect_error(explain(ROOT, NO_USER), NATIVE_ERROR "InvalidArgs",
				 "Could not evaluate the policy for uid 3999999: no such user");
}
END_TEST

START_TEST(test_explain_other_with_polkit)
{
	uint32_t root = 0;
	DBusMessage *reply;
	char where[300];

	snprintf(where, sizeof(where), "%s:5", fixture_conf);
	reply = via_polkit(bus_fixture_call_new(USER, NATIVE_PATH, NATIVE_IFACE, "Explain",
						DBUS_TYPE_UINT32, &root, DBUS_TYPE_INVALID),
			   true);
	explain_key(reply, "RealtimePriority", "50", where);
	dbus_message_unref(reply);
}
END_TEST

START_TEST(test_list_irq_threads)
{
	DBusMessageIter it, arr, st;
	static const struct {
		uint32_t irq;
		const char *action;
		uint64_t pid;
		const char *policy;
		int32_t value;
	} want[] = {
		{ 16, "ehci_hcd", 90002, "other", -5 },
		{ 30, "snd_hda_intel", 90001, "fifo", 50 },
		{ 31, "bad\\xff\\xfe", 90003, "rr", 60 },
	};
	DBusMessage *reply;
	size_t n = 0;

	fixture_irq_thread(90001, "irq/30-snd_hda_in", SCHED_FIFO, 50, 0);
	fixture_irq_action(30, "snd_hda_intel");
	fixture_irq_thread(90002, "irq/16-ehci_hcd", SCHED_OTHER, 0, -5);
	fixture_irq_thread(90003, "irq/31-bad\xff\xfe", SCHED_RR, 60, 0);
	/* a process that calls itself so is no kernel thread */
	fixture_task(90004, 0, 0, 0, 0, 1);

	reply = bus_fixture_expect_return(call(USER, "ListIrqThreads"), "a(ustsi)");
	ck_assert(dbus_message_iter_init(reply, &it));
	dbus_message_iter_recurse(&it, &arr);
	for (; dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT;
	     dbus_message_iter_next(&arr), n++) {
		uint32_t irq;
		const char *action, *policy;
		uint64_t pid;
		int32_t value;

		ck_assert_uint_lt(n, ELEMENTSOF(want));
		dbus_message_iter_recurse(&arr, &st);
		dbus_message_iter_get_basic(&st, &irq);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &action);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &pid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &policy);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &value);
		ck_assert_uint_eq(irq, want[n].irq);
		ck_assert_str_eq(action, want[n].action);
		ck_assert_uint_eq(pid, want[n].pid);
		ck_assert_str_eq(policy, want[n].policy);
		ck_assert_int_eq(value, want[n].value);
	}
	ck_assert_uint_eq(n, ELEMENTSOF(want));
	dbus_message_unref(reply);

	d.args.proc = "/nonexistent/proc";
	bus_fixture_expect_error(call(USER, "ListIrqThreads"), NATIVE_ERROR "Failed",
				 "Could not list IRQ threads: No such file or directory");
	d.args.proc = fixture_proc;
}
END_TEST

START_TEST(test_reload)
{
	char where[300];
	DBusMessage *reply;

	fixture_write(fixture_conf, "[Default]\nNice=5\n");
	bus_fixture_expect_ok(call(ROOT, "Reload"), "");
	snprintf(where, sizeof(where), "%s:2", fixture_conf);
	reply = explain(ROOT, 0);
	explain_key(reply, "Nice", "5", where);
	dbus_message_unref(reply);

	/* a broken file: Failed, with where and why; the policy stays */
	fixture_write(fixture_conf, "[Default]\nNice=-5\nnonsense\n");
	snprintf(where, sizeof(where), "%s:3: ", fixture_conf);
	bus_fixture_expect_error(call(ROOT, "Reload"), NATIVE_ERROR "Failed", where);
	reply = explain(ROOT, 0);
	explain_key(reply, "Nice", "5", NULL);
	dbus_message_unref(reply);
}
END_TEST

START_TEST(test_reload_needs_manage)
{
	DBusMessage *reply;

	fixture_write(fixture_conf, "[Default]\nNice=5\n");
	bus_fixture_expect_error(via_polkit(call_new(USER, "Reload"), false),
				 NATIVE_ERROR "PermissionDenied",
				 "Reloading the policy " MANAGE_DENIED);
	/* not reloaded */
	reply = explain(ROOT, 0);
	explain_key(reply, "Nice", "10", NULL);
	dbus_message_unref(reply);
}
END_TEST

START_TEST(test_reload_with_polkit)
{
	fixture_write(fixture_conf, "[Default]\nNice=5\n");
	bus_fixture_expect_ok(via_polkit(call_new(USER, "Reload"), true), "");
}
END_TEST

/* Arguments of the wrong signature, for every kind of method. */
START_TEST(test_wrong_signatures)
{
	static const char *const no_args[] = { "ListGrants",	  "ListAllGrants",
					       "ListIrqThreads",  "ListRefusals",
					       "ListAllRefusals", "Reload",
					       "SubscribeDemoted" };
	const char *s = "nobody";
	uint64_t t = 1;
	uint32_t u = 1;
	int32_t i = -5;

	for (size_t k = 0; k < ELEMENTSOF(no_args); k++)
		bus_fixture_expect_error(bus_fixture_call(&d, &bus_native_object, USER, no_args[k],
							  DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID),
					 DBUS_ERROR_INVALID_ARGS,
					 "Expected arguments of signature '', got 'u'");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_native_object, USER, "Explain",
						  DBUS_TYPE_STRING, &s, DBUS_TYPE_INVALID),
				 DBUS_ERROR_INVALID_ARGS,
				 "Expected arguments of signature 'u', got 's'");
	bus_fixture_expect_error(
		bus_fixture_call(&d, &bus_native_object, USER, "MakeThreadRealtime",
				 DBUS_TYPE_UINT64, &t, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &s,
				 DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID),
		DBUS_ERROR_INVALID_ARGS, "Expected arguments of signature 'ttsu', got 'ttsi'");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_native_object, USER,
						  "MakeThreadHighPriority", DBUS_TYPE_UINT64, &t,
						  DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID),
				 DBUS_ERROR_INVALID_ARGS, "signature 'tti', got 'ti'");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_native_object, USER, "ResetThread",
						  DBUS_TYPE_UINT64, &t, DBUS_TYPE_INVALID),
				 DBUS_ERROR_INVALID_ARGS, "signature 'tt', got 't'");
	bus_fixture_expect_error(bus_fixture_call(&d, &bus_native_object, USER, "GrantLimits",
						  DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID),
				 DBUS_ERROR_INVALID_ARGS, "signature 't', got 'u'");
	/* nothing was asked of polkit for any of them */
	ck_assert_uint_eq(bus_fixture_n_checks(), 0);
}
END_TEST

START_TEST(test_unknown_policy)
{
	const char *idle = "idle";
	uint64_t t = 0;
	uint32_t prio = 10;

	bus_fixture_expect_error(
		bus_fixture_call(&d, &bus_native_object, USER, "MakeThreadRealtime",
				 DBUS_TYPE_UINT64, &t, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING,
				 &idle, DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID),
		NATIVE_ERROR "InvalidArgs", "Unknown policy 'idle', expected fifo or rr");
}
END_TEST

START_TEST(test_unknown_method_and_introspect)
{
	DBusMessage *m, *reply;
	const char *xml;

	bus_fixture_expect_error(call(USER, "MakeEverythingRealtime"), DBUS_ERROR_UNKNOWN_METHOD,
				 "Unknown method MakeEverythingRealtime");
	m = bus_fixture_call_new(USER, NATIVE_PATH, DBUS_INTERFACE_INTROSPECTABLE, "Introspect",
				 DBUS_TYPE_INVALID);
	bus_fixture_dispatch(&d, &bus_native_object, m);
	reply = bus_fixture_expect_return(bus_fixture_reply(&d, m, 1000), "s");
	dbus_message_unref(m);
	ck_assert(dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &xml, DBUS_TYPE_INVALID));
	ck_assert_ptr_nonnull(strstr(xml, "<interface name=\"" NATIVE_IFACE "\">"));
	dbus_message_unref(reply);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-native");
	TCase *tc;

	tc = check_add_case(s, "grants",
			    CHECK_TESTS(test_list_grants, test_list_all_grants_who,
					test_list_all_grants_polkit_yes));
	tcase_add_checked_fixture(tc, setup, teardown);
	tc = check_add_case(s, "explain",
			    CHECK_TESTS(test_explain, test_explain_other_with_polkit));
	tcase_add_checked_fixture(tc, setup, teardown);
	tc = check_add_case(s, "irq", CHECK_TESTS(test_list_irq_threads));
	tcase_add_checked_fixture(tc, setup, teardown);
	tc = check_add_case(
		s, "reload",
		CHECK_TESTS(test_reload, test_reload_needs_manage, test_reload_with_polkit));
	tcase_add_checked_fixture(tc, reload_setup, teardown);
	tc = check_add_case(s, "calls",
			    CHECK_TESTS(test_wrong_signatures, test_unknown_policy,
					test_unknown_method_and_introspect));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
