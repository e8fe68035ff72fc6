// SPDX-License-Identifier: GPL-2.0-or-later
/* Asynchronous polkit checks: a short cache, joined questions, counted per
 * pool and per user (users.h); see polkit.h. The question and its answer
 * on the wire are at the end. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "log.h"
#include "macro.h"
#include "polkit.h"
#include "time-util.h"
#include "users.h"

#define POLKIT_MATCH \
	"type='signal',sender='" POLKIT_NAME "',interface='" POLKIT_IFACE "',member='Changed'"

typedef struct PolkitWaiter {
	polkit_callback_t cb;
	void *userdata;
	void (*free_userdata)(void *);
} PolkitWaiter;

typedef struct PolkitQuery PolkitQuery;

struct Polkit {
	DBusConnection *bus;
	Users *users; /* whose counts of checks (users.h) */
	PolkitCache cache;
	/* every check not answered yet, all on the bus; later checks of the
	 * same subject join them */
	PolkitQuery *pending;
	unsigned n_pending[_POLKIT_POOL_MAX];
	unsigned n_interactive;
	unsigned timeout_ms; /* POLKIT_CHECK_TIMEOUT_MS */
};

struct PolkitQuery {
	Polkit *pk; /* NULL once released (answered, or polkit_free()) */
	PolkitQuery *prev, *next;
	PolkitCacheEntry key;
	PolkitPool pool;
	User *user; /* whose count it is in (the entry stays while it is) */
	PolkitWaiter *waiters;
	size_t n_waiters;
	bool done;
};

static void query_release(PolkitQuery *q);
static void query_destroy(PolkitQuery *q);

int polkit_new(DBusConnection *bus, Users *users, Polkit **ret)
{
	Polkit *pk = calloc(1, sizeof(*pk));

	if (!pk)
		return -ENOMEM;
	pk->bus = bus;
	pk->users = users;
	pk->timeout_ms = POLKIT_CHECK_TIMEOUT_MS;
	/* Without the match we would only miss early cache expiry. */
	dbus_bus_add_match(bus, POLKIT_MATCH, NULL);
	*ret = pk;
	return 0;
}

Polkit *polkit_free(Polkit *pk)
{
	if (!pk)
		return NULL;
	/* every check is on the bus, libdbus's: query_free() frees its
	 * waiters when the connection lets go of it */
	while (pk->pending)
		query_release(pk->pending);
	free(pk);
	return NULL;
}

