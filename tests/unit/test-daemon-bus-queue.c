/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/bus-queue.c, the order in which callers are served:
 * one user's burst on many connections against another user's single call,
 * a new sender behind those already waiting, a sender's own calls in order,
 * the per-sender cap, each user's pace, and what is not queued (signals,
 * other paths). Messages
 * are built with libdbus and never sent; the uid of a sender comes from its
 * name (":uid.n").
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

#define PATH "/org/realtimed/Test"

static DBusHandlerResult handler(DBusConnection *c, DBusMessage *m, void *data)
{
	return DBUS_HANDLER_RESULT_HANDLED;
}

static const DBusObjectPathVTable vtable = { .message_function = handler };

/* ":UID.N" is a connection of UID */
static int uid_of(DBusMessage *m, bool may_block, uid_t *ret_uid, void *userdata)
{
	unsigned uid;

	if (sscanf(dbus_message_get_sender(m), ":%u.", &uid) != 1)
		return -EINVAL;
	*ret_uid = uid;
	return 0;
}

static BusQueue *queue(void)
{
	BusQueue *q;

	ck_assert_int_eq(bus_queue_new(&q), 0);
	bus_queue_set_uid_func(q, uid_of, NULL);
	ck_assert_int_eq(bus_queue_add_object(q, PATH, &vtable, NULL), 0);
	return q;
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

/* at one moment: no test but the pace's lets the clock move */
static const char *pop(BusQueue *q)
{
	return pop_at(q, now_default);
}

/* uid 1000 has 4 connections with 10 calls each, then uid 2000 calls once:
 * 2000's call is served after at most one call per connection of 1000 that
 * was already waiting (each is a sender of its own until its uid is
 * learned at its first call), then right after the next of 1000's. */
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
	/* the four senders are served once each: their uid is learned */
	for (unsigned k = 0; k < 4; k++)
		ck_assert_str_eq(pop(q),
				 (snprintf(sender, sizeof(sender), ":1000.%u/1", k), sender));
	push(q, ":2000.0", 1);
	while (!streq(pop(q), ":2000.0/1"))
		before++;
	ck_assert_uint_le(before, 1);
	ck_assert_uint_eq(bus_queue_length(q), 40 - 4 - before);
	bus_queue_free(q);
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
	bus_queue_free(q);
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
	bus_queue_free(q);
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
	bus_queue_free(q);
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
	bus_queue_free(q);
}
END_TEST

/* A user past BUS_QUEUE_PACE_BURST calls at once waits BUS_QUEUE_PACE_NSEC
 * a call, on all its connections; another user and root do not wait. */
START_TEST(test_pace)
{
	const uint64_t t = now_default;
	BusQueue *q = queue();
	unsigned served = 0;
	DBusMessage *m;
	uint64_t wait;
	int object;

	for (unsigned n = 1; n <= 200; n++) {
		push(q, ":1000.1", n);
		push(q, ":1000.2", n);
	}
	push(q, ":0.1", 1);
	while ((m = bus_queue_pop(q, t, &object, &wait))) {
		dbus_message_unref(m);
		served++;
	}
	/* 1000's burst (a connection's first call counts once its uid is
	 * learned from it) and root's call */
	ck_assert_uint_eq(served, BUS_QUEUE_PACE_BURST + 1);
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
	bus_queue_free(q);
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
	bus_queue_free(q);
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
				   test_pace_one_at_a_time));
	return check_run(s);
}
