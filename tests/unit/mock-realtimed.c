/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in for realtimed on a private bus, for test-ctl-cli and
 * test-librealtime-bus: it owns org.realtimed.Realtime1 and serves, from
 * one table, the methods and properties of the contract
 * (daemon/org.realtimed.Realtime1.xml) that its clients use, with canned
 * data; test-mock-realtimed.sh holds the table to the XML (--list prints
 * it), and a call whose arguments or reply differ from the table's
 * signatures is refused or aborts the mock. It logs each call it gets
 * (with the caller's pid from the bus) to the file given as argv[1], and
 * answers certain pids with each of realtimed's errors, so the client
 * side (requests formed, replies parsed, errors mapped to exit statuses)
 * is tested without root and without the real daemon. For GrantLimits it
 * lowers the caller's RLIMIT_RTTIME to 123456 us, which needs no
 * privilege and lets the test see the limit in the exec'd command. With
 * MOCK_REALTIMED_PROPERTIES=no in its environment it serves no properties,
 * as an older realtimed.
 *
 *   mock-realtimed LOGFILE | --list
 */
#include <dbus/dbus.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "bus-names.h"
#include "macro.h"

/* pids that answer with an error, to check exit statuses */
#define PID_NO_SUCH 999999
#define PID_REFUSING 999998
#define PID_FAILED 999997
#define PID_PERMISSION 999996

static FILE *log_file;

typedef struct Grant {
	uint64_t pid, tid;
	char kind[8];
	int32_t priority;
} Grant;

static Grant grants[16];
static size_t n_grants;

static uint32_t caller_pid(DBusConnection *c, DBusMessage *m)
{
	DBusError e;
	unsigned long pid;

	dbus_error_init(&e);
	/* libdbus has no direct call; ask the bus for the sender's pid. */
	DBusMessage *q =
		dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus",
					     "org.freedesktop.DBus", "GetConnectionUnixProcessID");
	const char *sender = dbus_message_get_sender(m);
	DBusMessage *r;
	uint32_t v = 0;

	dbus_message_append_args(q, DBUS_TYPE_STRING, &sender, DBUS_TYPE_INVALID);
	r = dbus_connection_send_with_reply_and_block(c, q, -1, &e);
	dbus_message_unref(q);
	if (!r) {
		dbus_error_free(&e);
		return 0;
	}
	dbus_message_get_args(r, NULL, DBUS_TYPE_UINT32, &v, DBUS_TYPE_INVALID);
	dbus_message_unref(r);
	pid = v;
	return (uint32_t)pid;
}

/* Appends to the array arr one struct of the values that follow (type
 * and pointer pairs, as dbus_message_append_args() takes them, ending in
 * DBUS_TYPE_INVALID). */
static void append_struct(DBusMessageIter *arr, int type, ...)
{
	DBusMessageIter st;
	va_list ap;

	dbus_message_iter_open_container(arr, DBUS_TYPE_STRUCT, NULL, &st);
	va_start(ap, type);
	for (; type != DBUS_TYPE_INVALID; type = va_arg(ap, int))
		dbus_message_iter_append_basic(&st, type, va_arg(ap, const void *));
	va_end(ap);
	dbus_message_iter_close_container(arr, &st);
}

static DBusMessage *error_for_pid(DBusMessage *m, uint64_t pid)
{
	switch (pid) {
	case PID_NO_SUCH:
		return dbus_message_new_error(m, NATIVE_ERROR "NoSuchProcess",
					      "process 999999 does not exist");
	case PID_REFUSING:
		return dbus_message_new_error(
			m, NATIVE_ERROR "Refusing",
			"the canary demoted threads 10s ago; refusing for 50s");
	case PID_FAILED:
		return dbus_message_new_error(m, NATIVE_ERROR "Failed",
					      "sched_setattr() failed: Operation not permitted");
	case PID_PERMISSION:
		return dbus_message_new_error(m, NATIVE_ERROR "PermissionDenied",
					      "process 999996 belongs to another user");
	}
	return NULL;
}

