/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-queue.c, the order in which callers are served:
 * one user's burst on many connections against another user's single call,
 * a new sender behind those already waiting, a sender's own calls in order,
 * the per-sender cap, each user's pace, and what is not queued (signals,
 * other paths); senders whose uid is not known, which share one turn and
 * one pace, and senders that are gone, whose calls are dropped unserved.
 * Messages are built with libdbus and never sent; the uid of a sender comes
 * from its name (":uid.n"); ":gone.n" has left the bus; ":ask.n" is looked
 * up, its calls waiting for the answer, at most BUS_QUEUE_LOOKUPS_MAX at a
 * time; the uid of any other name cannot be learned.
 */
#include <check.h>
#include <dbus/dbus.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-queue.h"
#include "check-main.h"
#include "macro.h"
#include "users.h"

#define PATH "/org/realtimed/Test"

static DBusHandlerResult handler(DBusConnection *c, DBusMessage *m, void *data)
{
	return DBUS_HANDLER_RESULT_HANDLED;
}

static const DBusObjectPathVTable vtable = { .message_function = handler };

/* How many lookups uid_of() started (":ask.N"). */
static unsigned asked;

/* ":UID.N" is a connection of UID; ":gone.N" left the bus; ":ask.N" is
 * looked up, the answer told by the test (bus_queue_lookup_done()) */
static int uid_of(const char *sender, uid_t *ret_uid, void *userdata)
{
	unsigned uid;

	if (strncmp(sender, ":gone.", 6) == 0)
		return -ESRCH;
	if (strncmp(sender, ":ask.", 5) == 0) {
		asked++;
		return -EINPROGRESS;
	}
	if (sscanf(sender, ":%u.", &uid) != 1)
		return -EINVAL;
	*ret_uid = uid;
	return 0;
}

/* A call of member "Grant" stands for a grant request (counted). */
static bool counted(DBusMessage *m)
{
	return dbus_message_is_method_call(m, "org.realtimed.Test", "Grant");
}

/* the users' table of the test's queue: its turns and paces */
static Users *users;

static BusQueue *queue(void)
{
	BusQueue *q;

	ck_assert_int_eq(users_new(&users), 0);
	ck_assert_int_eq(bus_queue_new(users, &q), 0);
	bus_queue_set_uid_func(q, uid_of, NULL);
	bus_queue_set_counted_func(q, counted);
	ck_assert_int_eq(bus_queue_add_object(q, PATH, &vtable, NULL), 0);
	return q;
}

static void queue_free(BusQueue *q)
{
	bus_queue_free(q);
	users = users_free(users);
}

/* the tests' clock, unless a test moves it */
static uint64_t now_default = 1000000;

/* A call from sender, its serial standing for its number in the test. */
static DBusMessage *call(const char *sender, unsigned n)
{
	DBusMessage *m = dbus_message_new_method_call("org.realtimed.Test", PATH,
						      "org.realtimed.Test", "Do");

	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_set_sender(m, sender));
	dbus_message_set_serial(m, n);
	return m;
}

/* A grant request (member "Grant") from sender. */
static void push_grant(BusQueue *q, const char *sender, unsigned n)
{
	DBusMessage *m = dbus_message_new_method_call("org.realtimed.Test", PATH,
						      "org.realtimed.Test", "Grant");

	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_set_sender(m, sender));
	dbus_message_set_serial(m, n);
	ck_assert(bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);
}

static void push(BusQueue *q, const char *sender, unsigned n)
{
	DBusMessage *m = call(sender, n);

	ck_assert(bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);
}

/* Pops one call; its sender and serial as "SENDER/N". */
static const char *pop_at(BusQueue *q, uint64_t now)
{
	static char buf[64];
	DBusMessage *m;
	uint64_t wait;
	int object;

	m = bus_queue_pop(q, now, &object, &wait);
	if (!m)
		return "none";
	ck_assert_int_eq(object, 0);
	snprintf(buf, sizeof(buf), "%s/%u", dbus_message_get_sender(m), dbus_message_get_serial(m));
	dbus_message_unref(m);
	return buf;
}

