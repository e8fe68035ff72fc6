// SPDX-License-Identifier: GPL-2.0-or-later
/* Asked without waiting when a sender's first call is queued
 * (bus_creds_ask()), or, for a call that came before that answer, with a
 * round trip the loop waits for (bus_get_creds()); see creds.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-queue.h"
#include "bus.h"
#include "creds.h"
#include "daemon.h"
#include "log.h"
#include "macro.h"

typedef struct CredsEntry {
	char *sender; /* unique name; NULL: a free entry */
	uid_t uid;
	pid_t pid;
	uint64_t pidns; /* 0: not known yet */
	uint64_t used;
	bool gone; /* the bus said sender is gone: no uid, no pid */
} CredsEntry;

struct CredsCache {
	CredsEntry entries[CREDS_CACHE_SIZE];
	uint64_t clock;
};

int creds_cache_new(CredsCache **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

CredsCache *creds_cache_free(CredsCache *c)
{
	if (c)
		for (size_t i = 0; i < CREDS_CACHE_SIZE; i++)
			free(c->entries[i].sender);
	free(c);
	return NULL;
}

static CredsEntry *creds_cache_find(CredsCache *c, const char *sender)
{
	for (size_t i = 0; i < CREDS_CACHE_SIZE; i++) {
		CredsEntry *e = &c->entries[i];

		if (e->sender && streq(e->sender, sender))
			return e;
	}
	return NULL;
}

int creds_cache_get(CredsCache *c, const char *sender, uid_t *ret_uid, pid_t *ret_pid)
{
	CredsEntry *e = creds_cache_find(c, sender);

	if (!e)
		return -ENOENT;
	e->used = ++c->clock;
	if (e->gone)
		return -ESRCH;
	*ret_uid = e->uid;
	*ret_pid = e->pid;
	return 0;
}

int creds_cache_get_pidns(CredsCache *c, const char *sender, uint64_t *ret)
{
	CredsEntry *e = creds_cache_find(c, sender);

	if (!e)
		return -ENOENT;
	*ret = e->pidns;
	return 0;
}

int creds_cache_set_pidns(CredsCache *c, const char *sender, uint64_t pidns)
{
	CredsEntry *e = creds_cache_find(c, sender);

	if (!e)
		return -ENOENT;
	e->pidns = pidns;
	return 0;
}

/* sender's entry, else the victim (creds.h), emptied. */
static CredsEntry *creds_cache_slot(CredsCache *c, const char *sender)
{
	CredsEntry *victim = creds_cache_find(c, sender);

	if (victim)
		return victim;
	victim = &c->entries[0];
	for (size_t i = 1; i < CREDS_CACHE_SIZE && victim->sender; i++) {
		CredsEntry *e = &c->entries[i];

		if (!e->sender || (e->gone && !victim->gone) ||
		    (e->gone == victim->gone && e->used < victim->used))
			victim = e;
	}
	free(victim->sender);
	*victim = (CredsEntry){ .sender = strdup(sender) };
	return victim;
}

static int creds_cache_keep(CredsCache *c, const char *sender, bool gone, uid_t uid, pid_t pid)
{
	CredsEntry *e = creds_cache_slot(c, sender);

	if (!e->sender)
		return -ENOMEM;
	e->uid = uid;
	e->pid = pid;
	e->gone = gone;
	e->used = ++c->clock;
	return 0;
}

int creds_cache_put(CredsCache *c, const char *sender, uid_t uid, pid_t pid)
{
	return creds_cache_keep(c, sender, false, uid, pid);
}

int creds_cache_put_gone(CredsCache *c, const char *sender)
{
	return creds_cache_keep(c, sender, true, 0, 0);
}

/* How long the bus daemon may take to answer for a caller's credentials:
 * it answers at once, unless it is stuck itself. */
#define CREDS_TIMEOUT_MS 5000

static int parse_creds(DBusMessage *reply, uid_t *ret_uid, pid_t *ret_pid)
{
	DBusMessageIter it, arr;
	bool have_uid = false, have_pid = false;
	uint32_t uid = 0, pid = 0;

	if (!dbus_message_iter_init(reply, &it) ||
	    dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_ARRAY)
		return -EBADMSG;
	dbus_message_iter_recurse(&it, &arr);
	while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY) {
		DBusMessageIter e, v;
		const char *key;

		dbus_message_iter_recurse(&arr, &e);
		if (dbus_message_iter_get_arg_type(&e) != DBUS_TYPE_STRING)
			return -EBADMSG;
		dbus_message_iter_get_basic(&e, &key);
		dbus_message_iter_next(&e);
		if (dbus_message_iter_get_arg_type(&e) != DBUS_TYPE_VARIANT)
			return -EBADMSG;
		dbus_message_iter_recurse(&e, &v);
		if (streq(key, "UnixUserID") &&
		    dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_UINT32) {
			dbus_message_iter_get_basic(&v, &uid);
			have_uid = true;
		} else if (streq(key, "ProcessID") &&
			   dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_UINT32) {
			dbus_message_iter_get_basic(&v, &pid);
			have_pid = true;
		}
		dbus_message_iter_next(&arr);
	}
	if (!have_uid || !have_pid)
		return -ENODATA;
	*ret_uid = uid;
	*ret_pid = (pid_t)pid;
	return 0;
}

