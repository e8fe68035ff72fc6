/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Callers served in turn (realtimed(8), CALLERS IN TURN): method calls for
 * realtimed's objects wait in one queue per sender, and the users (users.h)
 * take turns, each paced. Replies and signals are not queued. Memory stays
 * bounded by libdbus: a message held here still counts against the
 * connection's received-size limit, and a sender past BUS_QUEUE_PER_SENDER
 * calls is refused (LimitsExceeded), so a flood costs only its sender.
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
/* Each user's pace (not root's, nor a grant request its ActionsPerBurst=
 * window has room for): a burst of BUS_QUEUE_PACE_BURST calls at once, then
 * one per BUS_QUEUE_PACE_NSEC (500 a second); a flood waits in its own
 * queue. */
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