static void add_grant(uint64_t pid, uint64_t tid, const char *kind, int32_t priority)
{
	if (n_grants < sizeof(grants) / sizeof(grants[0])) {
		grants[n_grants] = (Grant){ .pid = pid, .tid = tid, .priority = priority };
		snprintf(grants[n_grants].kind, sizeof(grants[n_grants].kind), "%s", kind);
		n_grants++;
	}
}

/* Each method's handler: the caller's pid from the bus, the reply or
 * error (arguments already of the table's signature). */
typedef DBusMessage *(*MockHandler)(DBusMessage *m, const char *member, uint32_t caller);

static DBusMessage *make_thread_realtime(DBusMessage *m, const char *member, uint32_t caller)
{
	dbus_uint64_t pid = 0, tid = 0;
	dbus_uint32_t u = 0;
	const char *s = "";
	DBusMessage *reply;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
			      DBUS_TYPE_STRING, &s, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
	fprintf(log_file, "MakeThreadRealtime caller=%u %" PRIu64 " %" PRIu64 " %s %u\n", caller,
		(uint64_t)pid, (uint64_t)tid, s, u);
	if ((reply = error_for_pid(m, pid)))
		return reply;
	if (u > 90)
		return dbus_message_new_error_printf(
			m, NATIVE_ERROR "PolicyDenied",
			"priority %u exceeds the limit 90 for user mock "
			"(/etc/realtime/realtime.conf:14)",
			u);
	add_grant(pid ? pid : caller, tid ? tid : pid ? pid : caller, s, (int32_t)u);
	return dbus_message_new_method_return(m);
}

static DBusMessage *make_thread_high_priority(DBusMessage *m, const char *member, uint32_t caller)
{
	dbus_uint64_t pid = 0, tid = 0;
	dbus_int32_t i = 0;
	DBusMessage *reply;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
			      DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID);
	fprintf(log_file, "MakeThreadHighPriority caller=%u %" PRIu64 " %" PRIu64 " %d\n", caller,
		(uint64_t)pid, (uint64_t)tid, i);
	if ((reply = error_for_pid(m, pid)))
		return reply;
	add_grant(pid ? pid : caller, tid ? tid : pid ? pid : caller, "nice", i);
	return dbus_message_new_method_return(m);
}

/* ResetThread and ResetProcess */
static DBusMessage *reset(DBusMessage *m, const char *member, uint32_t caller)
{
	bool thread = strcmp(member, "ResetThread") == 0;
	dbus_uint64_t pid = 0, tid = 0;
	DBusMessage *reply;

	if (thread)
		dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
				      DBUS_TYPE_INVALID);
	else
		dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	fprintf(log_file, "%s caller=%u %" PRIu64 " %" PRIu64 "\n", member, caller, (uint64_t)pid,
		(uint64_t)tid);
	if ((reply = error_for_pid(m, pid)))
		return reply;
	for (size_t k = 0; k < n_grants;)
		if (grants[k].pid == pid && (!thread || grants[k].tid == tid))
			grants[k] = grants[--n_grants];
		else
			k++;
	return dbus_message_new_method_return(m);
}

static DBusMessage *grant_limits(DBusMessage *m, const char *member, uint32_t caller)
{
	struct rlimit rl = { 123456, 123456 };
	const char *key = "RLIMIT_RTTIME";
	dbus_uint64_t pid = 0, v = 123456;
	DBusMessageIter it, arr, entry;
	DBusMessage *reply;
	int target;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	fprintf(log_file, "GrantLimits caller=%u %" PRIu64 "\n", caller, (uint64_t)pid);
	if ((reply = error_for_pid(m, pid)))
		return reply;
	target = pid ? (int)pid : (int)caller;
	if (prlimit(target, RLIMIT_RTTIME, &rl, NULL) < 0)
		return dbus_message_new_error_printf(m, NATIVE_ERROR "Failed",
						     "prlimit(%d) failed: %m", target);
	reply = dbus_message_new_method_return(m);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{st}", &arr);
	dbus_message_iter_open_container(&arr, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
	dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &key);
	dbus_message_iter_append_basic(&entry, DBUS_TYPE_UINT64, &v);
	dbus_message_iter_close_container(&arr, &entry);
	dbus_message_iter_close_container(&it, &arr);
	return reply;
}

