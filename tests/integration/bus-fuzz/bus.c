// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-fuzz's connections to the system bus, and the questions the
 * controller asks realtimed between batches (Peer.Ping, ListGrants), with
 * the reading of ListGrants' answer that call-check.c uses too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../system-bus.h"
#include "bus-fuzz.h"

DBusConnection *bus_connect_private(void)
{
	DBusConnection *c;
	DBusError e;

	dbus_error_init(&e);
	c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &e);
	if (!c) {
		count_error(e.name ? e.name : "(connect failed)");
		dbus_error_free(&e);
		return NULL;
	}
	dbus_connection_set_exit_on_disconnect(c, FALSE);
	return c;
}

void bus_close_private(DBusConnection *c)
{
	dbus_connection_close(c);
	dbus_connection_unref(c);
}

void bus_flush_all(DBusConnection *const *c, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (c[k])
			dbus_connection_flush(c[k]);
}

bool pending_wait(DBusPendingCall *p, char *error, size_t size)
{
	DBusMessage *reply;
	bool ok;

	dbus_pending_call_block(p);
	reply = dbus_pending_call_steal_reply(p);
	dbus_pending_call_unref(p);
	ok = reply && dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_ERROR;
	snprintf(error, size, "%s", reply && !ok ? dbus_message_get_error_name(reply) : "");
	if (reply)
		dbus_message_unref(reply);
	return ok;
}

/* The basic value at it into ret, and on to the next. */
static void iter_take(DBusMessageIter *it, void *ret)
{
	dbus_message_iter_get_basic(it, ret);
	dbus_message_iter_next(it);
}

/* ListGrants' answer a(ttusssit) as (pid, tid, uid); -EBADMSG when the
 * reply does not have that shape. */
int parse_grants(DBusMessage *reply, ListedGrant **ret, size_t *ret_n)
{
	DBusMessageIter it, arr;
	ListedGrant *g = NULL;
	size_t n = 0, size = 0;

	if (!dbus_message_has_signature(reply, "a(ttusssit)") ||
	    !dbus_message_iter_init(reply, &it))
		return -EBADMSG;
	dbus_message_iter_recurse(&it, &arr);
	while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
		DBusMessageIter st;
		uint64_t pid, tid;
		uint32_t uid;

		dbus_message_iter_recurse(&arr, &st);
		iter_take(&st, &pid);
		iter_take(&st, &tid);
		iter_take(&st, &uid);
		if (n == size) {
			ListedGrant *p = realloc(g, (size = size ? 2 * size : 64) * sizeof(*g));

			if (!p)
				abort();
			g = p;
		}
		g[n++] = (ListedGrant){ .pid = (pid_t)pid, .tid = (pid_t)tid, .uid = uid };
		dbus_message_iter_next(&arr);
	}
	*ret = g;
	*ret_n = n;
	return 0;
}

bool daemon_ping(DBusConnection *bus, char *error, size_t size)
{
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, DBUS_INTERFACE_PEER, "Ping");
	DBusError e;

	if (bus_call(bus, m, CALL_TIMEOUT_MS, &e))
		return true;
	snprintf(error, size, "%s: %s", e.name, e.message);
	dbus_error_free(&e);
	return false;
}

int list_grants_full(DBusConnection *bus, bool all, ListedGrant **ret, size_t *ret_n, char *error,
		     size_t size)
{
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
				  all ? "ListAllGrants" : "ListGrants");
	DBusMessage *reply;
	DBusError e;
	int r;

	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &e);
	dbus_message_unref(m);
	if (!reply) {
		snprintf(error, size, "%s: %s", e.name, e.message);
		dbus_error_free(&e);
		return -EIO;
	}
	r = parse_grants(reply, ret, ret_n);
	dbus_message_unref(reply);
	if (r < 0)
		snprintf(error, size, "%s answered another signature",
			 all ? "ListAllGrants" : "ListGrants");
	return r;
}

int list_grants(DBusConnection *bus, pid_t (**ret)[2], size_t *ret_n, char *error, size_t size)
{
	_cleanup_free_ ListedGrant *g = NULL;
	pid_t(*pairs)[2];
	size_t n = 0;
	int r;

	r = list_grants_full(bus, false, &g, &n, error, size);
	if (r < 0)
		return r;
	pairs = calloc(n ? n : 1, sizeof(*pairs));
	if (!pairs)
		abort();
	for (size_t i = 0; i < n; i++) {
		pairs[i][0] = g[i].pid;
		pairs[i][1] = g[i].tid;
	}
	*ret = pairs;
	*ret_n = n;
	return 0;
}
