// SPDX-License-Identifier: GPL-2.0-or-later
/* Asynchronous polkit checks: a short cache, joined questions, a few at a
 * time at polkitd, round-robin across uids; see polkit.h. The pools of
 * slots they wait in: polkit-slots.c; the question and its answer on the
 * wire: polkit-message.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "log.h"
#include "macro.h"
#include "polkit.h"
#include "time-util.h"

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
	/* every check not answered yet, on the bus or queued here; later
	 * checks of the same subject join them */
	PolkitQuery *pending;
	/* the checks on the bus that count against POLKIT_SENT_MAX, per pool */
	unsigned n_sent[_POLKIT_POOL_MAX];
	uint64_t vtime;	     /* the turn of the check sent last */
	uint64_t seq;	     /* the order checks were asked in */
	unsigned timeout_ms; /* POLKIT_CHECK_TIMEOUT_MS */
	/* uids waiting for an interactive check; (uid_t)-1: a free slot */
	uid_t interactive[POLKIT_INTERACTIVE_MAX];
};

struct PolkitQuery {
	Polkit *pk; /* NULL once polkit_free() let go of a check on the bus */
	PolkitQuery *prev, *next;
	PolkitCacheEntry key;
	PolkitPool pool;
	uid_t *slot;		 /* in Polkit.slots */
	uid_t *interactive_slot; /* in Polkit.interactive, or NULL */
	PolkitWaiter *waiters;
	size_t n_waiters;
	DBusMessage *m; /* the question, while it is queued */
	uint64_t turn;	/* round-robin: the lowest turn goes out first */
	uint64_t seq;	/* then the oldest */
	uint64_t deadline_usec;
	bool sent;
	bool done;
};

static void query_release(PolkitQuery *q);
static void query_destroy(PolkitQuery *q);