/* Pops every call that may be served at now; how many, and in *ret_wait
 * how long until the next may be. */
static unsigned pop_all(BusQueue *q, uint64_t now, uint64_t *ret_wait)
{
	unsigned served = 0;
	DBusMessage *m;
	int object;

	while ((m = bus_queue_pop(q, now, &object, ret_wait))) {
		dbus_message_unref(m);
		served++;
	}
	return served;
}

/* at one moment: no test but the pace's lets the clock move */
static const char *pop(BusQueue *q)
{
	return pop_at(q, now_default);
}

/* uid 1000 has 4 connections with 10 calls each, then uid 2000 calls once:
 * 1000's connections share its one turn, each served in its own turn
 * within it, and 2000's call comes after at most one more of 1000's. */
START_TEST(test_burst_on_many_connections)
{
	BusQueue *q = queue();
	char sender[16];
	unsigned before = 0;

	for (unsigned n = 1; n <= 10; n++)
		for (unsigned k = 0; k < 4; k++) {
			snprintf(sender, sizeof(sender), ":1000.%u", k);
			push(q, sender, n);
		}
	/* the four connections take 1000's turn one after the other */
	for (unsigned k = 0; k < 4; k++)
		ck_assert_str_eq(pop(q),
				 (snprintf(sender, sizeof(sender), ":1000.%u/1", k), sender));
	push(q, ":2000.0", 1);
	while (!streq(pop(q), ":2000.0/1"))
		before++;
	ck_assert_uint_le(before, 1);
	ck_assert_uint_eq(bus_queue_length(q), 40 - 4 - before);
	queue_free(q);
}
END_TEST

/* Two users, each with a steady backlog: they alternate. */
START_TEST(test_users_alternate)
{
	BusQueue *q = queue();
	unsigned a = 0, b = 0;

	for (unsigned n = 1; n <= 20; n++) {
		push(q, ":1000.1", n);
		push(q, ":1000.2", n);
		push(q, ":2000.1", n);
	}
	/* past the first turn of each sender, 2000 gets every other call */
	for (unsigned i = 0; i < 3; i++)
		pop(q);
	for (unsigned i = 0; i < 20; i++) {
		if (strncmp(pop(q), ":2000.", 6) == 0)
			b++;
		else
			a++;
	}
	ck_assert_uint_eq(a, 10);
	ck_assert_uint_eq(b, 10);
	queue_free(q);
}
END_TEST

/* One sender's calls keep their order, whatever others do. */
START_TEST(test_sender_order_kept)
{
	BusQueue *q = queue();
	unsigned next = 1;

	for (unsigned n = 1; n <= 30; n++) {
		push(q, ":1000.1", n);
		push(q, ":3000.7", n);
	}
	for (unsigned i = 0; i < 60; i++) {
		const char *s = pop(q);
		unsigned n;

		if (sscanf(s, ":1000.1/%u", &n) == 1)
			ck_assert_uint_eq(n, next++);
	}
	ck_assert_uint_eq(next, 31);
	ck_assert_str_eq(pop(q), "none");
	queue_free(q);
}
END_TEST

/* A sender is refused past BUS_QUEUE_PER_SENDER (the call is taken and
 * answered, which needs no connection for a call that wants no reply);
 * another sender is not. */
START_TEST(test_per_sender_cap)
{
	BusQueue *q = queue();
	DBusMessage *m;

	for (unsigned n = 1; n <= BUS_QUEUE_PER_SENDER; n++)
		push(q, ":1000.1", n);
	m = call(":1000.1", 9999);
	dbus_message_set_no_reply(m, TRUE);
	ck_assert(bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);
	ck_assert_uint_eq(bus_queue_length(q), BUS_QUEUE_PER_SENDER);
	push(q, ":2000.1", 1);
	ck_assert_uint_eq(bus_queue_length(q), BUS_QUEUE_PER_SENDER + 1);
	queue_free(q);
}
END_TEST

/* Signals, calls for other paths and calls with no sender are not queued;
 * a call for an object removed since waits and comes out with no object. */
