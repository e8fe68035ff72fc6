// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Callers served in turn; see bus-queue.h. Each sender with calls waiting
 * has a Caller: its calls in arrival order, what is known of its uid, and
 * the turn it was last served at. A user's callers share one UidTurn, so a
 * user with sixteen connections gets one turn, as a user with one; the
 * callers whose uid cannot be learned share the unknown one. The next call
 * served is the one whose turn was served longest ago; a new sender counts
 * as served at the moment it arrived, so opening connections buys no turns
 * ahead of those waiting. Picking scans the callers: a few in practice, at
 * most one per queued call.
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

typedef enum CallerState {
	CALLER_KNOWN,	/* in its user's turn */
	CALLER_ASKING,	/* its uid is asked for: waits for the answer */
	CALLER_UNASKED, /* waits for a lookup to end, to ask for its uid */
	CALLER_UNKNOWN, /* its uid cannot be learned: in the unknown turn */
} CallerState;

typedef struct Caller {
	char *sender;
	Call *head, *tail;
	unsigned queued;
	uint64_t served;
	CallerState state;
	/* CALLER_KNOWN: index into BusQueue.turns */
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
	/* the callers whose uid cannot be learned (its uid unused) */
	UidTurn unknown;
	/* lookups asked for and not answered; callers waiting to be asked */
	unsigned lookups, unasked;
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

static Caller *caller_find(BusQueue *q, const char *sender)
{
	for (size_t i = 0; i < q->n_callers; i++)
		if (streq(q->callers[i]->sender, sender))
			return q->callers[i];
	return NULL;
}

/* A caller for a new sender, in no turn until caller_ask() says which. */
static Caller *caller_new(BusQueue *q, const char *sender)
{
	Caller *c;

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
	c->state = CALLER_ASKING;
	c->turn = -1;
	/* counts as served now: behind everyone already waiting */
	c->served = q->clock;
	q->callers[q->n_callers++] = c;
	return c;
}

/* c's turn: its user's, the unknown one, or NULL while it waits for its
 * uid. */
static UidTurn *caller_turn(BusQueue *q, const Caller *c)
{
	switch (c->state) {
	case CALLER_KNOWN:
		return &q->turns[c->turn];
	case CALLER_UNKNOWN:
		return &q->unknown;
	case CALLER_ASKING:
	case CALLER_UNASKED:
		break;
	}
	return NULL;
}

/* Drops c, and the calls it has waiting, from the callers (its user's turn
 * stays while its pace counts). */
static void caller_forget(BusQueue *q, Caller *c)
{
	UidTurn *t = caller_turn(q, c);

	for (size_t i = 0; i < q->n_callers; i++)
		if (q->callers[i] == c) {
			q->callers[i] = q->callers[--q->n_callers];
			break;
		}
	if (t)
		t->refs--;
	if (c->state == CALLER_UNASKED)
		q->unasked--;
	q->queued -= c->queued;
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

/* The index of uid's turn, made when there is none; -1 when every turn is
 * in use (or no memory). A user's turn outlives its callers while its pace
 * still counts (due_nsec ahead of now), so that calls sent one after
 * another, each alone in the queue, are paced as a pipelined burst is; at
 * most BUS_QUEUE_TURNS_MAX are kept, the one due soonest given up first. */
static int turn_of(BusQueue *q, uid_t uid, uint64_t now_ns)
{
	size_t slot = SIZE_MAX;
	UidTurn *t;

	for (size_t i = 0; i < q->n_turns; i++) {
		t = &q->turns[i];
		if ((t->refs > 0 || t->due_nsec > now_ns) && t->uid == uid)
			return (int)i;
		if (t->refs == 0 && (slot == SIZE_MAX || t->due_nsec < q->turns[slot].due_nsec))
			slot = i;
	}
	if ((slot == SIZE_MAX || q->turns[slot].due_nsec > now_ns) &&
	    q->n_turns < BUS_QUEUE_TURNS_MAX) {
		t = reallocarray(q->turns, q->n_turns + 1, sizeof(*t));
		if (t) {
			q->turns = t;
			slot = q->n_turns++;
		}
	}
	if (slot == SIZE_MAX)
		return -1;
	q->turns[slot] = (UidTurn){ .uid = uid };
	return (int)slot;
}

static void turn_join(UidTurn *t, const Caller *c)
{
	if (t->refs++ == 0)
		/* back after a pause: behind those waiting */
		t->served = c->served;
}

/* Puts c, in no turn yet, in the unknown turn. */
static void caller_join_unknown(BusQueue *q, Caller *c)
{
	c->state = CALLER_UNKNOWN;
	turn_join(&q->unknown, c);
}

/* Puts c, in no turn yet, in the turn of uid. */
static void caller_join(BusQueue *q, Caller *c, uid_t uid, uint64_t now_ns)
{
	int i = turn_of(q, uid, now_ns);

	if (i < 0) {
		/* every turn in use: with the others of no known user */
		caller_join_unknown(q, c);
		return;
	}
	c->state = CALLER_KNOWN;
	c->turn = i;
	turn_join(&q->turns[i], c);
}

/* What became of the uid of c, in no turn: r as BusUidFunc's. False when c
 * was dropped, its sender being gone. */
static bool caller_learn(BusQueue *q, Caller *c, int r, uid_t uid, uint64_t now_ns)
{
	if (r >= 0)
		caller_join(q, c, uid, now_ns);
	else if (r == -ESRCH) {
		caller_forget(q, c);
		return false;
	} else
		caller_join_unknown(q, c);
	return true;
}

/* Asks for the uid of c, in no turn; false as caller_learn(). */
static bool caller_ask(BusQueue *q, Caller *c, uint64_t now_ns)
{
	uid_t uid = 0;
	int r;

	if (q->uid_of && q->lookups >= BUS_QUEUE_LOOKUPS_MAX) {
		c->state = CALLER_UNASKED;
		q->unasked++;
		return true;
	}
	r = q->uid_of ? q->uid_of(c->sender, &uid, q->uid_data) : -EOPNOTSUPP;
	if (r == -EINPROGRESS) {
		c->state = CALLER_ASKING;
		q->lookups++;
		return true;
	}
	return caller_learn(q, c, r, uid, now_ns);
}

/* A lookup ended: asks for the uid of the callers that wait for one, the
 * oldest first, while lookups may start. */
static void callers_ask_waiting(BusQueue *q, uint64_t now_ns)
{
	while (q->unasked > 0 && q->lookups < BUS_QUEUE_LOOKUPS_MAX) {
		Caller *oldest = NULL;

		for (size_t i = 0; i < q->n_callers; i++) {
			Caller *c = q->callers[i];

			if (c->state == CALLER_UNASKED && (!oldest || c->served < oldest->served))
				oldest = c;
		}
		if (!oldest) {
			/* cannot be (the count is kept with the states): no spin */
			q->unasked = 0;
			return;
		}
		q->unasked--;
		(void)caller_ask(q, oldest, now_ns);
	}
}

void bus_queue_lookup_done(BusQueue *q, const char *sender, int r, uid_t uid, uint64_t now)
{
	Caller *c = caller_find(q, sender);
	uint64_t now_ns = now * 1000;

	if (q->lookups > 0)
		q->lookups--;
	if (c && r == -ESRCH)
		caller_forget(q, c);
	else if (c && c->state == CALLER_ASKING)
		(void)caller_learn(q, c, r, uid, now_ns);
	callers_ask_waiting(q, now_ns);
}

/* The unique name the bus daemon says is gone (NameOwnerChanged with no new
 * owner), or NULL when m says nothing of the kind. */
static const char *name_gone(DBusMessage *m)
{
	const char *name, *old_owner, *new_owner;

	if (!dbus_message_is_signal(m, DBUS_INTERFACE_DBUS, "NameOwnerChanged") ||
	    !dbus_message_has_sender(m, DBUS_SERVICE_DBUS) ||
	    !dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &old_owner,
				   DBUS_TYPE_STRING, &new_owner, DBUS_TYPE_INVALID) ||
	    name[0] != ':' || !isempty(new_owner))
		return NULL;
	return name;
}

bool bus_queue_push(BusQueue *q, DBusConnection *conn, DBusMessage *m, uint64_t now)
{
	const char *sender = dbus_message_get_sender(m);
	int object;
	Caller *c;
	Call *k;

	if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_SIGNAL) {
		const char *gone = name_gone(m);

		c = gone ? caller_find(q, gone) : NULL;
		if (c)
			caller_forget(q, c);
		return false;
	}
	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL || !sender ||
	    q->queued >= BUS_QUEUE_HARD_MAX)
		return false;
	object = object_index(q, dbus_message_get_path(m));
	if (object < 0)
		return false;
	c = caller_find(q, sender);
	if (!c) {
		c = caller_new(q, sender);
		if (!c)
			return false; /* out of memory: handled now, as before */
		/* a sender seen before joins its user's turn (and pace) at once */
		if (!caller_ask(q, c, now * 1000))
			return true; /* gone: dropped */
	}
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

