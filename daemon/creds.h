/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The callers' credentials, asked of the bus daemon (GetConnectionCredentials)
 * and kept per unique name in d->creds, with the names it said are gone
 * (never reused, so never stale). When full, a free entry goes first, then
 * the gone name, then any name used least recently: senders that leave at
 * once cost the others one entry at most.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct Daemon Daemon;

#define CREDS_CACHE_SIZE 256

typedef struct CredsCache CredsCache;

int creds_cache_new(CredsCache **ret);
CredsCache *creds_cache_free(CredsCache *c);

/* Counts as a use; -ENOENT when none is kept, -ESRCH when sender is gone. */
int creds_cache_get(CredsCache *c, const char *sender, uid_t *ret_uid, pid_t *ret_pid);
int creds_cache_put(CredsCache *c, const char *sender, uid_t uid, pid_t pid);
int creds_cache_put_gone(CredsCache *c, const char *sender);

/* The pid namespace of sender's process, 0 until set; -ENOENT without entry. */
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
