// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Callers served in turn; see bus-queue.h. Each sender with calls waiting
 * has a Caller: its calls in arrival order, its uid once known, and the turn
 * it was last served at. A user's callers share one UidTurn, so a user with
 * sixteen connections gets one turn, as a user with one. The next call
 * served is the one whose user (or, before its uid is known, whose sender)
 * was served longest ago; a new sender counts as served at the moment it
 * arrived, so opening connections buys no turns ahead of those waiting.
 * Picking scans the callers: a few in practice, at most one per queued call.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-queue.h"
#include "bus.h"
#include "log.h"
#include "macro.h"

/* Past BUS_QUEUE_SOFT_MAX calls waiting in all, a sender that already has
 * BUS_QUEUE_CROWD of them is refused: the crowd pays, a caller with a few
 * calls still gets in. Past BUS_QUEUE_HARD_MAX calls are handled at once, in
 * arrival order, as libdbus would; libdbus's own limit bounds that. */
#define BUS_QUEUE_SOFT_MAX 8192
#define BUS_QUEUE_HARD_MAX 16384
#define BUS_QUEUE_CROWD 8

typedef struct Call {
	struct Call *next;
	DBusMessage *m;
	int object;
} Call;

typedef struct UidTurn {
	uid_t uid;
	uint64_t served;
	unsigned refs;
	/* the pace (GCRA): when this user's next call is due (nsec), at one
	 * call per interval, burst calls ahead */
	uint64_t due_nsec;
} UidTurn;

typedef struct Caller {
	char *sender;
	Call *head, *tail;
	unsigned queued;
	uint64_t served;
	/* index into BusQueue.turns, -1 while the uid is not known */
	int turn;
} Caller;

typedef struct Object {
	char *path;
	DBusObjectPathVTable vtable;
	void *data;
} Object;

struct BusQueue {
	Caller **callers;
	size_t n_callers, allocated_callers;
	UidTurn *turns;
	size_t n_turns;
	size_t queued;
	uint64_t clock;
	Object objects[BUS_QUEUE_OBJECTS_MAX];
	BusUidFunc uid_of;
	void *uid_data;
	uint64_t refused;
	uint64_t pace_nsec;
	unsigned pace_burst;
};

int bus_queue_new(BusQueue **ret)
{
	BusQueue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	bus_queue_pace(q, BUS_QUEUE_PACE_NSEC, BUS_QUEUE_PACE_BURST);
	*ret = q;
	return 0;
}

static void caller_free(Caller *c)
{
	while (c->head) {
		Call *k = c->head;

		c->head = k->next;
		dbus_message_unref(k->m);
		free(k);
	}
	free(c->sender);
	free(c);
}

void bus_queue_free(BusQueue *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n_callers; i++)
		caller_free(q->callers[i]);
	free(q->callers);
	free(q->turns);
	for (size_t i = 0; i < BUS_QUEUE_OBJECTS_MAX; i++)
		free(q->objects[i].path);
	free(q);
}

void bus_queue_set_uid_func(BusQueue *q, BusUidFunc fn, void *userdata)
{
	q->uid_of = fn;
	q->uid_data = userdata;
}

static int object_index(const BusQueue *q, const char *path)
{
	if (!path)
		return -1;
	for (int i = 0; i < BUS_QUEUE_OBJECTS_MAX; i++)
		if (q->objects[i].path && streq(q->objects[i].path, path))
			return i;
	return -1;
}

int bus_queue_add_object(BusQueue *q, const char *path, const DBusObjectPathVTable *vtable,
			 void *data)
{
	int i = object_index(q, path);

	if (i < 0)
		for (i = 0; i < BUS_QUEUE_OBJECTS_MAX && q->objects[i].path; i++)
			;
	if (i >= BUS_QUEUE_OBJECTS_MAX)
		return -ENOSPC;
	if (!q->objects[i].path && !(q->objects[i].path = strdup(path)))
		return -ENOMEM;
	q->objects[i].vtable = *vtable;
	q->objects[i].data = data;
	return 0;
}

void bus_queue_remove_object(BusQueue *q, const char *path)
{
	int i = object_index(q, path);

	if (i >= 0)
		q->objects[i].path = mfree(q->objects[i].path);
}

size_t bus_queue_length(const BusQueue *q)
{
	return q->queued;
}

