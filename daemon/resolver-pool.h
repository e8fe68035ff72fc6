/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NSS helper's worker threads (nss-helper-child.c): a queue of lookups
 * and a list of lookups done, under one mutex, and an eventfd that wakes
 * the helper's main thread. They run until the helper exits.
 */
#pragma once

#include <sys/types.h>

#include "resolver.h"

/* One lookup: queued by the main thread, run by a worker, handed back. */
typedef struct ResolverJob {
	uid_t uid;
	int error;
	PolicyUser *user;
	struct ResolverJob *next;
} ResolverJob;

typedef struct ResolverPool ResolverPool;

/* A pool whose workers run lookup; none runs yet. -ENOMEM, or the
 * eventfd's error. */
int resolver_pool_new(resolver_lookup_t lookup, ResolverPool **ret);
/* Readable when jobs are done (resolver_pool_take_done()). */
int resolver_pool_fd(ResolverPool *p);
/* Queues j (the pool's until it is done), and starts a worker when there
 * are more jobs than idle workers and fewer than threads_max run. */
void resolver_pool_queue(ResolverPool *p, ResolverJob *j, unsigned threads_max);
/* The jobs done since the last call, in no order, linked by next; the
 * caller's to free. */
ResolverJob *resolver_pool_take_done(ResolverPool *p);
/* Frees j and the user it found; NULL is fine. */
void resolver_job_free(ResolverJob *j);
