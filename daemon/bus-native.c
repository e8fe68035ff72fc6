// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The native interface org.realtimed.Realtime1 at /org/realtimed/Realtime1;
 * see org.realtimed.Realtime1.xml and realtimed(8). Grants and resets go
 * through request.c; listings, Explain, Reload and the Demoted signal live
 * here.
 *
 * What a caller may see: their own grants and their own policy; every
 * user's (which would show other users' pids and commands, defeating
 * hidepid) takes root or org.realtimed.manage (bus-manage.c). So does the
 * Demoted signal: each connection that asked for a grant hears of its own
 * threads, and only a SubscribeDemoted caller of every thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bus-manage.h"
#include "bus-native.h"
#include "bus-props.h"
#include "bus.h"
#include "procfs-irq.h"
#include "log.h"
#include "manager.h"
#include "daemon-policy.h"
#include "request.h"
#include "pidfd.h"
#include "proc.h"
#include "procfs-stat.h"
#include "utf8.h"

extern const char realtimed_introspection_xml[];

static void method_make_realtime(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	uint64_t pid, tid;
	const char *policy;
	uint32_t prio;
	GrantKind k;

	if (!bus_check_signature(c, m, "ttsu"))
		return;
	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
			      DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
			      DBUS_TYPE_INVALID);
	k = grant_kind_from_string(policy);
	if (k != GRANT_FIFO && k != GRANT_RR) {
		bus_reply_error(c, m, request_error_name(REQUEST_E_INVALID_ARGS, FLAVOUR_NATIVE),
				"Unknown policy '%s', expected fifo or rr", policy);
		return;
	}
	request_start(d, m,
		      &(RequestArgs){ .type = REQUEST_SCHED,
				      .kind = k,
				      .value = prio > INT_MAX ? INT_MAX : (int)prio,
				      .pid = pid,
				      .tid = tid });
}

static void method_make_high_priority(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	uint64_t pid, tid;
	int32_t nice;

	if (!bus_check_signature(c, m, "tti"))
		return;
	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
			      DBUS_TYPE_INT32, &nice, DBUS_TYPE_INVALID);
	request_start(d, m,
		      &(RequestArgs){ .type = REQUEST_SCHED,
				      .kind = GRANT_NICE,
				      .value = nice,
				      .pid = pid,
				      .tid = tid });
}

static void method_reset(Daemon *d, DBusConnection *c, DBusMessage *m, bool thread)
{
	uint64_t pid, tid = 0;

	if (!bus_check_signature(c, m, thread ? "tt" : "t"))
		return;
	if (thread)
		dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
				      DBUS_TYPE_INVALID);
	else
		dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	request_start(d, m,
		      &(RequestArgs){ .type = thread ? REQUEST_RESET_THREAD : REQUEST_RESET_PROCESS,
				      .pid = pid,
				      .tid = tid });
}

static void method_grant_limits(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	uint64_t pid;

	if (!bus_check_signature(c, m, "t"))
		return;
	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	request_start(d, m, &(RequestArgs){ .type = REQUEST_LIMITS, .pid = pid });
}

/* Explain and ListGrants wait for the users they name (resolver.h): the
 * message is parked, never the loop, and answered when every lookup it
 * waits for has ended. Explain answers a failed lookup with its error;
 * ListGrants names a user it could not resolve "#UID". */
typedef struct CallWait {
	Daemon *d;
	DBusMessage *m;
	bool explain;
	uid_t only;	  /* ListGrants: whose grants, (uid_t)-1 for all */
	unsigned pending; /* lookups waited for; also the references */
	int error;	  /* the first failed lookup's, and its uid */
	uid_t error_uid;
} CallWait;

static void reply_grants(Daemon *d, DBusMessage *m, uid_t only, bool may_wait);
static void explain_run(Daemon *d, DBusMessage *m, const int *error, uid_t error_uid);

static void call_wait_unref(void *userdata)
{
	CallWait *w = userdata;

	if (--w->pending > 0)
		return;
	dbus_message_unref(w->m);
	free(w);
}

