// SPDX-License-Identifier: GPL-2.0-or-later
/* Asynchronous polkit checks with a short positive cache; see polkit.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "log.h"
#include "macro.h"
#include "polkit.h"
#include "time-util.h"

#define POLKIT_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_IFACE "org.freedesktop.PolicyKit1.Authority"
#define POLKIT_MATCH \
	"type='signal',sender='" POLKIT_NAME "',interface='" POLKIT_IFACE "',member='Changed'"

struct Polkit {
	DBusConnection *bus;
	PolkitCache cache;
	unsigned n_pending;
	/* uids waiting for an interactive check; (uid_t)-1: a free slot */
	uid_t interactive[POLKIT_INTERACTIVE_MAX];
};

typedef struct PolkitQuery {
	Polkit *pk;
	PolkitCacheEntry key;
	polkit_callback_t cb;
	void *userdata;
	void (*free_userdata)(void *);
	uid_t *interactive_slot; /* in Polkit.interactive, or NULL */
	bool done;
} PolkitQuery;

int polkit_new(DBusConnection *bus, Polkit **ret)
{
	Polkit *pk = calloc(1, sizeof(*pk));

	if (!pk)
		return -ENOMEM;
	pk->bus = bus;
	for (size_t i = 0; i < POLKIT_INTERACTIVE_MAX; i++)
		pk->interactive[i] = (uid_t)-1;
	/* Without the match we would only miss early cache expiry. */
	dbus_bus_add_match(bus, POLKIT_MATCH, NULL);
	*ret = pk;
	return 0;
}

Polkit *polkit_free(Polkit *pk)
{
	free(pk);
	return NULL;
}

void polkit_flush(Polkit *pk)
{
	polkit_cache_flush(&pk->cache);
}

DBusHandlerResult polkit_filter(Polkit *pk, DBusMessage *m)
{
	if (dbus_message_is_signal(m, POLKIT_IFACE, "Changed")) {
		log_debug("polkit authorizations changed, forgetting cached answers");
		polkit_flush(pk);
	}
	return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
}

bool polkit_cache_find(const PolkitCache *c, const PolkitCacheEntry *key, uint64_t now)
{
	for (size_t i = 0; i < POLKIT_CACHE_SIZE; i++) {
		const PolkitCacheEntry *e = &c->entries[i];

		if (e->expires_usec > now && e->pid == key->pid &&
		    e->start_time == key->start_time && e->uid == key->uid &&
		    streq(e->action, key->action))
			return true;
	}
	return false;
}

void polkit_cache_put(PolkitCache *c, const PolkitCacheEntry *key, int r, uint64_t now)
{
	PolkitCacheEntry *slot = &c->entries[0];

	/* a "no" may turn into a "yes" any moment (a session becomes active) */
	if (r <= 0)
		return;
	for (size_t i = 0; i < POLKIT_CACHE_SIZE; i++)
		if (c->entries[i].expires_usec < slot->expires_usec)
			slot = &c->entries[i];
	*slot = *key;
	slot->expires_usec = now + POLKIT_CACHE_USEC;
}

void polkit_cache_flush(PolkitCache *c)
{
	memset(c, 0, sizeof(*c));
}

static int parse_reply(DBusMessage *reply)
{
	DBusMessageIter it, st;
	dbus_bool_t authorized = FALSE;

	if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
		const char *name = dbus_message_get_error_name(reply);

		log_warning("polkit check failed: %s", name);
		if (streq_ptr(name, DBUS_ERROR_SERVICE_UNKNOWN) ||
		    streq_ptr(name, DBUS_ERROR_NAME_HAS_NO_OWNER))
			return -EHOSTUNREACH;
		return -EIO;
	}
	if (!dbus_message_iter_init(reply, &it) ||
	    dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_STRUCT)
		return -EBADMSG;
	dbus_message_iter_recurse(&it, &st);
	if (dbus_message_iter_get_arg_type(&st) != DBUS_TYPE_BOOLEAN)
		return -EBADMSG;
	dbus_message_iter_get_basic(&st, &authorized);
	return authorized ? 1 : 0;
}

static void on_reply(DBusPendingCall *call, void *data)
{
	PolkitQuery *q = data;
	DBusMessage *reply = dbus_pending_call_steal_reply(call);
	int r = reply ? parse_reply(reply) : -ETIMEDOUT;

	if (reply)
		dbus_message_unref(reply);
	polkit_cache_put(&q->pk->cache, &q->key, r, now_usec(CLOCK_MONOTONIC));
	q->done = true;
	q->pk->n_pending--;
	if (q->interactive_slot)
		*q->interactive_slot = (uid_t)-1;
	q->cb(r, q->userdata);
}

