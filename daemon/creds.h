/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The callers' credentials, asked of the bus daemon (GetConnectionCredentials)
 * and kept per unique name in d->creds, and the names the bus said are
 * gone, so that no second round trip is spent on them. A unique name is
 * never reused while the bus runs, so an entry never goes stale. When the
 * cache is full, a free entry is taken first, then the gone name used
 * least recently, then the entry used least recently: a stream of senders
 * that leave at once costs the others one entry at most.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct Daemon Daemon;

#define CREDS_CACHE_SIZE 256

typedef struct CredsCache CredsCache;

/* An empty cache; -ENOMEM. */
int creds_cache_new(CredsCache **ret);
CredsCache *creds_cache_free(CredsCache *c);

/* The uid and pid kept for sender, a unique name, which counts as used
 * now; -ENOENT when none is kept, -ESRCH when sender is gone. */
int creds_cache_get(CredsCache *c, const char *sender, uid_t *ret_uid, pid_t *ret_pid);
/* Keeps sender's uid and pid. -ENOMEM: not kept. */
int creds_cache_put(CredsCache *c, const char *sender, uid_t uid, pid_t pid);
/* Keeps that sender is gone from the bus. -ENOMEM: not kept. */
int creds_cache_put_gone(CredsCache *c, const char *sender);

/* The pid namespace of sender's process, kept beside its credentials
 * (request-pidns.c: a process never changes its own), 0 until set;
 * -ENOENT when no entry of sender is kept. */
int creds_cache_get_pidns(CredsCache *c, const char *sender, uint64_t *ret);
int creds_cache_set_pidns(CredsCache *c, const char *sender, uint64_t pidns);

/* uid and pid of the sender of m; -ESRCH at once for a sender the bus said
 * is gone. A sender not kept yet costs a round trip the loop waits for: the
 * queue asks for them without waiting (bus_creds_ask()). */
int bus_get_creds(Daemon *d, DBusMessage *m, uid_t *ret_uid, pid_t *ret_pid);
/* The queue's BusUidFunc (bus-queue.h), userdata the Daemon: sender's uid
 * from d->creds, else GetConnectionCredentials sent without waiting, its
 * answer kept in d->creds and told to the queue. */
int bus_creds_ask(const char *sender, uid_t *ret_uid, void *userdata);