/* GetConnectionCredentials(sender), or NULL without memory. */
static DBusMessage *creds_call_new(const char *sender)
{
	DBusMessage *call = dbus_message_new_method_call(
		DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "GetConnectionCredentials");
	DBusMessageIter it;

	if (!call)
		return NULL;
	dbus_message_iter_init_append(call, &it);
	if (!bus_append_string(&it, sender)) {
		dbus_message_unref(call);
		return NULL;
	}
	return call;
}

/* Keeps what the bus answered (reply, NULL: nothing) of sender's
 * credentials in d->creds: 0 with the uid and pid; -ESRCH when the bus
 * says sender is gone (kept too, so that no second round trip is spent on
 * it); another -errno. */
static int creds_keep(Daemon *d, const char *sender, DBusMessage *reply, uid_t *ret_uid,
		      pid_t *ret_pid)
{
	const char *text = NULL;
	uid_t uid;
	pid_t pid;
	int r;

	if (reply && dbus_message_is_error(reply, DBUS_ERROR_NAME_HAS_NO_OWNER)) {
		(void)creds_cache_put_gone(d->creds, sender);
		return -ESRCH;
	}
	if (!reply || dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
		if (reply)
			(void)dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text,
						    DBUS_TYPE_INVALID);
		log_warning("Failed to get the credentials of %s from the bus: %s", sender,
			    text ?: "no answer");
		return -EIO;
	}
	r = parse_creds(reply, &uid, &pid);
	if (r < 0)
		return r;
	(void)creds_cache_put(d->creds, sender, uid, pid);
	*ret_uid = uid;
	*ret_pid = pid;
	return 0;
}

int bus_get_creds(Daemon *d, DBusMessage *m, uid_t *ret_uid, pid_t *ret_pid)
{
	_cleanup_msg_ DBusMessage *call = NULL;
	_cleanup_msg_ DBusMessage *reply = NULL;
	const char *sender = dbus_message_get_sender(m);
	DBusPendingCall *pending = NULL;
	int r;

	if (!sender)
		return -EBADMSG;
	r = creds_cache_get(d->creds, sender, ret_uid, ret_pid);
	if (r != -ENOENT)
		return r; /* kept, or gone */

	/* not learned when its call was queued (bus_creds_ask()): ask now.
	 * The bus daemon answers at once; it is trusted like the kernel. */
	call = creds_call_new(sender);
	if (!call || !dbus_connection_send_with_reply(d->bus, call, &pending, CREDS_TIMEOUT_MS) ||
	    !pending)
		return -ENOMEM;
	dbus_pending_call_block(pending);
	reply = dbus_pending_call_steal_reply(pending);
	dbus_pending_call_unref(pending);
	return creds_keep(d, sender, reply, ret_uid, ret_pid);
}

/* A question bus_creds_ask() sent. */
typedef struct CredsAsk {
	Daemon *d;
	char sender[];
} CredsAsk;

static void on_creds(DBusPendingCall *call, void *userdata)
{
	CredsAsk *a = userdata;
	_cleanup_msg_ DBusMessage *reply = dbus_pending_call_steal_reply(call);
	BusQueue *q = bus_queue_of(a->d->bus);
	uid_t uid = 0;
	pid_t pid;
	int r;

	r = creds_keep(a->d, a->sender, reply, &uid, &pid);
	if (q)
		bus_queue_lookup_done(q, a->sender, r, uid, now_usec(CLOCK_MONOTONIC));
}

int bus_creds_ask(const char *sender, uid_t *ret_uid, void *userdata)
{
	_cleanup_msg_ DBusMessage *call = NULL;
	DBusPendingCall *pending = NULL;
	Daemon *d = userdata;
	CredsAsk *a;
	pid_t pid;
	int r;

	r = creds_cache_get(d->creds, sender, ret_uid, &pid);
	if (r != -ENOENT)
		return r;
	call = creds_call_new(sender);
	a = call ? malloc(sizeof(*a) + strlen(sender) + 1) : NULL;
	if (!a)
		return -ENOMEM;
	a->d = d;
	strcpy(a->sender, sender);
	if (!dbus_connection_send_with_reply(d->bus, call, &pending, CREDS_TIMEOUT_MS) ||
	    !pending) {
		free(a);
		return -ENOMEM;
	}
	if (!dbus_pending_call_set_notify(pending, on_creds, a, free)) {
		free(a);
		dbus_pending_call_cancel(pending);
		dbus_pending_call_unref(pending);
		return -ENOMEM;
	}
	dbus_pending_call_unref(pending);
	return -EINPROGRESS;
}