static void on_call_resolved(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	CallWait *w = userdata;

	if (error < 0 && error != -ESRCH && w->error == 0) {
		w->error = error;
		w->error_uid = uid;
	}
	if (w->pending == 1) {
		if (w->explain)
			explain_run(w->d, w->m, w->error ? &w->error : NULL, w->error_uid);
		else
			reply_grants(w->d, w->m, w->only, false);
	}
	call_wait_unref(w);
}

static CallWait *call_wait_new(Daemon *d, DBusMessage *m, bool explain, uid_t only)
{
	CallWait *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	*w = (CallWait){ .d = d, .m = dbus_message_ref(m), .explain = explain, .only = only };
	/* the caller's own reference, until it has started every wait */
	w->pending = 1;
	return w;
}

/* Waits for uid on w's behalf. */
static int call_wait_add(CallWait *w, uid_t uid)
{
	int r;

	w->pending++;
	r = daemon_policy_wait(w->d, uid, on_call_resolved, w, call_wait_unref);
	if (r < 0)
		w->pending--;
	return r;
}

static void explain_run(Daemon *d, DBusMessage *m, const int *error, uid_t error_uid)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	DBusConnection *c = d->bus;
	DBusMessageIter it, dict;
	PolicyEval eval;
	char text[256];
	PolicyGrant g;
	uint32_t uid;
	int r;

	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT32, &uid, DBUS_TYPE_INVALID);
	r = error ? *error : daemon_policy_eval(d, uid, &eval);
	if (r == -EINPROGRESS) {
		CallWait *w = call_wait_new(d, m, true, 0);

		r = w ? call_wait_add(w, uid) : -ENOMEM;
		if (w)
			call_wait_unref(w);
		if (r >= 0)
			return;
	}
	if (r == -ETIMEDOUT || r == -EBUSY) {
		bus_reply_error(
			c, m, request_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
			"Could not evaluate the policy for uid %u: %s", uid,
			daemon_resolve_error(error ? error_uid : uid, r, text, sizeof(text)));
		return;
	}
	if (r < 0) {
		bus_reply_error(
			c, m,
			request_error_name(r == -ESRCH ? REQUEST_E_INVALID_ARGS : REQUEST_E_FAILED,
					   FLAVOUR_NATIVE),
			"Could not evaluate the policy for uid %u: %s", uid,
			r == -ESRCH ? "no such user" : strerror(-r));
		return;
	}
	g = eval.grant;
	reply = dbus_message_new_method_return(m);
	if (!reply)
		goto oom;
	dbus_message_iter_init_append(reply, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{s(ss)}", &dict))
		goto oom;
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
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
		if (!dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &e) ||
		    !bus_append_string(&e, key) ||
		    !dbus_message_iter_open_container(&e, DBUS_TYPE_STRUCT, NULL, &st) ||
		    !bus_append_string(&st, value) || !bus_append_string(&st, where) ||
		    !dbus_message_iter_close_container(&e, &st) ||
		    !dbus_message_iter_close_container(&dict, &e))
			goto oom;
	}
	if (!dbus_message_iter_close_container(&it, &dict))
		goto oom;
	bus_send(c, reply);
	return;
oom:
	bus_reply_error(c, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
}

static void explain_now(Daemon *d, DBusMessage *m)
{
	explain_run(d, m, NULL, 0);
}

static void method_explain(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	uint32_t uid;
	uid_t caller;
	pid_t pid;

	if (!bus_check_signature(c, m, "u"))
		return;
	dbus_message_get_args(m, NULL, DBUS_TYPE_UINT32, &uid, DBUS_TYPE_INVALID);
	/* one's own policy is no secret; another user's is an admin's business */
	if (bus_get_creds(d, m, &caller, &pid) >= 0 && caller == uid)
		explain_now(d, m);
	else
		bus_authorize_manage(d, m, "Explaining another user's policy", explain_now);
}

/* Waits for the users of the grants listed whose names are not known yet;
 * true if the reply is left to the waits. */
