/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The callers' credentials as the bus daemon gave them (bus_get_creds()),
 * kept per unique name, least recently used first out. A unique name is
 * never reused while the bus runs, so an entry never goes stale.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#define CREDS_CACHE_SIZE 256

typedef struct CredsCache CredsCache;

/* An empty cache; -ENOMEM. */
int creds_cache_new(CredsCache **ret);
CredsCache *creds_cache_free(CredsCache *c);

/* The uid and pid kept for sender, a unique name, which counts as used
 * now; -ENOENT when none is kept. */
int creds_cache_get(CredsCache *c, const char *sender, uid_t *ret_uid, pid_t *ret_pid);
/* Keeps sender's uid and pid, in place of the entry used least recently
 * when the cache is full. -ENOMEM: not kept. */
int creds_cache_put(CredsCache *c, const char *sender, uid_t uid, pid_t pid);

/* The pid namespace of sender's process, kept beside its credentials
 * (request-pidns.c: a process never changes its own), 0 until set;
 * -ENOENT when no entry of sender is kept. */
int creds_cache_get_pidns(CredsCache *c, const char *sender, uint64_t *ret);
int creds_cache_set_pidns(CredsCache *c, const char *sender, uint64_t pidns);
