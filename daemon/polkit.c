// SPDX-License-Identifier: GPL-2.0-or-later
/* Asynchronous polkit checks: pools of slots, a short cache, joined questions; see polkit.h. */
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

typedef struct PolkitWaiter {
	polkit_callback_t cb;
	void *userdata;
	void (*free_userdata)(void *);
} PolkitWaiter;

typedef struct PolkitQuery PolkitQuery;

struct Polkit {
	DBusConnection *bus;
	PolkitCache cache;
	PolkitSlots slots;
	PolkitQuery *pending; /* the checks on the bus, which later ones join */
	/* uids waiting for an interactive check; (uid_t)-1: a free slot */
	uid_t interactive[POLKIT_INTERACTIVE_MAX];
};

struct PolkitQuery {
	Polkit *pk;
	PolkitQuery *prev, *next;
	PolkitCacheEntry key;
	PolkitPool pool;
	uid_t *slot;		 /* in Polkit.slots */
	uid_t *interactive_slot; /* in Polkit.interactive, or NULL */
	PolkitWaiter *waiters;
	size_t n_waiters;
	bool done;
};

void polkit_slots_init(PolkitSlots *s)
{
	memset(s->n, 0, sizeof(s->n));
	for (size_t i = 0; i < POLKIT_GRANT_MAX; i++)
		s->grant[i] = (uid_t)-1;
	for (size_t i = 0; i < POLKIT_MANAGE_MAX; i++)
		s->manage[i] = (uid_t)-1;
}

static uid_t *pool_slots(const PolkitSlots *s, PolkitPool pool, size_t *ret_n,
			 unsigned *ret_per_uid)
{
	if (pool == POLKIT_POOL_MANAGE) {
		*ret_n = POLKIT_MANAGE_MAX;
		*ret_per_uid = POLKIT_MANAGE_PER_UID;
		return (uid_t *)s->manage;
	}
	*ret_n = POLKIT_GRANT_MAX;
	*ret_per_uid = POLKIT_GRANT_PER_UID;
	return (uid_t *)s->grant;
}

unsigned polkit_slots_count(const PolkitSlots *s, PolkitPool pool, uid_t uid)
{
	unsigned per_uid, n = 0;
	size_t size;
	uid_t *v = pool_slots(s, pool, &size, &per_uid);

	for (size_t i = 0; i < size; i++)
		if (v[i] == uid)
			n++;
	return n;
}

int polkit_slots_take(PolkitSlots *s, PolkitPool pool, uid_t uid, uid_t **ret_slot)
{
	unsigned per_uid, n = 0;
	uid_t *v, *free_slot = NULL;
	size_t size;

	v = pool_slots(s, pool, &size, &per_uid);
	for (size_t i = 0; i < size; i++) {
		if (v[i] == uid)
			n++;
		else if (!free_slot && v[i] == (uid_t)-1)
			free_slot = &v[i];
	}
	if (!free_slot)
		return -EBUSY;
	if (n >= per_uid)
		return -EDQUOT;
	*free_slot = uid;
	s->n[pool]++;
	*ret_slot = free_slot;
	return 0;
}

void polkit_slots_put(PolkitSlots *s, PolkitPool pool, uid_t *slot)
{
	if (!slot || *slot == (uid_t)-1)
		return;
	*slot = (uid_t)-1;
	s->n[pool]--;
}

int polkit_new(DBusConnection *bus, Polkit **ret)
{
	Polkit *pk = calloc(1, sizeof(*pk));

	if (!pk)
		return -ENOMEM;
	pk->bus = bus;
	polkit_slots_init(&pk->slots);
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

/* Takes q off the pending list and gives back its slots: from here on, a
 * new check of the same subject is a new question. */
static void query_release(PolkitQuery *q)
{
	Polkit *pk = q->pk;

	if (q->prev)
		q->prev->next = q->next;
	else if (pk->pending == q)
		pk->pending = q->next;
	if (q->next)
		q->next->prev = q->prev;
	q->prev = q->next = NULL;
	polkit_slots_put(&pk->slots, q->pool, q->slot);
	q->slot = NULL;
	if (q->interactive_slot)
		*q->interactive_slot = (uid_t)-1;
	q->interactive_slot = NULL;
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
	free(q->waiters);
	free(q);
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

/* The check of key from pool: see polkit_check() and polkit_check_bus_name(). */
static int check(Polkit *pk, const PolkitCacheEntry *key, PolkitPool pool, polkit_callback_t cb,
		 void *userdata, void (*free_userdata)(void *))
{
	_cleanup_msg_ DBusMessage *m = NULL;
	DBusPendingCall *call = NULL;
	uid_t *slot = NULL, *islot = NULL;
	PolkitQuery *q;
	int r;

	r = polkit_cache_lookup(&pk->cache, key, now_usec(CLOCK_MONOTONIC));
	if (r >= 0)
		return r == 1 ? 1 : 2;
	/* the same question is on the bus already: wait for its answer */
	for (q = pk->pending; q; q = q->next)
		if (q->pool == pool && same_subject(&q->key, key) &&
		    q->key.interactive == key->interactive)
			return query_add_waiter(q, cb, userdata, free_userdata);

	r = polkit_slots_take(&pk->slots, pool, key->uid, &slot);
	if (r < 0)
		return r;
	if (key->interactive) {
		islot = interactive_slot(pk, key->uid);
		if (!islot) {
			polkit_slots_put(&pk->slots, pool, slot);
			return -EBUSY;
		}
	}
	r = polkit_message_new(key, &m);
	if (r < 0)
		goto fail;
	r = -ENOMEM;
	q = calloc(1, sizeof(*q));
	if (!q)
		goto fail;
	*q = (PolkitQuery){ .pk = pk, .key = *key, .pool = pool, .slot = slot };
	if (query_add_waiter(q, cb, userdata, free_userdata) < 0) {
		free(q);
		goto fail;
	}
	if (!dbus_connection_send_with_reply(pk->bus, m, &call,
					     key->interactive ? POLKIT_INTERACTIVE_TIMEOUT_MS
							      : DBUS_TIMEOUT_USE_DEFAULT) ||
	    !call) {
		free(q->waiters);
		free(q);
		goto fail;
	}
	if (islot)
		*islot = key->uid;
	q->interactive_slot = islot;
	q->next = pk->pending;
	if (pk->pending)
		pk->pending->prev = q;
	pk->pending = q;
	if (!dbus_pending_call_set_notify(call, on_reply, q, query_free)) {
		/* not freed by libdbus: undo by hand, the caller keeps userdata */
		q->n_waiters = 0;
		query_release(q);
		free(q->waiters);
		free(q);
		dbus_pending_call_cancel(call);
		dbus_pending_call_unref(call);
		return -ENOMEM;
	}
	dbus_pending_call_unref(call);
	return 0;
fail:
	polkit_slots_put(&pk->slots, pool, slot);
	return r;
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
