// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The native object's method table. Grants and resets go through request.c.
 * A caller sees its own grants, refusals and policy; every user's (other
 * users' pids and commands, defeating hidepid) takes org.realtimed.manage.
 */
#include <limits.h>
#include <sched.h>
#include <string.h>

#include "bus-dispatch.h"
#include "bus-native-demoted.h"
#include "bus-native-refusals.h"
#include "bus-native.h"
#include "bus.h"
#include "daemon-policy.h"
#include "log.h"
#include "manager.h"
#include "pidfd.h"
#include "proc.h"
#include "procfs-irq.h"
#include "procfs-stat.h"
#include "request.h"
#include "user-wait.h"
#include "utf8.h"

extern const char realtimed_introspection_xml[];

static void method_make_realtime(Daemon *d, DBusMessage *m, const BusObject *o)
{
	uint64_t pid, tid;
	const char *policy;
	uint32_t prio;
	PolicyGrantKind k;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
			      DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
			      DBUS_TYPE_INVALID);
	k = policy_grant_kind_from_string(policy);
	if (k != POLICY_GRANT_FIFO && k != POLICY_GRANT_RR) {
		bus_reply_error(d->bus, m, bus_error_name(REQUEST_E_INVALID_ARGS, FLAVOUR_NATIVE),
				"Unknown policy '%s', expected fifo or rr", policy);
		return;
	}
	bus_request_start(d, m, o,
			  &(RequestArgs){ .type = REQUEST_SCHED,
					  .kind = k,
					  .value = prio > INT_MAX ? INT_MAX : (int)prio,
					  .pid = pid,
					  .tid = tid });
}

static void method_make_high_priority(Daemon *d, DBusMessage *m, const BusObject *o)
{
	uint64_t pid, tid;
	int32_t nice;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
			      DBUS_TYPE_INT32, &nice, DBUS_TYPE_INVALID);
	bus_request_start(d, m, o,
			  &(RequestArgs){ .type = REQUEST_SCHED,
					  .kind = POLICY_GRANT_NICE,
					  .value = nice,
					  .pid = pid,
					  .tid = tid });
}

/* ResetThread (t pid, t tid) and ResetProcess (t pid) */
static void method_reset(Daemon *d, DBusMessage *m, const BusObject *o)
{
	bool thread = dbus_message_has_signature(m, "tt");
	uint64_t pid, tid = 0;
	DBusMessageIter it;

	dbus_message_iter_init(m, &it);
	dbus_message_iter_get_basic(&it, &pid);
	if (thread && dbus_message_iter_next(&it))
		dbus_message_iter_get_basic(&it, &tid);
	bus_request_start(
		d, m, o,
		&(RequestArgs){ .type = thread ? REQUEST_RESET_THREAD : REQUEST_RESET_PROCESS,
				.pid = pid,
				.tid = tid });
}

static void method_grant_limits(Daemon *d, DBusMessage *m, const BusObject *o)
{
	uint64_t pid;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	bus_request_start(d, m, o, &(RequestArgs){ .type = REQUEST_LIMITS, .pid = pid });
}

/* Explain and ListGrants park the message, never the loop, until their
 * users' lookups end. Explain answers a failed one with its error; ListGrants
 * names a user it could not resolve "#UID". */
static void reply_grants(Daemon *d, DBusMessage *m, uid_t only, bool may_wait);
static void explain_run(Daemon *d, DBusMessage *m, int error, uid_t error_uid);

static void on_explain_user(int error, uid_t error_uid, void *userdata)
{
	BusParkedCall *p = userdata;

	explain_run(p->d, p->m, error, error_uid);
	bus_parked_call_free(p);
}

static void on_grants_users(int error, uid_t error_uid, void *userdata)
{
	BusParkedCall *p = userdata;

	reply_grants(p->d, p->m, p->uid, false);
	bus_parked_call_free(p);
}

static const UserWaitOps explain_wait = { .done = on_explain_user,
					  .free_userdata = bus_parked_call_free };
static const UserWaitOps grants_wait = { .done = on_grants_users,
					 .free_userdata = bus_parked_call_free };

