// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Callers served in turn; see bus-queue.h. Each sender with calls waiting
 * has a Caller: its calls in arrival order, what is known of its uid, and
 * the turn it was last served at. A user's callers share its entry in the
 * users' table (users.h: its turn and its pace), so a user with sixteen
 * connections gets one turn, as a user with one; the callers whose uid
 * cannot be learned share the overflow entry. The next call served is the
 * one whose user was served longest ago; a new sender counts as served at
 * the moment it arrived, so opening connections buys no turns ahead of
 * those waiting. Picking scans the callers: a few in practice, at most one
 * per queued call.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-queue.h"
#include "bus.h"
#include "log.h"
#include "macro.h"
#include "ratelimit.h"
#include "users.h"

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
	bool counted; /* a grant request (BusCountedFunc) */
} Call;

typedef enum CallerState {
	CALLER_KNOWN,	/* in its user's turn */
	CALLER_ASKING,	/* its uid is asked for: waits for the answer */
	CALLER_UNASKED, /* waits for a lookup to end, to ask for its uid */
	CALLER_UNKNOWN, /* its uid cannot be learned: in the overflow's turn */
} CallerState;

typedef struct Caller {
	char *sender;
	Call *head, *tail;
	unsigned queued;
	uint64_t served;
	CallerState state;
	User *user; /* CALLER_KNOWN and CALLER_UNKNOWN: whose turn */
} Caller;

typedef struct Object {
	char *path;
	DBusObjectPathVTable vtable;
	void *data;
} Object;

struct BusQueue {
	Caller **callers;
	size_t n_callers, allocated_callers;
	Users *users;
	/* lookups asked for and not answered; callers waiting to be asked */
	unsigned lookups, unasked;
	size_t queued;
	uint64_t clock;
	Object objects[BUS_QUEUE_OBJECTS_MAX];
	BusUidFunc uid_of;
	void *uid_data;
	BusCountedFunc counted;
	uint64_t refused;
};

int bus_queue_new(Users *users, BusQueue **ret)
{
	BusQueue *q = calloc(1, sizeof(*q));

	if (!q)
		return -ENOMEM;
	q->users = users;
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
	for (size_t i = 0; i < BUS_QUEUE_OBJECTS_MAX; i++)
		free(q->objects[i].path);
	free(q);
}

void bus_queue_set_uid_func(BusQueue *q, BusUidFunc fn, void *userdata)
{
	q->uid_of = fn;
	q->uid_data = userdata;
}

void bus_queue_set_counted_func(BusQueue *q, BusCountedFunc fn)
{
	q->counted = fn;
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
	/* counts as served now: behind everyone already waiting */
	c->served = q->clock;
	q->callers[q->n_callers++] = c;
	return c;
}

/* Drops c, and the calls it has waiting, from the callers (its user's
 * turn and pace stay in the users' table). */
static void caller_forget(BusQueue *q, Caller *c)
{
	for (size_t i = 0; i < q->n_callers; i++)
		if (q->callers[i] == c) {
			q->callers[i] = q->callers[--q->n_callers];
			break;
		}
	if (c->user)
		c->user->callers--;
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

/* What became of the uid of c, in no turn: r as BusUidFunc's. c joins its
 * user's turn (or the overflow's); false when c was dropped, its sender
 * being gone. */
static bool caller_learn(BusQueue *q, Caller *c, int r, uid_t uid, uint64_t now)
{
	User *u = r >= 0 ? users_get(q->users, uid, now) : NULL;

	if (r == -ESRCH) {
		caller_forget(q, c);
		return false;
	}
	/* a uid not learned, or no memory for its entry: the overflow's turn */
	c->state = u ? CALLER_KNOWN : CALLER_UNKNOWN;
	c->user = u ?: users_overflow(q->users);
	if (c->user->callers++ == 0)
		/* back after a pause: behind those waiting */
		c->user->served = c->served;
	return true;
}

/* Asks for the uid of c, in no turn; false as caller_learn(). */
static bool caller_ask(BusQueue *q, Caller *c, uint64_t now)
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
	return caller_learn(q, c, r, uid, now);
}