START_TEST(test_not_queued)
{
	BusQueue *q = queue();
	DBusMessage *m;
	uint64_t wait;
	int object;

	m = dbus_message_new_signal(PATH, "org.realtimed.Test", "Happened");
	ck_assert(dbus_message_set_sender(m, ":1000.1"));
	ck_assert(!bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);
	m = dbus_message_new_method_call("org.realtimed.Test", "/elsewhere", "org.realtimed.Test",
					 "Do");
	ck_assert(dbus_message_set_sender(m, ":1000.1"));
	ck_assert(!bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);
	m = dbus_message_new_method_call("org.realtimed.Test", PATH, "org.realtimed.Test", "Do");
	ck_assert(!bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);

	push(q, ":1000.1", 1);
	bus_queue_remove_object(q, PATH);
	m = bus_queue_pop(q, 0, &object, &wait);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(object, -1);
	dbus_message_unref(m);
	queue_free(q);
}
END_TEST

/* A user past BUS_QUEUE_PACE_BURST calls at once waits BUS_QUEUE_PACE_NSEC
 * a call, on all its connections; another user and root do not wait. */
START_TEST(test_pace)
{
	const uint64_t t = now_default;
	BusQueue *q = queue();
	uint64_t wait;

	for (unsigned n = 1; n <= 200; n++) {
		push(q, ":1000.1", n);
		push(q, ":1000.2", n);
	}
	push(q, ":0.1", 1);
	/* 1000's burst, on its two connections, and root's call */
	ck_assert_uint_eq(pop_all(q, t, &wait), BUS_QUEUE_PACE_BURST + 1);
	ck_assert_uint_gt(wait, 0);
	ck_assert_uint_le(wait, BUS_QUEUE_PACE_NSEC / 1000);
	/* another user, and root, are served at once */
	push(q, ":2000.1", 1);
	push(q, ":0.1", 2);
	ck_assert_str_eq(pop_at(q, t), ":2000.1/1");
	ck_assert_str_eq(pop_at(q, t), ":0.1/2");
	ck_assert_str_eq(pop_at(q, t), "none");
	/* one more of 1000's once its call is due, then it waits again */
	ck_assert_str_ne(pop_at(q, t + wait), "none");
	ck_assert_str_eq(pop_at(q, t + wait), "none");
	queue_free(q);
}
END_TEST

/* Calls sent one after another, each alone in the queue, are paced as a
 * pipelined burst is: the user's pace outlives its empty queue. */
START_TEST(test_pace_one_at_a_time)
{
	const uint64_t t = now_default;
	BusQueue *q = queue();

	for (unsigned n = 1; n <= BUS_QUEUE_PACE_BURST; n++) {
		push(q, ":1000.1", n);
		ck_assert_str_ne(pop_at(q, t), "none");
		ck_assert_uint_eq(bus_queue_length(q), 0);
	}
	push(q, ":1000.1", BUS_QUEUE_PACE_BURST + 1);
	ck_assert_str_eq(pop_at(q, t), "none");
	ck_assert_str_ne(pop_at(q, t + BUS_QUEUE_PACE_NSEC / 1000), "none");
	queue_free(q);
}
END_TEST

/* The bus's word that name left it (old_owner = name, no new owner). */
static void name_gone(BusQueue *q, const char *bus_sender, const char *name, const char *new_owner)
{
	DBusMessage *m =
		dbus_message_new_signal(DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS, "NameOwnerChanged");

	ck_assert_ptr_nonnull(m);
	ck_assert(dbus_message_set_sender(m, bus_sender));
	ck_assert(dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &name,
					   DBUS_TYPE_STRING, &new_owner, DBUS_TYPE_INVALID));
	/* a signal: left for the other filters too */
	ck_assert(!bus_queue_push(q, NULL, m, now_default));
	dbus_message_unref(m);
}

/* Senders whose uid cannot be learned (":x.N") take one turn together,
 * not one each: uid 1000's backlog gets every other call however many of
 * them there are. */