/* How long (nsec) c, in turn t, must wait for its pace, 0 when it may be
 * served at now (nsec). root's calls are not paced. */
static uint64_t caller_wait(const BusQueue *q, const Caller *c, const UidTurn *t, uint64_t now)
{
	uint64_t ahead = (uint64_t)(q->pace_burst - 1) * q->pace_nsec;

	if (q->pace_nsec == 0 || (c->state == CALLER_KNOWN && t->uid == 0) ||
	    t->due_nsec <= now + ahead)
		return 0;
	return t->due_nsec - now - ahead;
}

static void turn_pace(const BusQueue *q, UidTurn *t, uint64_t now)
{
	t->due_nsec = (t->due_nsec > now ? t->due_nsec : now) + q->pace_nsec;
}

DBusMessage *bus_queue_pop(BusQueue *q, uint64_t now, int *ret_object_index,
			   uint64_t *ret_wait_usec)
{
	uint64_t wait = UINT64_MAX, now_ns = now * 1000, best_key = 0;
	Caller *c = NULL;
	DBusMessage *m;
	UidTurn *t;
	Call *k;

	for (size_t i = 0; i < q->n_callers; i++) {
		Caller *x = q->callers[i];
		const UidTurn *xt = caller_turn(q, x);
		uint64_t w;

		if (!xt)
			continue; /* its uid is being asked for: the answer wakes us */
		w = caller_wait(q, x, xt, now_ns);
		if (w > 0) {
			if (w < wait)
				wait = w;
			continue;
		}
		if (!c || xt->served < best_key ||
		    (xt->served == best_key && x->served < c->served)) {
			c = x;
			best_key = xt->served;
		}
	}
	/* rounded up: woken before the call is due, the loop would spin */
	*ret_wait_usec = !c && wait != UINT64_MAX ? (wait + 999) / 1000 : 0;
	if (!c)
		return NULL;
	k = c->head;
	c->head = k->next;
	if (!c->head)
		c->tail = NULL;
	c->queued--;
	q->queued--;
	m = k->m;
	*ret_object_index = q->objects[k->object].path ? k->object : -1;
	free(k);

	c->served = ++q->clock;
	t = caller_turn(q, c);
	t->served = c->served;
	turn_pace(q, t, now_ns);
	if (!c->head)
		/* a caller with nothing waiting is forgotten */
		caller_forget(q, c);
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
