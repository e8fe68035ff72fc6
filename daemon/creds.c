// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "creds.h"
#include "macro.h"

typedef struct CredsEntry {
	char *sender; /* unique name; NULL: a free entry */
	uid_t uid;
	pid_t pid;
	uint64_t pidns; /* 0: not known yet */
	uint64_t used;
	bool gone; /* the bus said sender is gone: no uid, no pid */
} CredsEntry;

struct CredsCache {
	CredsEntry entries[CREDS_CACHE_SIZE];
	uint64_t clock;
};

int creds_cache_new(CredsCache **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

CredsCache *creds_cache_free(CredsCache *c)
{
	if (c)
		for (size_t i = 0; i < CREDS_CACHE_SIZE; i++)
			free(c->entries[i].sender);
	free(c);
	return NULL;
}

static CredsEntry *creds_cache_find(CredsCache *c, const char *sender)
{
	for (size_t i = 0; i < CREDS_CACHE_SIZE; i++) {
		CredsEntry *e = &c->entries[i];

		if (e->sender && streq(e->sender, sender))
			return e;
	}
	return NULL;
}

int creds_cache_get(CredsCache *c, const char *sender, uid_t *ret_uid, pid_t *ret_pid)
{
	CredsEntry *e = creds_cache_find(c, sender);

	if (!e)
		return -ENOENT;
	e->used = ++c->clock;
	if (e->gone)
		return -ESRCH;
	*ret_uid = e->uid;
	*ret_pid = e->pid;
	return 0;
}

int creds_cache_get_pidns(CredsCache *c, const char *sender, uint64_t *ret)
{
	CredsEntry *e = creds_cache_find(c, sender);

	if (!e)
		return -ENOENT;
	*ret = e->pidns;
	return 0;
}

int creds_cache_set_pidns(CredsCache *c, const char *sender, uint64_t pidns)
{
	CredsEntry *e = creds_cache_find(c, sender);

	if (!e)
		return -ENOENT;
	e->pidns = pidns;
	return 0;
}

/* sender's entry, else the victim (creds.h), emptied. */
static CredsEntry *creds_cache_slot(CredsCache *c, const char *sender)
{
	CredsEntry *victim = creds_cache_find(c, sender);

	if (victim)
		return victim;
	victim = &c->entries[0];
	for (size_t i = 1; i < CREDS_CACHE_SIZE && victim->sender; i++) {
		CredsEntry *e = &c->entries[i];

		if (!e->sender || (e->gone && !victim->gone) ||
		    (e->gone == victim->gone && e->used < victim->used))
			victim = e;
	}
	free(victim->sender);
	*victim = (CredsEntry){ .sender = strdup(sender) };
	return victim;
}

static int creds_cache_keep(CredsCache *c, const char *sender, bool gone, uid_t uid, pid_t pid)
{
	CredsEntry *e = creds_cache_slot(c, sender);

	if (!e->sender)
		return -ENOMEM;
	e->uid = uid;
	e->pid = pid;
	e->gone = gone;
	e->used = ++c->clock;
	return 0;
}

int creds_cache_put(CredsCache *c, const char *sender, uid_t uid, pid_t pid)
{
	return creds_cache_keep(c, sender, false, uid, pid);
}

int creds_cache_put_gone(CredsCache *c, const char *sender)
{
	return creds_cache_keep(c, sender, true, 0, 0);
}