static DBusMessage *explain(DBusMessage *m, const char *member, uint32_t caller)
{
	/* Out of order, a key set to "", an unset key, and a key this client
	 * does not know. */
	static const char *const rows[][3] = {
		{ "Nice", "-19", "/usr/share/realtime/realtime.conf:54" },
		{ "FutureKey", "42", "/etc/realtime/realtime.conf:3" },
		{ "Capabilities", "", "/usr/share/realtime/realtime.conf:59" },
		{ "CompatPolicy", "", "" },
		{ "RealtimePriority", "95", "/etc/realtime/realtime.conf:14" },
	};
	DBusMessageIter it, arr, entry, pair;
	dbus_uint32_t u = 0;
	DBusMessage *reply;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
	fprintf(log_file, "Explain caller=%u %u\n", caller, u);
	reply = dbus_message_new_method_return(m);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{s(ss)}", &arr);
	for (size_t k = 0; k < ELEMENTSOF(rows); k++) {
		dbus_message_iter_open_container(&arr, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &rows[k][0]);
		dbus_message_iter_open_container(&entry, DBUS_TYPE_STRUCT, NULL, &pair);
		dbus_message_iter_append_basic(&pair, DBUS_TYPE_STRING, &rows[k][1]);
		dbus_message_iter_append_basic(&pair, DBUS_TYPE_STRING, &rows[k][2]);
		dbus_message_iter_close_container(&entry, &pair);
		dbus_message_iter_close_container(&arr, &entry);
	}
	dbus_message_iter_close_container(&it, &arr);
	return reply;
}

/* ListGrants and ListAllGrants */
static DBusMessage *list_grants(DBusMessage *m, const char *member, uint32_t caller)
{
	DBusMessageIter it, arr;
	DBusMessage *reply;

	if (strcmp(member, "ListGrants") == 0)
		fprintf(log_file, "ListGrants caller=%u\n", caller);
	else
		fprintf(log_file, "ListAllGrants caller=%u interactive=%d\n", caller,
			dbus_message_get_allow_interactive_authorization(m) ? 1 : 0);
	reply = dbus_message_new_method_return(m);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(ttusssit)", &arr);
	for (size_t k = 0; k < n_grants; k++) {
		dbus_uint32_t uid = 4101;
		const char *user = "rtaudio", *comm = "jackd \"rt\"", *kind = grants[k].kind;
		dbus_int32_t prio = grants[k].priority;
		dbus_uint64_t since = UINT64_C(1764716400000000); /* 2025-12-02 23:00:00 UTC */

		append_struct(&arr, DBUS_TYPE_UINT64, &grants[k].pid, DBUS_TYPE_UINT64,
			      &grants[k].tid, DBUS_TYPE_UINT32, &uid, DBUS_TYPE_STRING, &user,
			      DBUS_TYPE_STRING, &comm, DBUS_TYPE_STRING, &kind, DBUS_TYPE_INT32,
			      &prio, DBUS_TYPE_UINT64, &since, DBUS_TYPE_INVALID);
	}
	dbus_message_iter_close_container(&it, &arr);
	return reply;
}

static DBusMessage *list_irq_threads(DBusMessage *m, const char *member, uint32_t caller)
{
	dbus_uint32_t irq = 16;
	const char *action = "snd_hda_intel:card0", *policy = "fifo";
	dbus_uint64_t tpid = 300;
	dbus_int32_t prio = 90;
	DBusMessageIter it, arr;
	DBusMessage *reply;

	fprintf(log_file, "ListIrqThreads caller=%u\n", caller);
	reply = dbus_message_new_method_return(m);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(ustsi)", &arr);
	append_struct(&arr, DBUS_TYPE_UINT32, &irq, DBUS_TYPE_STRING, &action, DBUS_TYPE_UINT64,
		      &tpid, DBUS_TYPE_STRING, &policy, DBUS_TYPE_INT32, &prio, DBUS_TYPE_INVALID);
	dbus_message_iter_close_container(&it, &arr);
	return reply;
}

