/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The callers' credentials from the bus daemon, and the names it said are
 * gone, per unique name (never reused, so never stale). When full, a free
 * entry goes first, then the gone name, then any name used least recently:
 * senders that leave at once cost the others one entry at most.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

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
