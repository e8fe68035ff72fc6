/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Demotion: taking back what realtimed granted, from a list of threads or
 * from the grants a filter takes, for one reason, and telling through the
 * daemon's hooks (Demoted). A thread is changed only while its tid is
 * still the thread that was granted (its start time, and the pidfds of its
 * grant); its grant leaves the table either way.
 */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon.h"
#include "grants.h"

typedef enum DemoteReason {
	DEMOTE_RESET,  /* a client's reset: back to what the thread had before */
	DEMOTE_POLICY, /* the policy in force no longer allows it: the same */
	DEMOTE_CANARY, /* the canary watchdog fired: SCHED_OTHER */
	_DEMOTE_REASON_MAX,
	_DEMOTE_REASON_INVALID = -EINVAL,
} DemoteReason;

/* "reset", "policy", "canary": the reason the Demoted signal carries. */
const char *demote_reason_to_string(DemoteReason r);

typedef struct DemoteThread {
	pid_t pid;
	pid_t tid;
	uint64_t start_time; /* of the thread when it was granted */
	/* set by demote_threads(): the grant's owner (Grant.owner), who is
	 * told; "" when not known */
	char owner[GRANT_OWNER_MAX];
} DemoteThread;

/* A demotion whose list cannot be allocated goes in batches of this many,
 * listed on the stack. */
#define DEMOTE_BATCH 64

/* Demotes each of threads[0..n) that is still the thread granted, for
 * reason: after a reset or a reload it gets back what it ran with before
 * its first grant (sched_restore()), after the canary fired it goes to
 * SCHED_OTHER (sched_reset()); neither ever raises it. A thread that is not
 * in t (a grant under way when the canary fired) is judged by its start
 * time alone. The grant of every listed thread leaves t; a grant of its tid
 * that another thread holds now stays. Moves the threads demoted to the
 * front of threads, in order, each with its grant's owner, and returns how
 * many: for DEMOTE_CANARY all of them, which the watchdog demoted before,
 * also those gone since. */
size_t demote_threads(GrantTable *t, DemoteThread *threads, size_t n, DemoteReason reason);

/* Room for a demotion's list of n threads: on the stack when they fit,
 * else on the heap, else (no memory) the stack all the same, and the
 * demotion goes DEMOTE_BATCH threads at a time: it must not wait for
 * memory, nor leave a thread realtime for want of it. */
typedef struct DemoteList {
	DemoteThread *threads;
	size_t size;
	DemoteThread stack[DEMOTE_BATCH];
} DemoteList;

void demote_list_init(DemoteList *l, size_t n, DemoteReason reason);
void demote_list_done(DemoteList *l);

/* demote_threads() on d's table, and Demoted(reason) through d->hooks for
 * the threads demoted. Returns how many. */
size_t demote_tell(Daemon *d, DemoteThread *threads, size_t n, DemoteReason reason);

/* Whether demote_grants() takes grant g of process p. */
typedef bool (*grant_filter_t)(Daemon *d, const GrantProcess *p, const Grant *g, void *userdata);
/* Demotes the grants of d's table that filter takes, for reason, and
 * tells (demote_tell()). Returns how many threads were demoted. */
size_t demote_grants(Daemon *d, grant_filter_t filter, void *userdata, DemoteReason reason);
/* Resets each grant of pid (tid 0: all threads of the process; pid 0: every
 * grant) to what the thread had before it, removes them, emits
 * Demoted(reason "reset"). Returns how many threads were demoted. */
unsigned demote_reset(Daemon *d, pid_t pid, pid_t tid);
