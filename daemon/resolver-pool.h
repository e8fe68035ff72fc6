/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NSS helper's worker threads (nss-helper-child.c): what its main
 * thread shares with them, under one mutex: the queue of lookups, the list
 * of lookups done, and the eventfd that wakes the main thread. The pool is
 * reference-counted (the main thread and each worker), so that a worker
 * stuck in NSS may outlive the pool's user: it frees the pool when it
 * finally ends, if it is the last.
 */
#pragma once

#include <stdint.h>
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
/* The main thread's end: the workers quit once their lookup returns, and the last
 * to end frees the pool with the jobs still in it. */
void resolver_pool_quit(ResolverPool *p);
/* Readable when jobs are done (resolver_pool_take_done()). */
int resolver_pool_fd(ResolverPool *p);
/* Queues j (the pool's until it is done), and starts a worker when there
 * are more jobs than idle workers and fewer than threads_max run. */
void resolver_pool_queue(ResolverPool *p, ResolverJob *j, unsigned threads_max);
/* The jobs done since the last call, oldest first, linked by next; the
 * caller's to free. */
ResolverJob *resolver_pool_take_done(ResolverPool *p);
/* How many workers run now. */
unsigned resolver_pool_n_threads(ResolverPool *p);
/* Frees j and the user it found; NULL is fine. */
void resolver_job_free(ResolverJob *j);