static void query_free(void *data)
{
	PolkitQuery *q = data;

	if (!q->done) {
		q->pk->n_pending--;
		if (q->interactive_slot)
			*q->interactive_slot = (uid_t)-1;
		if (q->free_userdata)
			q->free_userdata(q->userdata);
	}
	free(q);
}

/* A free slot for uid's interactive check, or NULL: uid has one pending,
 * or all are taken. */
static uid_t *interactive_slot(Polkit *pk, uid_t uid)
{
	uid_t *slot = NULL;

	for (size_t i = 0; i < POLKIT_INTERACTIVE_MAX; i++) {
		if (pk->interactive[i] == uid)
			return NULL;
		if (!slot && pk->interactive[i] == (uid_t)-1)
			slot = &pk->interactive[i];
	}
	return slot;
}

static bool append_subject(DBusMessageIter *it, pid_t pid, uint64_t start_time, uid_t uid)
{
	DBusMessageIter st, dict;
	const char *kind = "unix-process";
	uint32_t p = (uint32_t)pid, u = (uint32_t)uid;

	return dbus_message_iter_open_container(it, DBUS_TYPE_STRUCT, NULL, &st) &&
	       bus_append_string(&st, kind) &&
	       dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "{sv}", &dict) &&
	       bus_append_dict_variant(&dict, "pid", DBUS_TYPE_UINT32, &p) &&
	       bus_append_dict_variant(&dict, "start-time", DBUS_TYPE_UINT64, &start_time) &&
	       bus_append_dict_variant(&dict, "uid", DBUS_TYPE_UINT32, &u) &&
	       dbus_message_iter_close_container(&st, &dict) &&
	       dbus_message_iter_close_container(it, &st);
}

int polkit_check(Polkit *pk, const char *action, pid_t pid, uint64_t start_time, uid_t uid,
		 polkit_callback_t cb, void *userdata, void (*free_userdata)(void *))
{
	return polkit_check_full(pk, action, pid, start_time, uid, false, cb, userdata,
				 free_userdata);
}

int polkit_check_full(Polkit *pk, const char *action, pid_t pid, uint64_t start_time, uid_t uid,
		      bool interactive, polkit_callback_t cb, void *userdata,
		      void (*free_userdata)(void *))
{
	_cleanup_msg_ DBusMessage *m = NULL;
	DBusPendingCall *call = NULL;
	DBusMessageIter it, details;
	PolkitCacheEntry key = { .pid = pid, .start_time = start_time, .uid = uid };
	const char *cancel = "";
	/* CheckAuthorizationFlags: 1 is AllowUserInteraction */
	uint32_t flags = interactive ? 1 : 0;
	uid_t *slot = NULL;
	PolkitQuery *q;

	snprintf(key.action, sizeof(key.action), "%s", action);
	if (polkit_cache_find(&pk->cache, &key, now_usec(CLOCK_MONOTONIC)))
		return 1;
	if (pk->n_pending >= POLKIT_PENDING_MAX)
		return -EBUSY;
	if (interactive) {
		slot = interactive_slot(pk, uid);
		if (!slot)
			return -EBUSY;
	}

	m = dbus_message_new_method_call(POLKIT_NAME, POLKIT_PATH, POLKIT_IFACE,
					 "CheckAuthorization");
	if (!m)
		return -ENOMEM;
	dbus_message_iter_init_append(m, &it);
	if (!append_subject(&it, pid, start_time, uid) || !bus_append_string(&it, action) ||
	    !dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{ss}", &details) ||
	    !dbus_message_iter_close_container(&it, &details) ||
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags) ||
	    !bus_append_string(&it, cancel))
		return -ENOMEM;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (PolkitQuery){ .pk = pk,
			    .key = key,
			    .cb = cb,
			    .userdata = userdata,
			    .free_userdata = free_userdata,
			    .interactive_slot = slot };

	if (!dbus_connection_send_with_reply(pk->bus, m, &call,
					     interactive ? POLKIT_INTERACTIVE_TIMEOUT_MS
							 : DBUS_TIMEOUT_USE_DEFAULT) ||
	    !call) {
		free(q);
		return -ENOMEM;
	}
	pk->n_pending++;
	if (slot)
		*slot = uid;
	if (!dbus_pending_call_set_notify(call, on_reply, q, query_free)) {
		pk->n_pending--;
		if (slot)
			*slot = (uid_t)-1;
		free(q);
		dbus_pending_call_cancel(call);
		dbus_pending_call_unref(call);
		return -ENOMEM;
	}
	dbus_pending_call_unref(call);
	return 0;
}