/* ListRefusals and ListAllRefusals: one refusal, three times folded */
static DBusMessage *list_refusals(DBusMessage *m, const char *member, uint32_t caller)
{
	dbus_uint64_t when = UINT64_C(1764716400000000), pid = 4240, tid = 4242;
	dbus_uint32_t uid = 4101, count = 3;
	const char *comm = "pipewire", *asked = "FIFO 95", *error = "PolicyDenied",
		   *reason = "priority 95 exceeds the limit 90 for user mock "
			     "(/etc/realtime/realtime.conf:14)",
		   *source = "/etc/realtime/realtime.conf:14";
	DBusMessageIter it, arr;
	DBusMessage *reply;

	fprintf(log_file, "%s caller=%u\n", member, caller);
	reply = dbus_message_new_method_return(m);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(tuttsssssu)", &arr);
	append_struct(&arr, DBUS_TYPE_UINT64, &when, DBUS_TYPE_UINT32, &uid, DBUS_TYPE_UINT64, &pid,
		      DBUS_TYPE_UINT64, &tid, DBUS_TYPE_STRING, &comm, DBUS_TYPE_STRING, &asked,
		      DBUS_TYPE_STRING, &error, DBUS_TYPE_STRING, &reason, DBUS_TYPE_STRING,
		      &source, DBUS_TYPE_UINT32, &count, DBUS_TYPE_INVALID);
	dbus_message_iter_close_container(&it, &arr);
	return reply;
}

static DBusMessage *reload(DBusMessage *m, const char *member, uint32_t caller)
{
	fprintf(log_file, "Reload caller=%u interactive=%d\n", caller,
		dbus_message_get_allow_interactive_authorization(m) ? 1 : 0);
	return dbus_message_new_method_return(m);
}

/* The properties, each appended as its variant's value. */
static void append_int(DBusMessageIter *v, const char *type, int32_t i)
{
	DBusMessageIter var;

	dbus_message_iter_open_container(v, DBUS_TYPE_VARIANT, type, &var);
	dbus_message_iter_append_basic(&var, DBUS_TYPE_INT32, &i);
	dbus_message_iter_close_container(v, &var);
}

static void max_realtime_priority(DBusMessageIter *v)
{
	append_int(v, "i", 90);
}

static void min_nice_level(DBusMessageIter *v)
{
	append_int(v, "i", -19);
}

static void rttime_usec_max(DBusMessageIter *v)
{
	dbus_int64_t x = 200000;
	DBusMessageIter var;

	dbus_message_iter_open_container(v, DBUS_TYPE_VARIANT, "x", &var);
	dbus_message_iter_append_basic(&var, DBUS_TYPE_INT64, &x);
	dbus_message_iter_close_container(v, &var);
}

static void version(DBusMessageIter *v)
{
	const char *s = "0.1.0-mock";
	DBusMessageIter var;

	dbus_message_iter_open_container(v, DBUS_TYPE_VARIANT, "s", &var);
	dbus_message_iter_append_basic(&var, DBUS_TYPE_STRING, &s);
	dbus_message_iter_close_container(v, &var);
}

static void cpu_dma_latency(DBusMessageIter *v)
{
	const char *state = "held", *error = "";
	dbus_int64_t usec = 20;
	dbus_uint32_t n = 1;
	DBusMessageIter var, st;

	dbus_message_iter_open_container(v, DBUS_TYPE_VARIANT, "(sxus)", &var);
	dbus_message_iter_open_container(&var, DBUS_TYPE_STRUCT, NULL, &st);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &state);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_INT64, &usec);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &n);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &error);
	dbus_message_iter_close_container(&var, &st);
	dbus_message_iter_close_container(v, &var);
}

static void shield(DBusMessageIter *v)
{
	const char *state = "held", *cpus = "1", *irqbalance = "", *problem = "";
	const char *name = "nvme0q1", *why = "not moved: the kernel refuses to move it";
	dbus_uint32_t held_for = 1, moved = 3, irq = 24;
	DBusMessageIter var, st, arr, l;

	dbus_message_iter_open_container(v, DBUS_TYPE_VARIANT, "(ssuua(uss)ss)", &var);
	dbus_message_iter_open_container(&var, DBUS_TYPE_STRUCT, NULL, &st);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &state);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &cpus);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &held_for);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &moved);
	dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "(uss)", &arr);
	dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &l);
	dbus_message_iter_append_basic(&l, DBUS_TYPE_UINT32, &irq);
	dbus_message_iter_append_basic(&l, DBUS_TYPE_STRING, &name);
	dbus_message_iter_append_basic(&l, DBUS_TYPE_STRING, &why);
	dbus_message_iter_close_container(&arr, &l);
	dbus_message_iter_close_container(&st, &arr);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &irqbalance);
	dbus_message_iter_append_basic(&st, DBUS_TYPE_STRING, &problem);
	dbus_message_iter_close_container(&var, &st);
	dbus_message_iter_close_container(v, &var);
}

