// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Demoted is unicast: every thread to each SubscribeDemoted watcher, and its
 * own threads only to the connection that asked for a grant, so no one learns
 * pids that hidepid= hides. A watcher is dropped when its name leaves the bus.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-dispatch.h"
#include "bus-native-demoted.h"
#include "bus-native.h"
#include "bus.h"
#include "request.h"

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

/* The caller may have left while polkit thought, before its match was added. */
static int watcher_check(Daemon *d, const char *name)
{
	_cleanup_msg_ DBusMessage *m = bus_driver_call_new("GetNameOwner", name);
	DBusPendingCall *call = NULL;
	WatcherCheck *wc;

	if (!m)
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

void bus_native_subscribe_demoted(Daemon *d, DBusMessage *m, const BusObject *o)
{
	const char *name = dbus_message_get_sender(m);
	char rule[sizeof(NAME_OWNER_MATCH) + GRANT_OWNER_MAX];
	char *w;

	if (isempty(name) || strlen(name) >= GRANT_OWNER_MAX) {
		bus_reply_error(d->bus, m, bus_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
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
				bus_error_name(REQUEST_E_LIMITS_EXCEEDED, FLAVOUR_NATIVE),
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

/* Dropped without memory. */
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

static int owner_cmp(const void *a, const void *b)
{
	return strcmp((*(const DemoteThread *const *)a)->owner,
		      (*(const DemoteThread *const *)b)->owner);
}

/* To every watcher, then each owner's threads in one signal to an owner that
 * does not watch them all anyway. */
static void demoted_send_owners(Daemon *d, const DemoteThread **list, size_t n, const char *reason)
{
	for (size_t i = 0; i < DEMOTED_WATCHERS_MAX; i++)
		if (d->demoted_watchers[i][0])
			demoted_send(d, d->demoted_watchers[i], list, n, reason);
	qsort(list, n, sizeof(*list), owner_cmp);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && streq(list[j]->owner, list[i]->owner); j++)
			;
		if (list[i]->owner[0] && !watcher_find(d, list[i]->owner))
			demoted_send(d, list[i]->owner, list + i, j - i, reason);
	}
}

void bus_native_emit_demoted(Daemon *d, const DemoteThread *threads, size_t n, const char *reason)
{
	_cleanup_free_ const DemoteThread **list = NULL;

	if (!d->bus || n == 0)
		return; /* not connected yet (or a unit test) */
	list = calloc(n, sizeof(*list));
	for (size_t i = 0; i < n; i++) {
		const DemoteThread *one = &threads[i];

		if (!list)
			demoted_send_owners(d, &one, 1, reason); /* one signal per thread */
		else
			list[i] = one;
	}
	if (list)
		demoted_send_owners(d, list, n, reason);
}

int bus_native_demoted_register(Daemon *d)
{
	return dbus_connection_add_filter(d->bus, on_name_owner_changed, d, NULL) ? 0 : -ENOMEM;
}