void polkit_set_timeout(Polkit *pk, unsigned timeout_ms)
{
	pk->timeout_ms = timeout_ms;
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

static bool same_subject(const PolkitCacheEntry *a, const PolkitCacheEntry *b)
{
	return a->pid == b->pid && a->start_time == b->start_time && a->uid == b->uid &&
	       streq(a->bus_name, b->bus_name) && streq(a->action, b->action);
}

static PolkitCacheEntry *cache_entry(const PolkitCache *c, const PolkitCacheEntry *key,
				     uint64_t now)
{
	for (size_t i = 0; i < POLKIT_CACHE_SIZE; i++) {
		const PolkitCacheEntry *e = &c->entries[i];

		if (e->expires_usec > now && same_subject(e, key) &&
		    (e->result > 0 || e->interactive == key->interactive))
			return (PolkitCacheEntry *)e;
	}
	return NULL;
}

int polkit_cache_lookup(const PolkitCache *c, const PolkitCacheEntry *key, uint64_t now)
{
	const PolkitCacheEntry *e = cache_entry(c, key, now);

	return e ? (e->result > 0 ? 1 : 0) : -ENOENT;
}

bool polkit_cache_find(const PolkitCache *c, const PolkitCacheEntry *key, uint64_t now)
{
	return polkit_cache_lookup(c, key, now) == 1;
}

void polkit_cache_put(PolkitCache *c, const PolkitCacheEntry *key, int r, uint64_t now)
{
	PolkitCacheEntry *slot = &c->entries[0];

	/* a "no" for a grant may turn into a "yes" any moment (a session
	 * becomes active); one for a connection's manage call is kept a
	 * moment, so that its pipelined calls are one question */
	if (r < 0 || (r == 0 && !key->bus_name[0]))
		return;
	for (size_t i = 0; i < POLKIT_CACHE_SIZE; i++) {
		PolkitCacheEntry *e = &c->entries[i];

		if (e->expires_usec > now && same_subject(e, key)) {
			slot = e; /* the newer answer replaces the older */
			break;
		}
		if (e->expires_usec < slot->expires_usec)
			slot = e;
	}
	*slot = *key;
	slot->result = r > 0 ? 1 : 0;
	slot->expires_usec = now + (r > 0 ? POLKIT_CACHE_USEC : POLKIT_NO_CACHE_USEC);
}

void polkit_cache_flush(PolkitCache *c)
{
	memset(c, 0, sizeof(*c));
}

/* Takes q off the pending list and gives back its place in the counts:
 * from here on, a new check of the same subject is a new question. Once
 * only: q is then no Polkit's any more. */
static void query_release(PolkitQuery *q)
{
	Polkit *pk = q->pk;
	unsigned *n;

	if (!pk)
		return;
	if (q->prev)
		q->prev->next = q->next;
	else if (pk->pending == q)
		pk->pending = q->next;
	if (q->next)
		q->next->prev = q->prev;
	q->prev = q->next = NULL;
	n = q->pool == POLKIT_POOL_MANAGE ? &q->user->polkit_manage : &q->user->polkit_grant;
	(*n)--;
	pk->n_pending[q->pool]--;
	if (q->key.interactive) {
		q->user->polkit_interactive = false;
		pk->n_interactive--;
	}
	q->pk = NULL;
}

static void query_destroy(PolkitQuery *q)
{
	free(q->waiters);
	free(q);
}

static void on_reply(DBusPendingCall *call, void *data)
{
	PolkitQuery *q = data;
	Polkit *pk = q->pk;
	DBusMessage *reply;
	int r;

	if (!pk)
		return; /* realtimed is exiting: query_free() frees the waiters */
	reply = dbus_pending_call_steal_reply(call);
	r = reply ? polkit_reply_parse(reply) : -ETIMEDOUT;
	if (reply)
		dbus_message_unref(reply);
	polkit_cache_put(&pk->cache, &q->key, r, now_usec(CLOCK_MONOTONIC));
	q->done = true;
	query_release(q);
	/* each waiter once; a callback may ask polkit again (q is off the list) */
	for (size_t i = 0; i < q->n_waiters; i++)
		q->waiters[i].cb(r, q->waiters[i].userdata);
}

static void query_free(void *data)
{
	PolkitQuery *q = data;

	if (!q->done) {
		query_release(q);
		for (size_t i = 0; i < q->n_waiters; i++)
			if (q->waiters[i].free_userdata)
				q->waiters[i].free_userdata(q->waiters[i].userdata);
	}
	query_destroy(q);
}

static int query_add_waiter(PolkitQuery *q, polkit_callback_t cb, void *userdata,
			    void (*free_userdata)(void *))
{
	PolkitWaiter *w;

	if (q->n_waiters >= POLKIT_WAITERS_MAX)
		return -EBUSY;
	w = realloc(q->waiters, (q->n_waiters + 1) * sizeof(*w));
	if (!w)
		return -ENOMEM;
	q->waiters = w;
	q->waiters[q->n_waiters++] =
		(PolkitWaiter){ .cb = cb, .userdata = userdata, .free_userdata = free_userdata };
	return 0;
}

/* Takes a place for uid's check in pool's counts: 0, -EBUSY when the
 * pool is full (or, interactive, the interactive checks are, or uid has
 * one already), -EDQUOT when uid holds its share of the pool. */
static int query_take(Polkit *pk, PolkitPool pool, uid_t uid, bool interactive, User **ret_user)
{
	bool manage = pool == POLKIT_POOL_MANAGE;
	User *u = users_get(pk->users, uid, now_usec(CLOCK_MONOTONIC));
	unsigned *n;

	if (!u)
		return -ENOMEM;
	n = manage ? &u->polkit_manage : &u->polkit_grant;
	if (pk->n_pending[pool] >= (manage ? POLKIT_MANAGE_MAX : POLKIT_GRANT_MAX))
		return -EBUSY;
	if (*n >= (manage ? POLKIT_MANAGE_PER_UID : POLKIT_GRANT_PER_UID))
		return -EDQUOT;
	if (interactive && (u->polkit_interactive || pk->n_interactive >= POLKIT_INTERACTIVE_MAX))
		return -EBUSY;
	(*n)++;
	pk->n_pending[pool]++;
	if (interactive) {
		u->polkit_interactive = true;
		pk->n_interactive++;
	}
	*ret_user = u;
	return 0;
}

/* Puts q's question m on the bus; libdbus owns q from here on
 * (query_free()). Interactive checks may wait minutes for a password. */
static int query_send(PolkitQuery *q, DBusMessage *m)
{
	Polkit *pk = q->pk;
	DBusPendingCall *call = NULL;
	int timeout_ms = q->key.interactive ? POLKIT_INTERACTIVE_TIMEOUT_MS : (int)pk->timeout_ms;

	if (!dbus_connection_send_with_reply(pk->bus, m, &call, timeout_ms))
		return -ENOMEM;
	if (!call)
		return -ENOTCONN; /* the bus is gone */
	if (!dbus_pending_call_set_notify(call, on_reply, q, query_free)) {
		/* not freed by libdbus: q is still the caller's */
		dbus_pending_call_cancel(call);
		dbus_pending_call_unref(call);
		return -ENOMEM;
	}
	dbus_pending_call_unref(call);
	return 0;
}

/* The check of key from pool: see polkit_check() and polkit_check_bus_name(). */
static int check(Polkit *pk, const PolkitCacheEntry *key, PolkitPool pool, polkit_callback_t cb,
		 void *userdata, void (*free_userdata)(void *))
{
	_cleanup_msg_ DBusMessage *m = NULL;
	PolkitQuery *q;
	User *u;
	int r;

	r = polkit_cache_lookup(&pk->cache, key, now_usec(CLOCK_MONOTONIC));
	if (r >= 0)
		return r == 1 ? 1 : 2;
	/* the same question is asked already: wait for its answer */
	for (q = pk->pending; q; q = q->next)
		if (q->pool == pool && same_subject(&q->key, key) &&
		    q->key.interactive == key->interactive)
			return query_add_waiter(q, cb, userdata, free_userdata);

	r = polkit_message_new(key, &m);
	if (r < 0)
		return r;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (PolkitQuery){ .key = *key, .pool = pool };
	r = query_add_waiter(q, cb, userdata, free_userdata);
	if (r >= 0)
		r = query_take(pk, pool, key->uid, key->interactive, &u);
	if (r < 0) {
		query_destroy(q);
		return r;
	}
	q->pk = pk;
	q->user = u;
	q->next = pk->pending;
	if (pk->pending)
		pk->pending->prev = q;
	pk->pending = q;
	r = query_send(q, m);
	if (r < 0) {
		/* undo by hand: the caller keeps userdata */
		q->n_waiters = 0;
		query_release(q);
		query_destroy(q);
		return r;
	}
	return 0;
}

int polkit_check(Polkit *pk, const char *action, pid_t pid, uint64_t start_time, uid_t uid,
		 polkit_callback_t cb, void *userdata, void (*free_userdata)(void *))
{
	PolkitCacheEntry key = { .pid = pid, .start_time = start_time, .uid = uid };

	snprintf(key.action, sizeof(key.action), "%s", action);
	return check(pk, &key, POLKIT_POOL_GRANT, cb, userdata, free_userdata);
}

int polkit_check_bus_name(Polkit *pk, const char *action, const char *bus_name, uid_t uid,
			  bool interactive, polkit_callback_t cb, void *userdata,
			  void (*free_userdata)(void *))
{
	PolkitCacheEntry key = { .uid = uid, .interactive = interactive };

	/* dbus-daemon's unique names (":1.N") fit */
	if (!bus_name[0] || strlen(bus_name) >= sizeof(key.bus_name))
		return -EINVAL;
	snprintf(key.action, sizeof(key.action), "%s", action);
	snprintf(key.bus_name, sizeof(key.bus_name), "%s", bus_name);
	return check(pk, &key, POLKIT_POOL_MANAGE, cb, userdata, free_userdata);
}

/* The question to polkitd (CheckAuthorization) and its answer. */
static bool append_subject(DBusMessageIter *it, const PolkitCacheEntry *key)
{
	DBusMessageIter st, dict;
	uint32_t p = (uint32_t)key->pid, u = (uint32_t)key->uid;
	uint64_t start_time = key->start_time;
	const char *name = key->bus_name;

	if (!dbus_message_iter_open_container(it, DBUS_TYPE_STRUCT, NULL, &st))
		return false;
	if (name[0]) {
		/* polkitd asks dbus-daemon who the connection is, now */
		if (!bus_append_string(&st, "system-bus-name") ||
		    !dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "{sv}", &dict) ||
		    !bus_append_dict_variant(&dict, "name", DBUS_TYPE_STRING, &name))
			return false;
	} else if (!bus_append_string(&st, "unix-process") ||
		   !dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "{sv}", &dict) ||
		   !bus_append_dict_variant(&dict, "pid", DBUS_TYPE_UINT32, &p) ||
		   !bus_append_dict_variant(&dict, "start-time", DBUS_TYPE_UINT64, &start_time) ||
		   !bus_append_dict_variant(&dict, "uid", DBUS_TYPE_UINT32, &u))
		return false;
	return dbus_message_iter_close_container(&st, &dict) &&
	       dbus_message_iter_close_container(it, &st);
}

int polkit_message_new(const PolkitCacheEntry *key, DBusMessage **ret)
{
	_cleanup_msg_ DBusMessage *m = NULL;
	DBusMessageIter it, details;
	const char *cancel = "";
	/* CheckAuthorizationFlags: 1 is AllowUserInteraction */
	uint32_t flags = key->interactive ? 1 : 0;

	m = dbus_message_new_method_call(POLKIT_NAME, POLKIT_PATH, POLKIT_IFACE,
					 "CheckAuthorization");
	if (!m)
		return -ENOMEM;
	dbus_message_iter_init_append(m, &it);
	if (!append_subject(&it, key) || !bus_append_string(&it, key->action) ||
	    !dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{ss}", &details) ||
	    !dbus_message_iter_close_container(&it, &details) ||
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags) ||
	    !bus_append_string(&it, cancel))
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int polkit_reply_parse(DBusMessage *reply)
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