START_TEST(test_unknown_share_a_turn)
{
	BusQueue *q = queue();
	unsigned mine = 0;
	char sender[16];

	for (unsigned k = 0; k < 20; k++)
		for (unsigned n = 1; n <= 5; n++) {
			snprintf(sender, sizeof(sender), ":x.%u", k);
			push(q, sender, n);
		}
	for (unsigned n = 1; n <= 40; n++)
		push(q, ":1000.1", n);
	for (unsigned i = 0; i < 40; i++)
		if (strncmp(pop(q), ":1000.", 6) == 0)
			mine++;
	ck_assert_uint_ge(mine, 19);
	ck_assert_uint_eq(bus_queue_length(q), 140 - 40);
	queue_free(q);
}
END_TEST

/* ... and one pace: a stream of new senders past BUS_QUEUE_PACE_BURST
 * calls waits as one user's calls do; a user's call does not. */
START_TEST(test_unknown_share_a_pace)
{
	const uint64_t t = now_default;
	BusQueue *q = queue();
	char sender[16];
	uint64_t wait;

	for (unsigned k = 0; k < BUS_QUEUE_PACE_BURST + 44; k++) {
		snprintf(sender, sizeof(sender), ":x.%u", k);
		push(q, sender, 1);
	}
	ck_assert_uint_eq(pop_all(q, t, &wait), BUS_QUEUE_PACE_BURST);
	ck_assert_uint_gt(wait, 0);
	push(q, ":2000.1", 1);
	ck_assert_str_eq(pop_at(q, t), ":2000.1/1");
	ck_assert_str_eq(pop_at(q, t), "none");
	ck_assert_str_ne(pop_at(q, t + wait), "none");
	queue_free(q);
}
END_TEST

/* The calls of a sender that left the bus are dropped at once, never
 * served: their answers would go nowhere. Only the bus daemon says so, and
 * only of unique names. */
START_TEST(test_gone_sender_dropped)
{
	BusQueue *q = queue();

	for (unsigned n = 1; n <= 10; n++) {
		push(q, ":1000.1", n);
		push(q, ":1000.2", n);
		push(q, ":3000.1", n);
	}
	/* not from the bus daemon, not a unique name, or a new owner: kept */
	name_gone(q, ":3000.1", ":1000.1", "");
	name_gone(q, DBUS_SERVICE_DBUS, "org.example.Name", "");
	name_gone(q, DBUS_SERVICE_DBUS, ":1000.1", ":1000.7");
	ck_assert_uint_eq(bus_queue_length(q), 30);

	name_gone(q, DBUS_SERVICE_DBUS, ":1000.1", "");
	ck_assert_uint_eq(bus_queue_length(q), 20);
	for (unsigned i = 0; i < 20; i++)
		ck_assert_str_ne(pop(q), "none");
	ck_assert_str_eq(pop(q), "none");
	/* a sender whose credentials the bus no longer has: dropped as it comes */
	push(q, ":gone.1", 1);
	push(q, ":gone.1", 2);
	ck_assert_uint_eq(bus_queue_length(q), 0);
	ck_assert_str_eq(pop(q), "none");
	queue_free(q);
}
END_TEST

/* A new sender's calls wait while its uid is looked up, then are served in
 * its user's turn; a lookup that finds the sender gone drops them. */
START_TEST(test_lookup)
{
	BusQueue *q = queue();

	asked = 0;
	push(q, ":ask.1", 1);
	push(q, ":ask.1", 2);
	push(q, ":ask.2", 1);
	push(q, ":1000.1", 1);
	ck_assert_uint_eq(asked, 2);
	ck_assert_str_eq(pop(q), ":1000.1/1");
	ck_assert_str_eq(pop(q), "none");
	bus_queue_lookup_done(q, ":ask.2", -ESRCH, 0, now_default);
	ck_assert_uint_eq(bus_queue_length(q), 2);
	bus_queue_lookup_done(q, ":ask.1", 0, 1000, now_default);
	ck_assert_str_eq(pop(q), ":ask.1/1");
	ck_assert_str_eq(pop(q), ":ask.1/2");
	ck_assert_str_eq(pop(q), "none");
	/* an answer for a sender that has no call left changes nothing */
	bus_queue_lookup_done(q, ":ask.3", 0, 1000, now_default);
	ck_assert_str_eq(pop(q), "none");
	queue_free(q);
}
END_TEST