int polkit_new(DBusConnection *bus, Polkit **ret)
{
	Polkit *pk = calloc(1, sizeof(*pk));

	if (!pk)
		return -ENOMEM;
	pk->bus = bus;
	pk->timeout_ms = POLKIT_CHECK_TIMEOUT_MS;
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
	if (!pk)
		return NULL;
	while (pk->pending) {
		PolkitQuery *q = pk->pending;
		bool sent = q->sent;

		query_release(q);
		/* a check on the bus is libdbus's: query_free() frees its
		 * waiters when the connection lets go of it */
		if (sent)
			continue;
		for (size_t i = 0; i < q->n_waiters; i++)
			if (q->waiters[i].free_userdata)
				q->waiters[i].free_userdata(q->waiters[i].userdata);
		query_destroy(q);
	}
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

/* Takes q off the pending list and gives back its slots, its place on the
 * bus included: from here on, a new check of the same subject is a new
 * question. Once only: q is then no Polkit's any more. */
static void query_release(PolkitQuery *q)
{
	Polkit *pk = q->pk;

	if (!pk)
		return;
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
	if (q->sent && !q->key.interactive)
		pk->n_sent[q->pool]--;
	q->pk = NULL;
}

/* Frees a check that is not on the bus (libdbus does not own it). */
static void query_destroy(PolkitQuery *q)
{
	if (q->m)
		dbus_message_unref(q->m);
	free(q->waiters);
	free(q);
}

/* Ends a check that never went out: each waiter told r (< 0) once. */
static void query_fail(PolkitQuery *q, int r)
{
	query_release(q);
	/* a callback may ask polkit again (q is off the list) */
	for (size_t i = 0; i < q->n_waiters; i++)
		q->waiters[i].cb(r, q->waiters[i].userdata);
	query_destroy(q);
}

static void dispatch(Polkit *pk);

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
	/* its place at polkitd is free: the next queued check goes out */
	dispatch(pk);
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

/* Whether a non-interactive check of pool may go to polkitd now. */
static bool can_send(const Polkit *pk, PolkitPool pool)
{
	if (pk->n_sent[POLKIT_POOL_GRANT] + pk->n_sent[POLKIT_POOL_MANAGE] >= POLKIT_SENT_MAX)
		return false;
	return pool != POLKIT_POOL_MANAGE ||
	       pk->n_sent[POLKIT_POOL_MANAGE] < POLKIT_SENT_MANAGE_MAX;
}

/* Puts q's question on the bus; libdbus owns q from here on (query_free()). */
static int query_send(PolkitQuery *q)
{
	Polkit *pk = q->pk;
	DBusPendingCall *call = NULL;
	int timeout_ms = POLKIT_INTERACTIVE_TIMEOUT_MS;

	if (!q->key.interactive) {
		uint64_t now = now_usec(CLOCK_MONOTONIC);

		/* the time it waited here counts */
		timeout_ms =
			q->deadline_usec > now ? (int)((q->deadline_usec - now + 999) / 1000) : 1;
	}
	if (!dbus_connection_send_with_reply(pk->bus, q->m, &call, timeout_ms))
		return -ENOMEM;
	if (!call)
		return -ENOTCONN; /* the bus is gone */
	q->sent = true;
	if (!q->key.interactive)
		pk->n_sent[q->pool]++;
	if (!dbus_pending_call_set_notify(call, on_reply, q, query_free)) {
		/* not freed by libdbus: q is still the caller's */
		q->sent = false;
		if (!q->key.interactive)
			pk->n_sent[q->pool]--;
		dbus_pending_call_cancel(call);
		dbus_pending_call_unref(call);
		return -ENOMEM;
	}
	dbus_pending_call_unref(call);
	dbus_message_unref(q->m);
	q->m = NULL;
	return 0;
}

/* The turn of uid's next check: one after its latest one not answered
 * yet, and not before the check sent last. A uid with none waiting goes
 * out next but for the uids already waiting there: one user's queue
 * delays another's first check by one check per other waiting uid. */
static uint64_t next_turn(const Polkit *pk, uid_t uid)
{
	uint64_t turn = pk->vtime;

	for (const PolkitQuery *q = pk->pending; q; q = q->next)
		if (q->key.uid == uid && !q->key.interactive && q->turn + 1 > turn)
			turn = q->turn + 1;
	return turn;
}

/* Sends queued checks while polkitd has room (can_send()), the lowest turn
 * first, then the oldest; ends those that waited past their deadline
 * (polkitd hangs, and the checks on the bus time out one after another). */
static void dispatch(Polkit *pk)
{
	for (;;) {
		uint64_t now = now_usec(CLOCK_MONOTONIC);
		PolkitQuery *next = NULL, *q;
		int r;

		for (q = pk->pending; q; q = q->next)
			if (!q->sent && q->deadline_usec <= now)
				break;
		if (q) {
			log_warning("polkit check for uid %u waited %u ms without reaching polkitd",
				    (unsigned)q->key.uid, pk->timeout_ms);
			query_fail(q, -ETIMEDOUT);
			continue; /* the callbacks may have changed the list */
		}
		for (q = pk->pending; q; q = q->next)
			if (!q->sent && can_send(pk, q->pool) &&
			    (!next || q->turn < next->turn ||
			     (q->turn == next->turn && q->seq < next->seq)))
				next = q;
		if (!next)
			return;
		if (next->turn > pk->vtime)
			pk->vtime = next->turn;
		r = query_send(next);
		if (r < 0) {
			log_warning("could not ask polkit: %s", strerror(-r));
			query_fail(next, r);
		}
	}
}

/* The check of key from pool: see polkit_check() and polkit_check_bus_name(). */
static int check(Polkit *pk, const PolkitCacheEntry *key, PolkitPool pool, polkit_callback_t cb,
		 void *userdata, void (*free_userdata)(void *))
{
	_cleanup_msg_ DBusMessage *m = NULL;
	uid_t *slot = NULL, *islot = NULL;
	PolkitQuery *q;
	int r;

	r = polkit_cache_lookup(&pk->cache, key, now_usec(CLOCK_MONOTONIC));
	if (r >= 0)
		return r == 1 ? 1 : 2;
	/* the same question is asked already (on the bus or queued): wait for its answer */
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
	*q = (PolkitQuery){ .pk = pk,
			    .key = *key,
			    .pool = pool,
			    .slot = slot,
			    .m = TAKE_PTR(m),
			    .turn = key->interactive ? 0 : next_turn(pk, key->uid),
			    .seq = pk->seq++,
			    .deadline_usec = now_usec(CLOCK_MONOTONIC) + pk->timeout_ms * 1000ULL };
	if (query_add_waiter(q, cb, userdata, free_userdata) < 0) {
		query_destroy(q);
		goto fail;
	}
	if (islot)
		*islot = key->uid;
	q->interactive_slot = islot;
	q->next = pk->pending;
	if (pk->pending)
		pk->pending->prev = q;
	pk->pending = q;
	/* Interactive checks may wait minutes for a password: they go out at
	 * once, outside the count (they are few: POLKIT_INTERACTIVE_MAX, one per
	 * uid). The others go out now when polkitd has room, else they wait
	 * their turn here (dispatch()). */
	if (!key->interactive && !can_send(pk, pool))
		return 0;
	if (!key->interactive && q->turn > pk->vtime)
		pk->vtime = q->turn;
	r = query_send(q);
	if (r < 0) {
		/* undo by hand: the caller keeps userdata */
		q->n_waiters = 0;
		query_release(q);
		query_destroy(q);
		return r;
	}
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