/* error: of the lookup of error_uid it waited for, or 0. */
static void explain_run(Daemon *d, DBusMessage *m, int error, uid_t error_uid)
{
	DBusMessage *reply = NULL;
	DBusConnection *c = d->bus;
	DBusMessageIter it, dict;
	PolicyEval eval;
	char text[256];
	bool built = true;
	PolicyGrant g;
	uint32_t uid;
	int r;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT32, &uid, DBUS_TYPE_INVALID);
	r = error ? error : daemon_policy_eval(d, uid, &eval);
	if (r == -EINPROGRESS) {
		BusParkedCall *p = bus_parked_call_new(d, m, NULL, NULL, uid);

		r = p ? user_wait_one(d, uid, &explain_wait, p) : -ENOMEM;
		if (r >= 0)
			return;
		bus_parked_call_free(p);
	}
	if (r == -ETIMEDOUT || r == -EBUSY) {
		bus_reply_error(
			c, m, bus_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
			"Could not evaluate the policy for uid %u: %s", uid,
			daemon_resolve_error(error ? error_uid : uid, r, text, sizeof(text)));
		return;
	}
	if (r < 0) {
		bus_reply_error(
			c, m,
			bus_error_name(r == -ESRCH ? REQUEST_E_INVALID_ARGS : REQUEST_E_FAILED,
				       FLAVOUR_NATIVE),
			"Could not evaluate the policy for uid %u: %s", uid,
			r == -ESRCH ? "no such user" : strerror(-r));
		return;
	}
	g = eval.grant;
	if (!bus_reply_open_array(d, m, "{s(ss)}", &reply, &it, &dict))
		return;
	for (int k = 0; k < _POLICY_KEY_MAX && built; k++) {
		char value[256] = "", where[300] = "";
		const char *key = policy_key_to_string(k);
		DBusMessageIter e, st;

		if (g.set[k]) {
			if (policy_grant_format(&g, k, value, sizeof(value)) < 0)
				value[0] = 0;
			if (g.source[k].file)
				utf8_snprintf(where, sizeof(where), "%s:%u", g.source[k].file,
					      g.source[k].line);
		}
		built = dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &e) &&
			bus_append_string(&e, key) &&
			dbus_message_iter_open_container(&e, DBUS_TYPE_STRUCT, NULL, &st) &&
			bus_append_string(&st, value) && bus_append_string(&st, where) &&
			dbus_message_iter_close_container(&e, &st) &&
			dbus_message_iter_close_container(&dict, &e);
	}
	bus_reply_close_array(d, m, reply, &it, &dict, built);
}

static void method_explain(Daemon *d, DBusMessage *m, const BusObject *o)
{
	explain_run(d, m, 0, 0);
}

/* Waits for the grants' users not known yet; true if the reply is left to it. */
static bool grants_wait_users(Daemon *d, DBusMessage *m, uid_t only)
{
	_cleanup_free_ uid_t *uids = NULL;
	BusParkedCall *p;
	UserWait *w;
	size_t n;

	if (grant_table_users(d->grants, &uids, &n) < 0)
		return false; /* listed by uid */
	p = bus_parked_call_new(d, m, NULL, NULL, only);
	w = p ? user_wait_new(d, &grants_wait, p) : NULL;
	for (size_t i = 0; w && i < n; i++) {
		PolicyEval e;

		if ((only != (uid_t)-1 && uids[i] != only) ||
		    daemon_policy_eval(d, uids[i], &e) != -EINPROGRESS)
			continue;
		if (user_wait_add(w, uids[i]) < 0)
			break; /* the rest listed by uid */
	}
	if (w && user_wait_release(w))
		return true;
	bus_parked_call_free(p);
	return false;
}

/* The grants of only, or all for (uid_t)-1. */
static void reply_grants(Daemon *d, DBusMessage *m, uid_t only, bool may_wait)
{
	DBusMessage *reply = NULL;
	DBusMessageIter it, arr;
	bool built = true;

	grant_table_prune(d->grants, only);
	if (may_wait && grants_wait_users(d, m, only))
		return;
	if (!bus_reply_open_array(d, m, "(ttusssit)", &reply, &it, &arr))
		return;
	GRANT_TABLE_FOREACH(p, g, d->grants) {
		uint64_t pid = p->pid, tid = g->tid, since = g->since_usec;
		uint32_t uid = p->uid;
		int32_t value = g->value;
		char comm[64] = "";
		const char *kind = policy_grant_kind_to_string(g->kind);
		PolicyEval e;
		DBusMessageIter st;

		if (!built)
			break;
		if (only != (uid_t)-1 && p->uid != only)
			continue;
		if (daemon_policy_eval(d, p->uid, &e) < 0)
			snprintf(e.user, sizeof(e.user), "#%u", uid);
		(void)proc_get_comm(d->args.proc, p->pid, g->tid, comm, sizeof(comm));
		built = dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &st) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &pid) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &tid) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &uid) &&
			bus_append_string(&st, e.user) && bus_append_string(&st, comm) &&
			bus_append_string(&st, kind) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_INT32, &value) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &since) &&
			dbus_message_iter_close_container(&arr, &st);
	}
	bus_reply_close_array(d, m, reply, &it, &arr, built);
}