typedef struct MockProperty {
	const char *name, *type;
	void (*append)(DBusMessageIter *v);
} MockProperty;

static const MockProperty properties[] = {
	{ "MaxRealtimePriority", "i", max_realtime_priority },
	{ "MinNiceLevel", "i", min_nice_level },
	{ "RTTimeUSecMax", "x", rttime_usec_max },
	{ "Version", "s", version },
	{ "CpuDmaLatency", "(sxus)", cpu_dma_latency },
	{ "Shield", "(ssuua(uss)ss)", shield },
};

static DBusMessage *properties_get(DBusMessage *m, const char *member, uint32_t caller)
{
	const char *iface = "", *name = "";
	DBusMessageIter it;
	DBusMessage *reply;

	dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &name,
			      DBUS_TYPE_INVALID);
	fprintf(log_file, "Get caller=%u %s %s\n", caller, iface, name);
	for (size_t k = 0; k < ELEMENTSOF(properties) && strcmp(iface, NATIVE_IFACE) == 0; k++)
		if (strcmp(properties[k].name, name) == 0) {
			reply = dbus_message_new_method_return(m);
			dbus_message_iter_init_append(reply, &it);
			properties[k].append(&it);
			return reply;
		}
	return dbus_message_new_error_printf(m, DBUS_ERROR_UNKNOWN_PROPERTY, "no property %s.%s",
					     iface, name);
}

static DBusMessage *properties_get_all(DBusMessage *m, const char *member, uint32_t caller)
{
	const char *iface = "";
	DBusMessageIter it, arr, entry;
	DBusMessage *reply;

	dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &iface, DBUS_TYPE_INVALID);
	fprintf(log_file, "GetAll caller=%u %s\n", caller, iface);
	reply = dbus_message_new_method_return(m);
	dbus_message_iter_init_append(reply, &it);
	dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &arr);
	for (size_t k = 0; k < ELEMENTSOF(properties) && strcmp(iface, NATIVE_IFACE) == 0; k++) {
		dbus_message_iter_open_container(&arr, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
		dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &properties[k].name);
		properties[k].append(&entry);
		dbus_message_iter_close_container(&arr, &entry);
	}
	dbus_message_iter_close_container(&it, &arr);
	return reply;
}

static DBusMessage *properties_set(DBusMessage *m, const char *member, uint32_t caller)
{
	return dbus_message_new_error(m, DBUS_ERROR_PROPERTY_READ_ONLY,
				      "every property is read-only");
}

/* What the mock serves: realtimed's contract, as test-mock-realtimed.sh
 * holds it to the introspection XML (--list prints it). */
typedef struct MockMethod {
	const char *iface, *name, *in, *out;
	MockHandler run;
} MockMethod;

static const MockMethod methods[] = {
	{ NATIVE_IFACE, "MakeThreadRealtime", "ttsu", "", make_thread_realtime },
	{ NATIVE_IFACE, "MakeThreadHighPriority", "tti", "", make_thread_high_priority },
	{ NATIVE_IFACE, "ResetThread", "tt", "", reset },
	{ NATIVE_IFACE, "ResetProcess", "t", "", reset },
	{ NATIVE_IFACE, "GrantLimits", "t", "a{st}", grant_limits },
	{ NATIVE_IFACE, "Explain", "u", "a{s(ss)}", explain },
	{ NATIVE_IFACE, "ListGrants", "", "a(ttusssit)", list_grants },
	{ NATIVE_IFACE, "ListAllGrants", "", "a(ttusssit)", list_grants },
	{ NATIVE_IFACE, "ListIrqThreads", "", "a(ustsi)", list_irq_threads },
	{ NATIVE_IFACE, "ListRefusals", "", "a(tuttsssssu)", list_refusals },
	{ NATIVE_IFACE, "ListAllRefusals", "", "a(tuttsssssu)", list_refusals },
	{ NATIVE_IFACE, "Reload", "", "", reload },
	{ DBUS_INTERFACE_PROPERTIES, "Get", "ss", "v", properties_get },
	{ DBUS_INTERFACE_PROPERTIES, "GetAll", "s", "a{sv}", properties_get_all },
	{ DBUS_INTERFACE_PROPERTIES, "Set", "ssv", "", properties_set },
};