static bool grants_wait_users(Daemon *d, DBusMessage *m, uid_t only)
{
	_cleanup_free_ uid_t *uids = NULL;
	CallWait *w = NULL;
	bool waits;
	size_t n;

	if (grant_table_users(d->grants, &uids, &n) < 0)
		return false; /* listed by uid */
	for (size_t i = 0; i < n; i++) {
		PolicyEval e;

		if ((only != (uid_t)-1 && uids[i] != only) ||
		    daemon_policy_eval(d, uids[i], &e) != -EINPROGRESS)
			continue;
		if (!w)
			w = call_wait_new(d, m, false, only);
		if (!w || call_wait_add(w, uids[i]) < 0)
			break; /* the rest listed by uid */
	}
	if (!w)
		return false;
	waits = w->pending > 1;
	call_wait_unref(w);
	return waits;
}

/* Replies with the grants whose owner is only, or every grant for (uid_t)-1,
 * after waiting for their users' names (may_wait) or at once. */
static void reply_grants(Daemon *d, DBusMessage *m, uid_t only, bool may_wait)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	DBusConnection *c = d->bus;
	DBusMessageIter it, arr;

	grant_table_prune(d->grants, only);
	if (may_wait && grants_wait_users(d, m, only))
		return;
	reply = dbus_message_new_method_return(m);
	if (!reply)
		goto oom;
	dbus_message_iter_init_append(reply, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(ttusssit)", &arr))
		goto oom;
	GRANT_TABLE_FOREACH(p, g, d->grants) {
		uint64_t pid = p->pid, tid = g->tid, since = g->since_usec;
		uint32_t uid = p->uid;
		int32_t value = g->value;
		char comm[64] = "";
		const char *kind = grant_kind_to_string(g->kind);
		PolicyEval e;
		DBusMessageIter st;

		if (only != (uid_t)-1 && p->uid != only)
			continue;
		if (daemon_policy_eval(d, p->uid, &e) < 0)
			snprintf(e.user, sizeof(e.user), "#%u", uid);
		(void)proc_get_comm(d->args.proc, p->pid, g->tid, comm, sizeof(comm));
		if (!dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &st) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &pid) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &tid) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &uid) ||
		    !bus_append_string(&st, e.user) || !bus_append_string(&st, comm) ||
		    !bus_append_string(&st, kind) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_INT32, &value) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &since) ||
		    !dbus_message_iter_close_container(&arr, &st))
			goto oom;
	}
	if (!dbus_message_iter_close_container(&it, &arr))
		goto oom;
	bus_send(c, reply);
	return;
oom:
	bus_reply_error(c, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
}

static void list_all_grants_now(Daemon *d, DBusMessage *m)
{
	reply_grants(d, m, (uid_t)-1, true);
}

static void method_list_grants(Daemon *d, DBusConnection *c, DBusMessage *m, bool all)
{
	uid_t uid;
	pid_t pid;
	int r;

	if (!bus_check_signature(c, m, ""))
		return;
	if (all) {
		bus_authorize_manage(d, m, "Listing every user's grants", list_all_grants_now);
		return;
	}
	r = bus_get_creds(d, m, &uid, &pid);
	if (r < 0) {
		bus_reply_error(c, m, request_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
				"Could not get the caller's credentials: %s", strerror(-r));
		return;
	}
	/* root sees everything anyway: ListGrants is all it needs */
	reply_grants(d, m, uid == 0 ? (uid_t)-1 : uid, true);
}

