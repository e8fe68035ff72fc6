/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Callers served in turn. realtimed has one bus connection, and libdbus
 * hands it the incoming calls in arrival order: a caller behind another
 * user's burst of a thousand calls would wait for all of them. Instead a
 * filter takes each method call for one of realtimed's objects off
 * libdbus's queue into one queue per sender, and bus_queue_serve() serves
 * the senders in turn, grouping a user's connections into one turn (its
 * entry in the users' table, users.h). A caller then waits behind about
 * one call of each other busy user. Each user is also paced (below).
 * Replies and signals are not queued.
 *
 * A new sender's uid is asked for when its first call is queued, without
 * waiting (BusUidFunc), at most BUS_QUEUE_LOOKUPS_MAX at a time; its calls
 * wait until the answer puts it in its user's turn. A sender whose uid
 * cannot be learned is served in the turn of the users' overflow entry,
 * shared by all such senders, with one pace, so that a stream of new
 * senders is one turn among the users.
 * A sender the bus says is gone (NameOwnerChanged, or its lookup) has its
 * calls dropped unserved: their answers would go nowhere.
 *
 * Memory stays bounded by libdbus: a message held here still counts against
 * the connection's received-size limit, and libdbus stops reading the socket
 * past it, as it did when the calls waited in its own queue. A sender may
 * hold BUS_QUEUE_PER_SENDER calls; past that its calls are refused
 * (LimitsExceeded), so a flood of calls that want no reply costs only its
 * sender.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* above dbus-daemon's max_replies_per_connection (128): only calls sent
 * with NO_REPLY_EXPECTED can reach it */
#define BUS_QUEUE_PER_SENDER 256
/* Each user's pace (root's calls are not paced, nor a grant request its
 * user's ActionsPerBurst= window has room for): a burst of
 * BUS_QUEUE_PACE_BURST calls is served at once, beyond that one call per
 * BUS_QUEUE_PACE_NSEC (500 a second). A flood then waits in its own queue,
 * its connections' windows full, instead of keeping dbus-daemon, realtimed
 * and both CPUs busy at ten thousand calls a second. */
#define BUS_QUEUE_PACE_BURST 256
#define BUS_QUEUE_PACE_NSEC 2000000ULL
/* uid lookups asked for and not answered yet; a new sender past them
 * waits for one to end before its own is asked */
#define BUS_QUEUE_LOOKUPS_MAX 32
/* realtimed's objects: the native one and the rtkit one */
#define BUS_QUEUE_OBJECTS_MAX 4

typedef struct BusQueue BusQueue;
typedef struct Users Users;

/* The uid of sender, asked for without waiting: 0 with *ret_uid when known
 * at once; -EINPROGRESS when asked, the answer to be told through
 * bus_queue_lookup_done(); -ESRCH when sender is gone; another -errno when
 * it cannot be learned. */
typedef int (*BusUidFunc)(const char *sender, uid_t *ret_uid, void *userdata);

/* Whether m is a grant request, counted against its user's ActionsPerBurst=
 * when it is taken up. */
typedef bool (*BusCountedFunc)(DBusMessage *m);

/* A queue with no objects yet, whose users' turns and paces are users'. */
int bus_queue_new(Users *users, BusQueue **ret);
void bus_queue_free(BusQueue *q);
void bus_queue_set_uid_func(BusQueue *q, BusUidFunc fn, void *userdata);
void bus_queue_set_counted_func(BusQueue *q, BusCountedFunc fn);

/* Serves calls for path with vtable's handler from now on. */
int bus_queue_add_object(BusQueue *q, const char *path, const DBusObjectPathVTable *vtable,
			 void *data);
/* Calls for path still queued are answered UnknownObject when their turn
 * comes. */
void bus_queue_remove_object(BusQueue *q, const char *path);

/* Takes m into its sender's queue at now (CLOCK_MONOTONIC usec): true when
 * m is a method call for one of the objects and was queued (or refused, its
 * sender's queue being full, or dropped, its sender being gone); false when
 * m is not for the queue and must be handled now. The bus daemon's
 * NameOwnerChanged for a unique name that is gone drops that sender's
 * calls (and is left to others: false). */
bool bus_queue_push(BusQueue *q, DBusConnection *c, DBusMessage *m, uint64_t now);
/* The end of a lookup that the BusUidFunc said was asked (-EINPROGRESS), at
 * now: r as the BusUidFunc's (0 with uid, -ESRCH, another -errno). */
void bus_queue_lookup_done(BusQueue *q, const char *sender, int r, uid_t uid, uint64_t now);
/* The next call to serve at now (CLOCK_MONOTONIC usec), its user's turn
 * being the oldest among those within their pace; NULL when none, and then
 * *ret_wait_usec is how long until a paced one may be served (0: none
 * waits). The caller owns the reference; *ret_object_index is the object it
 * is for, or -1 when that object is gone. */
DBusMessage *bus_queue_pop(BusQueue *q, uint64_t now, int *ret_object_index,
			   uint64_t *ret_wait_usec);
/* Pops one call and hands it to its object's handler on c: 1 when one was
 * served, 0 when none may be (*ret_wait_usec as bus_queue_pop()'s). */
int bus_queue_serve(BusQueue *q, DBusConnection *c, uint64_t now, uint64_t *ret_wait_usec);
size_t bus_queue_length(const BusQueue *q);