/* A lookup ended: asks for the uid of the callers that wait for one, the
 * oldest first, while lookups may start. */
static void callers_ask_waiting(BusQueue *q, uint64_t now)
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
		(void)caller_ask(q, oldest, now);
	}
}

void bus_queue_lookup_done(BusQueue *q, const char *sender, int r, uid_t uid, uint64_t now)
{
	Caller *c = caller_find(q, sender);

	if (q->lookups > 0)
		q->lookups--;
	if (c && r == -ESRCH)
		caller_forget(q, c);
	else if (c && c->state == CALLER_ASKING)
		(void)caller_learn(q, c, r, uid, now);
	callers_ask_waiting(q, now);
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
		if (!caller_ask(q, c, now))
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
	*k = (Call){ .m = dbus_message_ref(m),
		     .object = object,
		     .counted = q->counted && q->counted(m) };
	if (c->tail)
		c->tail->next = k;
	else
		c->head = k;
	c->tail = k;
	c->queued++;
	q->queued++;
	return true;
}

/* Whether c's next call is paced: not root's, and not a grant request
 * that its user's window of ActionsPerBurst= still has room for (that
 * window counts it when it is taken up: users.h), so that the limit of
 * grant requests is the setting's alone. */
static bool caller_paced(const Caller *c, uint64_t now)
{
	if (c->state == CALLER_KNOWN && c->user->uid == 0)
		return false;
	return !c->head->counted || !ratelimit_has_room(&c->user->actions, now);
}

/* How long (nsec) c must wait for its user's pace, 0 when its next call
 * may be served at now (usec). */
static uint64_t caller_wait(const Caller *c, uint64_t now)
{
	const uint64_t ahead = (BUS_QUEUE_PACE_BURST - 1) * BUS_QUEUE_PACE_NSEC;
	uint64_t due = c->user->due_nsec, now_ns = now * 1000;

	if (!caller_paced(c, now) || due <= now_ns + ahead)
		return 0;
	return due - now_ns - ahead;
}

DBusMessage *bus_queue_pop(BusQueue *q, uint64_t now, int *ret_object_index,
			   uint64_t *ret_wait_usec)
{
	uint64_t wait = UINT64_MAX, now_ns = now * 1000, best_key = 0;
	Caller *c = NULL;
	DBusMessage *m;
	bool paced;
	User *u;
	Call *k;

	for (size_t i = 0; i < q->n_callers; i++) {
		Caller *x = q->callers[i];
		uint64_t w;

		if (!x->user)
			continue; /* its uid is being asked for: the answer wakes us */
		w = caller_wait(x, now);
		if (w > 0) {
			if (w < wait)
				wait = w;
			continue;
		}
		if (!c || x->user->served < best_key ||
		    (x->user->served == best_key && x->served < c->served)) {
			c = x;
			best_key = x->user->served;
		}
	}
	/* rounded up: woken before the call is due, the loop would spin */
	*ret_wait_usec = !c && wait != UINT64_MAX ? (wait + 999) / 1000 : 0;
	if (!c)
		return NULL;
	u = c->user;
	paced = caller_paced(c, now);
	k = c->head;
	c->head = k->next;
	if (!c->head)
		c->tail = NULL;
	c->queued--;
	q->queued--;
	m = k->m;
	*ret_object_index = q->objects[k->object].path ? k->object : -1;
	free(k);

	c->served = u->served = ++q->clock;
	u->active_usec = now;
	/* the pace (GCRA): the user's next paced call is due one interval
	 * later, BUS_QUEUE_PACE_BURST of them ahead */
	if (paced)
		u->due_nsec = (u->due_nsec > now_ns ? u->due_nsec : now_ns) + BUS_QUEUE_PACE_NSEC;
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