static void method_list_irq_threads(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	IrqThread *threads = NULL;
	DBusMessageIter it, arr;
	size_t n = 0;
	int r;

	if (!bus_check_signature(c, m, ""))
		return;
	r = procfs_irq_threads(d->args.proc, &threads, &n);
	if (r < 0) {
		bus_reply_error(c, m, request_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
				"Could not list IRQ threads: %s", strerror(-r));
		return;
	}
	reply = dbus_message_new_method_return(m);
	if (!reply)
		goto oom;
	dbus_message_iter_init_append(reply, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(ustsi)", &arr))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		IrqThread *t = &threads[i];
		bool rt = t->policy == SCHED_FIFO || t->policy == SCHED_RR;
		uint32_t irq = t->irq;
		uint64_t pid = t->pid;
		/* the interface's values: fifo or rr and the priority, or
		 * other and the nice level */
		int32_t prio = rt ? t->priority : t->nice;
		const char *pol = rt ? procfs_sched_policy_to_string(t->policy) : "other";
		DBusMessageIter st;

		if (!dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &st) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &irq) ||
		    !bus_append_string(&st, t->action) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &pid) ||
		    !bus_append_string(&st, pol) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_INT32, &prio) ||
		    !dbus_message_iter_close_container(&arr, &st))
			goto oom;
	}
	if (!dbus_message_iter_close_container(&it, &arr))
		goto oom;
	bus_send(c, reply);
	procfs_irq_threads_free(threads, n);
	return;
oom:
	procfs_irq_threads_free(threads, n);
	bus_reply_error(c, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
}

static void reload_now(Daemon *d, DBusMessage *m)
{
	_cleanup_free_ char *error = NULL;

	if (manager_reload(d, &error) < 0)
		bus_reply_error(d->bus, m, NATIVE_ERROR "Failed", "%s",
				error ? error
				      : "Reload failed; the last good policy stays in force");
	else
		bus_reply_empty(d->bus, m);
}

static void method_reload(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	if (bus_check_signature(c, m, ""))
		bus_authorize_manage(d, m, "Reloading the policy", reload_now);
}

/* Demoted, unicast: every thread of a demotion to each watcher
 * (SubscribeDemoted), and to the connection that asked for a grant its
 * own threads only, so that no one else learns pids and tids that
 * hidepid= keeps from them. A watcher is dropped when its name leaves the
 * bus (NameOwnerChanged, matched per watcher). */

#define NAME_OWNER_MATCH                                                     \
	"type='signal',sender='" DBUS_SERVICE_DBUS "',path='" DBUS_PATH_DBUS \
	"',interface='" DBUS_INTERFACE_DBUS "',member='NameOwnerChanged',arg0='%s'"

static char *watcher_find(Daemon *d, const char *name)
{
	for (size_t i = 0; i < DEMOTED_WATCHERS_MAX; i++)
		if (streq(d->demoted_watchers[i], name))
			return d->demoted_watchers[i];
	return NULL;
}

static void watcher_drop(Daemon *d, const char *name)
{
	char rule[sizeof(NAME_OWNER_MATCH) + GRANT_OWNER_MAX];
	char *w = isempty(name) ? NULL : watcher_find(d, name);

	if (!w)
		return;
	snprintf(rule, sizeof(rule), NAME_OWNER_MATCH, w);
	dbus_bus_remove_match(d->bus, rule, NULL); /* NULL: not waited for */
	w[0] = '\0';
}

static DBusHandlerResult on_name_owner_changed(DBusConnection *c, DBusMessage *m, void *userdata)
{
	const char *name, *old_owner, *new_owner;

	if (dbus_message_is_signal(m, DBUS_INTERFACE_DBUS, "NameOwnerChanged") &&
	    dbus_message_has_sender(m, DBUS_SERVICE_DBUS) &&
	    dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &old_owner,
				  DBUS_TYPE_STRING, &new_owner, DBUS_TYPE_INVALID) &&
	    isempty(new_owner))
		watcher_drop(userdata, name);
	/* not for this filter alone */
	return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

typedef struct WatcherCheck {
	Daemon *d;
	char name[GRANT_OWNER_MAX];
} WatcherCheck;

static void on_watcher_owner(DBusPendingCall *call, void *userdata)
{
	WatcherCheck *wc = userdata;
	_cleanup_msg_ DBusMessage *reply = dbus_pending_call_steal_reply(call);

	/* gone before its NameOwnerChanged match was in place */
	if (!reply || dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR)
		watcher_drop(wc->d, wc->name);
}