/* At most BUS_QUEUE_LOOKUPS_MAX lookups at a time: the senders past them
 * wait, and are asked about, oldest first, as lookups end; a sender gone
 * before its turn to be asked costs no lookup. */
START_TEST(test_lookups_bounded)
{
	BusQueue *q = queue();
	char sender[16];

	asked = 0;
	for (unsigned k = 0; k < BUS_QUEUE_LOOKUPS_MAX + 3; k++) {
		snprintf(sender, sizeof(sender), ":ask.%u", k);
		push(q, sender, 1);
	}
	ck_assert_uint_eq(asked, BUS_QUEUE_LOOKUPS_MAX);
	/* the first waiting one leaves: never asked about */
	snprintf(sender, sizeof(sender), ":ask.%u", BUS_QUEUE_LOOKUPS_MAX);
	name_gone(q, DBUS_SERVICE_DBUS, sender, "");
	bus_queue_lookup_done(q, ":ask.0", 0, 1000, now_default);
	ck_assert_uint_eq(asked, BUS_QUEUE_LOOKUPS_MAX + 1);
	ck_assert_str_eq(pop(q), ":ask.0/1");
	ck_assert_str_eq(pop(q), "none");
	/* the next answer asks about the last one */
	bus_queue_lookup_done(q, ":ask.1", -EIO, 0, now_default);
	ck_assert_uint_eq(asked, BUS_QUEUE_LOOKUPS_MAX + 2);
	/* a lookup that failed otherwise: served in the unknown turn */
	ck_assert_str_eq(pop(q), ":ask.1/1");
	ck_assert_uint_eq(bus_queue_length(q), BUS_QUEUE_LOOKUPS_MAX);
	queue_free(q);
}
END_TEST

/* A grant request of uid 1000's, past its burst of calls: served at once
 * while the user's ActionsPerBurst= window has room (that window limits
 * grant requests, not the pace), paced once it is full. The user's turn
 * and pace are its entry in the users' table. */
START_TEST(test_grants_not_paced)
{
	const uint64_t t = now_default;
	BusQueue *q = queue();
	uint64_t wait;
	User *u;

	for (unsigned n = 1; n <= BUS_QUEUE_PACE_BURST / 2 + 5; n++) {
		push(q, ":1000.1", n);
		push(q, ":1000.3", n);
	}
	ck_assert_uint_eq(pop_all(q, t, &wait), BUS_QUEUE_PACE_BURST);
	u = users_find(users, 1000);
	ck_assert_ptr_nonnull(u);
	ck_assert_uint_eq(u->callers, 2);
	push_grant(q, ":1000.2", 1);
	push_grant(q, ":1000.2", 2);
	/* the window has room: the two grant requests go before the paced calls */
	ck_assert_str_eq(pop_at(q, t), ":1000.2/1");
	ck_assert_str_eq(pop_at(q, t), ":1000.2/2");
	ck_assert_str_eq(pop_at(q, t), "none");
	/* the window full (as the admission counts it), a grant request waits */
	u->actions = (RateLimit){
		.interval_usec = 60000000, .burst = 1, .started = true, .begin_usec = t, .n = 1
	};
	push_grant(q, ":1000.2", 3);
	ck_assert_str_eq(pop_at(q, t), "none");
	queue_free(q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-bus-queue");

	check_add_case(s, "order",
		       CHECK_TESTS(test_burst_on_many_connections, test_users_alternate,
				   test_sender_order_kept));
	check_add_case(s, "limits",
		       CHECK_TESTS(test_per_sender_cap, test_not_queued, test_pace,
				   test_pace_one_at_a_time, test_grants_not_paced));
	check_add_case(s, "unknown and gone",
		       CHECK_TESTS(test_unknown_share_a_turn, test_unknown_share_a_pace,
				   test_gone_sender_dropped, test_lookup, test_lookups_bounded));
	return check_run(s);
}