static void method_list_all_grants(Daemon *d, DBusMessage *m, const BusObject *o)
{
	reply_grants(d, m, (uid_t)-1, true);
}

static void method_list_grants(Daemon *d, DBusMessage *m, const BusObject *o)
{
	uid_t uid;

	if (bus_get_caller_uid(d, m, &uid) < 0)
		return;
	reply_grants(d, m, uid == 0 ? (uid_t)-1 : uid, true);
}

static void method_list_irq_threads(Daemon *d, DBusMessage *m, const BusObject *o)
{
	DBusMessage *reply = NULL;
	IrqThread *threads = NULL;
	DBusMessageIter it, arr;
	bool built = true;
	size_t n = 0;
	int r;

	r = procfs_irq_threads(d->args.proc, &threads, &n);
	if (r < 0) {
		bus_reply_error(d->bus, m, bus_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
				"Could not list IRQ threads: %s", strerror(-r));
		return;
	}
	if (!bus_reply_open_array(d, m, "(ustsi)", &reply, &it, &arr)) {
		procfs_irq_threads_free(threads, n);
		return;
	}
	for (size_t i = 0; i < n && built; i++) {
		IrqThread *t = &threads[i];
		bool rt = t->policy == SCHED_FIFO || t->policy == SCHED_RR;
		uint32_t irq = t->irq;
		uint64_t pid = t->pid;
		int32_t prio = rt ? t->priority : t->nice;
		const char *pol = rt ? procfs_sched_policy_to_string(t->policy) : "other";
		DBusMessageIter st;

		built = dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &st) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &irq) &&
			bus_append_string(&st, t->action) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &pid) &&
			bus_append_string(&st, pol) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_INT32, &prio) &&
			dbus_message_iter_close_container(&arr, &st);
	}
	procfs_irq_threads_free(threads, n);
	bus_reply_close_array(d, m, reply, &it, &arr, built);
}

static void method_reload(Daemon *d, DBusMessage *m, const BusObject *o)
{
	_cleanup_free_ char *error = NULL;

	if (manager_reload(d, &error) < 0)
		bus_reply_error(d->bus, m, NATIVE_ERROR "Failed", "%s",
				error ? error
				      : "Reload failed; the last good policy stays in force");
	else
		bus_reply_empty(d->bus, m);
}

/* Who may call what: realtimed(8), VISIBILITY. */
static const BusMethod native_methods[] = {
	{ "MakeThreadRealtime", "ttsu", BUS_CALLER_ANYONE, NULL, method_make_realtime, true },
	{ "MakeThreadHighPriority", "tti", BUS_CALLER_ANYONE, NULL, method_make_high_priority,
	  true },
	{ "ResetThread", "tt", BUS_CALLER_ANYONE, NULL, method_reset },
	{ "ResetProcess", "t", BUS_CALLER_ANYONE, NULL, method_reset },
	{ "GrantLimits", "t", BUS_CALLER_ANYONE, NULL, method_grant_limits, true },
	{ "Explain", "u", BUS_CALLER_SELF_OR_MANAGE, "Explaining another user's policy",
	  method_explain },
	{ "ListGrants", "", BUS_CALLER_ANYONE, NULL, method_list_grants },
	{ "ListAllGrants", "", BUS_CALLER_MANAGE, "Listing every user's grants",
	  method_list_all_grants },
	{ "ListIrqThreads", "", BUS_CALLER_ANYONE, NULL, method_list_irq_threads },
	{ "ListRefusals", "", BUS_CALLER_ANYONE, NULL, bus_native_list_refusals },
	{ "ListAllRefusals", "", BUS_CALLER_MANAGE, "Listing every user's refusals",
	  bus_native_list_all_refusals },
	{ "Reload", "", BUS_CALLER_MANAGE, "Reloading the policy", method_reload },
	{ "SubscribeDemoted", "", BUS_CALLER_MANAGE, "Watching every user's demotions",
	  bus_native_subscribe_demoted },
};

const BusObject bus_native_object = BUS_OBJECT(NATIVE_PATH, NATIVE_IFACE, FLAVOUR_NATIVE,
					       native_methods, realtimed_introspection_xml);

int bus_native_register(Daemon *d)
{
	int r = bus_object_register(d, &bus_native_object);

	return r < 0 ? r : bus_native_demoted_register(d);
}
