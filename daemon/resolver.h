/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Users and their groups through NSS, off the event loop and out of
 * realtimed: each lookup runs in the NSS helper (nss-helper.h), and the
 * loop caches its result by the rules of realtimed(8), USERS AND GROUPS:
 * one lookup per uid in flight; a result used for the lifetime; a flush
 * (a reload) that ends every lifetime and has a lookup in flight asked
 * again; and the last good answer standing in while NSS fails (or the
 * helper is lost: -ECONNRESET) or hangs past the stale wait, for at most
 * the stale bound, until a fresh answer or "no such user" replaces it.
 * Everything here runs on the loop; no call blocks but resolver_start().
 */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "policy.h"
#include "time-util.h"

#define RESOLVER_THREADS_MAX 8
#define RESOLVER_CACHE_SIZE 256
/* waits at a time: each holds a parked request (and its pidfds) */
#define RESOLVER_WAITS_MAX 1024
/* ResolveTimeout, the lifetime, the stale wait (below librealtime's 5 s
 * call timeout) and the stale bound, as realtimed(8) gives them */
#define RESOLVE_TIMEOUT_USEC (10 * USEC_PER_SEC)
#define RESOLVE_CACHE_USEC (5 * USEC_PER_SEC)
#define RESOLVE_STALE_WAIT_USEC (1 * USEC_PER_SEC)
#define RESOLVE_STALE_MAX_USEC (15 * 60 * USEC_PER_SEC)

typedef struct Resolver Resolver;

/* The end of a wait, on the loop: error 0 and the user (fresh, or the
 * stale answer; valid during the call, and resolver_get() answers the same
 * during it), -ESRCH (no such user), -ETIMEDOUT (no answer within the
 * timeout), or another -errno of the lookup. */
typedef void (*resolver_done_t)(uid_t uid, int error, const PolicyUser *u, void *userdata);

typedef struct ResolverSettings {
	/* the NSS helper's program; NULL: $REALTIMED_NSS_HELPER, else
	 * realtimed-nss in libexecdir (realtimed(8), ENVIRONMENT) */
	const char *helper;
	uint64_t timeout_usec;
	uint64_t lifetime_usec;
	unsigned threads_max;
	uint64_t stale_wait_usec; /* 0: RESOLVE_STALE_WAIT_USEC; at most timeout_usec */
	uint64_t stale_max_usec;  /* 0: RESOLVE_STALE_MAX_USEC */
} ResolverSettings;

/* settings NULL: realtimed-nss and the constants above. The NSS helper
 * starts at the first lookup, or at resolver_start(). */
int resolver_new(sd_event *e, const ResolverSettings *settings, Resolver **ret);
/* Starts the NSS helper now and waits until it dropped its privileges
 * (realtimed at start, which it then cannot do without): 0, or -errno
 * (logged). */
int resolver_start(Resolver *r);
/* Ends every wait unanswered (their free_userdata is called, not done),
 * and the NSS helper with the lookups stuck in it. */
Resolver *resolver_free(Resolver *r);
DEFINE_TRIVIAL_CLEANUP_FUNC(Resolver *, resolver_free);

/* What the cache knows of uid: 0 and *ret_user (valid until the loop next
 * runs a resolver event), -ESRCH (no such user), or -ENOENT (nothing known,
 * or expired or flushed: resolver_wait()). The stale answer while a lookup
 * of the user hangs past its stale wait. Starts no lookup. */
int resolver_get(Resolver *r, uid_t uid, const PolicyUser **ret_user);
/* Starts the lookup of uid, or joins the one in flight, and calls done
 * once, from the loop, when it ends or the timeout passes (a result at
 * hand: at the loop's next turn). done then owns userdata; free_userdata
 * (may be NULL) runs only for a wait that never ends (resolver_free()).
 * 0, or -EBUSY (every cache entry is a lookup in flight, or
 * RESOLVER_WAITS_MAX waits), -ENOMEM: then nothing is called. */
int resolver_wait(Resolver *r, uid_t uid, resolver_done_t done, void *userdata,
		  void (*free_userdata)(void *userdata));
/* Ends the lifetime of every cached result (each user's last good answer
 * stays the stale fallback); lookups in flight are asked again when they
 * end, and their results are not cached. */
void resolver_flush(Resolver *r);

/* For tests: the lookups started so far. */
unsigned resolver_n_lookups(Resolver *r);