static Caller *caller_get(BusQueue *q, const char *sender)
{
	Caller *c;

	for (size_t i = 0; i < q->n_callers; i++)
		if (streq(q->callers[i]->sender, sender))
			return q->callers[i];
	if (q->n_callers == q->allocated_callers) {
		size_t n = q->allocated_callers ? q->allocated_callers * 2 : 16;
		Caller **a = reallocarray(q->callers, n, sizeof(*a));

		if (!a)
			return NULL;
		q->callers = a;
		q->allocated_callers = n;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->sender = strdup(sender);
	if (!c->sender) {
		free(c);
		return NULL;
	}
	c->turn = -1;
	/* counts as served now: behind everyone already waiting */
	c->served = q->clock;
	q->callers[q->n_callers++] = c;
	return c;
}

/* Drops c, which has no call waiting, from the callers (its user's turn
 * stays while its pace counts). */
static void caller_forget(BusQueue *q, Caller *c)
{
	for (size_t i = 0; i < q->n_callers; i++)
		if (q->callers[i] == c) {
			q->callers[i] = q->callers[--q->n_callers];
			break;
		}
	if (c->turn >= 0)
		q->turns[c->turn].refs--;
	caller_free(c);
}

/* Too many calls wait: refuse this one, the sender being part of the crowd. */
static void refuse(BusQueue *q, DBusConnection *conn, DBusMessage *m, const char *sender,
		   unsigned queued)
{
	/* a log line per 1024 refusals: the flood must not fill the journal */
	if (q->refused++ % 1024 == 0)
		log_warning("Refusing calls of %s: %u of its calls already wait (%zu in all)",
			    sender, queued, q->queued);
	bus_reply_error(conn, m, DBUS_ERROR_LIMITS_EXCEEDED,
			"Too many calls of this connection are waiting; wait for their answers");
}

/* Joins c to its user's turn, once its uid is known. A user's turn outlives
 * its callers while its pace still counts (due_nsec ahead of now), so that
 * calls sent one after another, each alone in the queue, are paced as a
 * pipelined burst is; at most BUS_QUEUE_TURNS_MAX are kept, the one due
 * soonest given up first. */
static void caller_learn_uid(BusQueue *q, Caller *c, DBusMessage *m, bool may_block,
			     uint64_t now_ns)
{
	size_t slot = SIZE_MAX;
	UidTurn *t;
	uid_t uid;

	if (c->turn >= 0 || !q->uid_of || q->uid_of(m, may_block, &uid, q->uid_data) < 0)
		return;
	for (size_t i = 0; i < q->n_turns; i++) {
		t = &q->turns[i];
		if ((t->refs > 0 || t->due_nsec > now_ns) && t->uid == uid) {
			if (t->refs++ == 0)
				/* back after a pause: behind those waiting */
				t->served = c->served;
			c->turn = (int)i;
			return;
		}
		if (t->refs == 0 && (slot == SIZE_MAX || t->due_nsec < q->turns[slot].due_nsec))
			slot = i;
	}
	if ((slot == SIZE_MAX || q->turns[slot].due_nsec > now_ns) &&
	    q->n_turns < BUS_QUEUE_TURNS_MAX) {
		t = reallocarray(q->turns, q->n_turns + 1, sizeof(*t));
		if (!t)
			return;
		q->turns = t;
		slot = q->n_turns++;
	}
	if (slot == SIZE_MAX)
		return; /* every turn in use: c stays a turn of its own */
	q->turns[slot] = (UidTurn){ .uid = uid, .served = c->served, .refs = 1 };
	c->turn = (int)slot;
}

bool bus_queue_push(BusQueue *q, DBusConnection *conn, DBusMessage *m, uint64_t now)
{
	const char *sender = dbus_message_get_sender(m);
	int object;
	Caller *c;
	Call *k;

	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL || !sender ||
	    q->queued >= BUS_QUEUE_HARD_MAX)
		return false;
	object = object_index(q, dbus_message_get_path(m));
	if (object < 0)
		return false;
	c = caller_get(q, sender);
	if (!c)
		return false; /* out of memory: handled now, as before */
	/* a sender seen before joins its user's turn (and pace) at once */
	caller_learn_uid(q, c, m, false, now * 1000);
	if (c->queued >= BUS_QUEUE_PER_SENDER ||
	    (q->queued >= BUS_QUEUE_SOFT_MAX && c->queued >= BUS_QUEUE_CROWD)) {
		refuse(q, conn, m, sender, c->queued);
		return true;
	}
	k = malloc(sizeof(*k));
	if (!k) {
		/* handled now, as before; a caller is never left empty */
		if (c->queued == 0)
			caller_forget(q, c);
		return false;
	}
	*k = (Call){ .m = dbus_message_ref(m), .object = object };
	if (c->tail)
		c->tail->next = k;
	else
		c->head = k;
	c->tail = k;
	c->queued++;
	q->queued++;
	return true;
}