static void list(void)
{
	for (size_t k = 0; k < ELEMENTSOF(methods); k++)
		printf("method %s %s (%s) (%s)\n", methods[k].iface, methods[k].name, methods[k].in,
		       methods[k].out);
	for (size_t k = 0; k < ELEMENTSOF(properties); k++)
		printf("property %s %s (%s)\n", NATIVE_IFACE, properties[k].name,
		       properties[k].type);
}

static DBusMessage *handle(DBusConnection *c, DBusMessage *m)
{
	const char *member = dbus_message_get_member(m);
	DBusMessage *reply;

	for (size_t k = 0; k < ELEMENTSOF(methods); k++) {
		if (!dbus_message_has_interface(m, methods[k].iface) ||
		    strcmp(member, methods[k].name) != 0)
			continue;
		if (!dbus_message_has_signature(m, methods[k].in))
			return dbus_message_new_error(m, DBUS_ERROR_INVALID_ARGS, "bad arguments");
		reply = methods[k].run(m, member, caller_pid(c, m));
		/* a reply of another signature than the table's is the mock's bug */
		if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_METHOD_RETURN &&
		    !dbus_message_has_signature(reply, methods[k].out)) {
			fprintf(stderr, "mock-realtimed: %s answered (%s), its table says (%s)\n",
				member, dbus_message_get_signature(reply), methods[k].out);
			abort();
		}
		return reply;
	}
	return dbus_message_new_error(m, DBUS_ERROR_UNKNOWN_METHOD, member);
}

static DBusHandlerResult on_message(DBusConnection *c, DBusMessage *m, void *userdata)
{
	DBusMessage *reply;

	/* MOCK_REALTIMED_PROPERTIES=no: an older realtimed, without them */
	bool serve_properties = !getenv("MOCK_REALTIMED_PROPERTIES") ||
				strcmp(getenv("MOCK_REALTIMED_PROPERTIES"), "no") != 0;

	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL ||
	    (!dbus_message_has_interface(m, NATIVE_IFACE) &&
	     !(serve_properties && dbus_message_has_interface(m, DBUS_INTERFACE_PROPERTIES))))
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
	reply = handle(c, m);
	fflush(log_file);
	if (reply) {
		dbus_connection_send(c, reply, NULL);
		dbus_message_unref(reply);
	}
	return DBUS_HANDLER_RESULT_HANDLED;
}

int main(int argc, char **argv)
{
	static const DBusObjectPathVTable vtable = { .message_function = on_message };
	DBusConnection *c;
	DBusError e;

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list();
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s LOGFILE | --list\n", argv[0]);
		return 2;
	}
	log_file = fopen(argv[1], "ae");
	if (!log_file) {
		perror(argv[1]);
		return 1;
	}
	dbus_error_init(&e);
	c = dbus_bus_get(DBUS_BUS_SYSTEM, &e);
	if (!c) {
		fprintf(stderr, "mock-realtimed: cannot connect to the bus: %s\n", e.message);
		return 1;
	}
	if (!dbus_connection_register_object_path(c, NATIVE_PATH, &vtable, NULL) ||
	    dbus_bus_request_name(c, NATIVE_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &e) !=
		    DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) {
		fprintf(stderr, "mock-realtimed: cannot own %s: %s\n", NATIVE_NAME,
			e.message ? e.message : "taken");
		return 1;
	}
	/* Runs until the bus goes away (libdbus exits on disconnect) or SIGTERM. */
	while (dbus_connection_read_write_dispatch(c, -1))
		;
	return 0;
}