/* Asks the bus whether name still has an owner: the caller may have left
 * while polkit thought, before the match that tells of its leaving. */
static int watcher_check(Daemon *d, const char *name)
{
	_cleanup_msg_ DBusMessage *m = NULL;
	DBusPendingCall *call = NULL;
	DBusMessageIter it;
	WatcherCheck *wc;

	m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					 "GetNameOwner");
	if (!m)
		return -ENOMEM;
	dbus_message_iter_init_append(m, &it);
	if (!bus_append_string(&it, name))
		return -ENOMEM;
	wc = calloc(1, sizeof(*wc));
	if (!wc)
		return -ENOMEM;
	wc->d = d;
	snprintf(wc->name, sizeof(wc->name), "%s", name);
	if (!dbus_connection_send_with_reply(d->bus, m, &call, DBUS_TIMEOUT_USE_DEFAULT) || !call) {
		free(wc);
		return -ENOMEM;
	}
	if (!dbus_pending_call_set_notify(call, on_watcher_owner, wc, free)) {
		free(wc);
		dbus_pending_call_cancel(call);
		dbus_pending_call_unref(call);
		return -ENOMEM;
	}
	dbus_pending_call_unref(call);
	return 0;
}

static void subscribe_demoted_now(Daemon *d, DBusMessage *m)
{
	const char *name = dbus_message_get_sender(m);
	char rule[sizeof(NAME_OWNER_MATCH) + GRANT_OWNER_MAX];
	char *w;

	if (isempty(name) || strlen(name) >= GRANT_OWNER_MAX) {
		bus_reply_error(d->bus, m, request_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
				"The bus gave the caller no unique name that realtimed can keep");
		return;
	}
	if (watcher_find(d, name)) {
		bus_reply_empty(d->bus, m);
		return;
	}
	w = watcher_find(d, "");
	if (!w) {
		bus_reply_error(d->bus, m,
				request_error_name(REQUEST_E_LIMITS_EXCEEDED, FLAVOUR_NATIVE),
				"%d connections watch every demotion already; each gets it until "
				"it leaves the bus",
				DEMOTED_WATCHERS_MAX);
		return;
	}
	snprintf(w, GRANT_OWNER_MAX, "%s", name);
	snprintf(rule, sizeof(rule), NAME_OWNER_MATCH, name);
	dbus_bus_add_match(d->bus, rule, NULL); /* NULL: not waited for */
	if (watcher_check(d, name) < 0) {
		watcher_drop(d, name);
		bus_reply_error(d->bus, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
		return;
	}
	bus_reply_empty(d->bus, m);
}

static void method_subscribe_demoted(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	if (bus_check_signature(c, m, ""))
		bus_authorize_manage(d, m, "Watching every user's demotions",
				     subscribe_demoted_now);
}

/* Sends Demoted(threads, reason) to dest, or drops it without memory. */
static void demoted_send(Daemon *d, const char *dest, const DemoteThread *const *threads, size_t n,
			 const char *reason)
{
	_cleanup_msg_ DBusMessage *s = NULL;
	DBusMessageIter it, arr;

	s = dbus_message_new_signal(NATIVE_PATH, NATIVE_IFACE, "Demoted");
	if (!s || !dbus_message_set_destination(s, dest))
		return;
	dbus_message_set_auto_start(s, false);
	dbus_message_iter_init_append(s, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "(tt)", &arr))
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t pid = threads[i]->pid, tid = threads[i]->tid;
		DBusMessageIter st;

		if (!dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &st) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &pid) ||
		    !dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &tid) ||
		    !dbus_message_iter_close_container(&arr, &st)) {
			dbus_message_iter_abandon_container(&it, &arr);
			return;
		}
	}
	if (!dbus_message_iter_close_container(&it, &arr) || !bus_append_string(&it, reason))
		return;
	dbus_connection_send(d->bus, s, NULL);
}

/* Sends threads[0..n) to every watcher, and each owner that watches not
 * its own. */