void bus_queue_pace(BusQueue *q, uint64_t interval_nsec, unsigned burst)
{
	q->pace_nsec = interval_nsec;
	q->pace_burst = burst > 0 ? burst : 1;
}

/* How long (nsec) c must wait for its user's pace, 0 when it may be served
 * at now (nsec). root and senders whose uid is not known yet are not paced. */
static uint64_t caller_wait(const BusQueue *q, const Caller *c, uint64_t now)
{
	uint64_t ahead = (uint64_t)(q->pace_burst - 1) * q->pace_nsec;
	const UidTurn *t;

	if (c->turn < 0 || q->pace_nsec == 0)
		return 0;
	t = &q->turns[c->turn];
	if (t->uid == 0 || t->due_nsec <= now + ahead)
		return 0;
	return t->due_nsec - now - ahead;
}

static void turn_pace(const BusQueue *q, UidTurn *t, uint64_t now)
{
	t->due_nsec = (t->due_nsec > now ? t->due_nsec : now) + q->pace_nsec;
}

static uint64_t caller_key(const BusQueue *q, const Caller *c)
{
	return c->turn >= 0 ? q->turns[c->turn].served : c->served;
}

DBusMessage *bus_queue_pop(BusQueue *q, uint64_t now, int *ret_object_index,
			   uint64_t *ret_wait_usec)
{
	uint64_t wait = UINT64_MAX, now_ns = now * 1000;
	size_t best = SIZE_MAX;
	DBusMessage *m;
	Caller *c;
	Call *k;

	for (size_t i = 0; i < q->n_callers; i++) {
		const Caller *b = best == SIZE_MAX ? NULL : q->callers[best];
		const Caller *x = q->callers[i];
		uint64_t w = caller_wait(q, x, now_ns);

		if (w > 0) {
			if (w < wait)
				wait = w;
			continue;
		}
		if (!b || caller_key(q, x) < caller_key(q, b) ||
		    (caller_key(q, x) == caller_key(q, b) && x->served < b->served))
			best = i;
	}
	/* rounded up: woken before the call is due, the loop would spin */
	*ret_wait_usec = best == SIZE_MAX && wait != UINT64_MAX ? (wait + 999) / 1000 : 0;
	if (best == SIZE_MAX)
		return NULL;
	c = q->callers[best];
	k = c->head;
	c->head = k->next;
	if (!c->head)
		c->tail = NULL;
	c->queued--;
	q->queued--;
	m = k->m;
	*ret_object_index = q->objects[k->object].path ? k->object : -1;
	free(k);

	caller_learn_uid(q, c, m, true, now_ns);
	c->served = ++q->clock;
	if (c->turn >= 0) {
		q->turns[c->turn].served = c->served;
		turn_pace(q, &q->turns[c->turn], now_ns);
	}
	if (!c->head) {
		/* a caller with nothing waiting is forgotten */
		caller_forget(q, c);
	}
	return m;
}

int bus_queue_serve(BusQueue *q, DBusConnection *conn, uint64_t now, uint64_t *ret_wait_usec)
{
	DBusMessage *m;
	int object;

	m = bus_queue_pop(q, now, &object, ret_wait_usec);
	if (!m)
		return 0;
	if (object < 0)
		bus_reply_error(conn, m, DBUS_ERROR_UNKNOWN_OBJECT, "No object at %s",
				dbus_message_get_path(m));
	else {
		Object *o = &q->objects[object];

		if (o->vtable.message_function(conn, m, o->data) ==
		    DBUS_HANDLER_RESULT_NOT_YET_HANDLED)
			bus_reply_error(conn, m, DBUS_ERROR_UNKNOWN_METHOD,
					"No method %s with signature '%s' in interface %s",
					dbus_message_get_member(m), dbus_message_get_signature(m),
					dbus_message_get_interface(m) ?: "(none)");
	}
	dbus_message_unref(m);
	return 1;
}