static void demoted_send_all(Daemon *d, const DemoteThread *const *threads, size_t n,
			     const char *reason)
{
	for (size_t i = 0; i < DEMOTED_WATCHERS_MAX; i++)
		if (d->demoted_watchers[i][0])
			demoted_send(d, d->demoted_watchers[i], threads, n, reason);
}

static int owner_cmp(const void *a, const void *b)
{
	return strcmp((*(const DemoteThread *const *)a)->owner,
		      (*(const DemoteThread *const *)b)->owner);
}

void bus_native_emit_demoted(Daemon *d, const DemoteThread *threads, size_t n, const char *reason)
{
	_cleanup_free_ const DemoteThread **list = NULL;

	if (!d->bus || n == 0)
		return; /* not connected yet (or a unit test) */
	list = calloc(n, sizeof(*list));
	if (!list) {
		/* one signal per thread then */
		for (size_t i = 0; i < n; i++) {
			const DemoteThread *one = &threads[i];

			demoted_send_all(d, &one, 1, reason);
			if (one->owner[0] && !watcher_find(d, one->owner))
				demoted_send(d, one->owner, &one, 1, reason);
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		list[i] = &threads[i];
	demoted_send_all(d, list, n, reason);

	/* each owner's threads in one run */
	qsort(list, n, sizeof(*list), owner_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && streq(list[j]->owner, list[i]->owner); j++)
			;
		if (list[i]->owner[0] && !watcher_find(d, list[i]->owner))
			demoted_send(d, list[i]->owner, list + i, j - i, reason);
	}
}

static DBusHandlerResult native_message(DBusConnection *c, DBusMessage *m, void *userdata)
{
	Daemon *d = userdata;

	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL)
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;

	if (dbus_message_is_method_call(m, NATIVE_IFACE, "MakeThreadRealtime"))
		method_make_realtime(d, c, m);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "MakeThreadHighPriority"))
		method_make_high_priority(d, c, m);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "ResetThread"))
		method_reset(d, c, m, true);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "ResetProcess"))
		method_reset(d, c, m, false);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "GrantLimits"))
		method_grant_limits(d, c, m);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "Explain"))
		method_explain(d, c, m);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "ListGrants"))
		method_list_grants(d, c, m, false);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "ListAllGrants"))
		method_list_grants(d, c, m, true);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "ListIrqThreads"))
		method_list_irq_threads(d, c, m);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "Reload"))
		method_reload(d, c, m);
	else if (dbus_message_is_method_call(m, NATIVE_IFACE, "SubscribeDemoted"))
		method_subscribe_demoted(d, c, m);
	else if (dbus_message_has_interface(m, DBUS_INTERFACE_PROPERTIES))
		return bus_properties_handle(d, c, m, NATIVE_IFACE, FLAVOUR_NATIVE);
	else if (dbus_message_is_method_call(m, DBUS_INTERFACE_INTROSPECTABLE, "Introspect")) {
		_cleanup_msg_ DBusMessage *reply = dbus_message_new_method_return(m);
		DBusMessageIter it;

		if (!reply)
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
		dbus_message_iter_init_append(reply, &it);
		if (!bus_append_text(&it, realtimed_introspection_xml))
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
		bus_send(c, reply);
	} else if (!dbus_message_get_interface(m) || dbus_message_has_interface(m, NATIVE_IFACE))
		bus_reply_error(c, m, DBUS_ERROR_UNKNOWN_METHOD,
				"Unknown method %s or wrong interface", dbus_message_get_member(m));
	else
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
	return DBUS_HANDLER_RESULT_HANDLED;
}

int bus_native_register(Daemon *d)
{
	static const DBusObjectPathVTable vtable = { .message_function = native_message };

	int r;

	r = bus_register_object(d->bus, NATIVE_PATH, &vtable, d);
	if (r < 0)
		return r;
	if (!dbus_connection_add_filter(d->bus, on_name_owner_changed, d, NULL))
		return -ENOMEM;
	return 0;
}
