/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler calls that realtimed makes on other threads: SCHED_FIFO /
 * SCHED_RR with SCHED_RESET_ON_FORK, a nice level, reading back what the
 * kernel holds (to verify a grant after making it, and to remember what a
 * thread had before it), and the two ways down: putting back what a thread
 * had before its grant, and demoting a realtime thread to SCHED_OTHER.
 * Neither way down ever raises a thread: a thread that lowered itself
 * meanwhile stays where it is.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy-allow.h"

/* A grant's kind is policy's PolicyGrantKind (common/policy-allow.h), so
 * that a Grant is put to policy_grant_allows() as it is. */

/* What a thread runs with. policy < 0: not known (a grant adopted from a
 * state file that did not record it). */
typedef struct SchedState {
	int policy;	    /* SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, ... */
	int priority;	    /* 1..99 under SCHED_FIFO/SCHED_RR, else 0 */
	int nice;	    /* the thread's nice level, kept by the kernel under every policy */
	bool reset_on_fork; /* SCHED_RESET_ON_FORK */
} SchedState;

#define SCHED_STATE_UNKNOWN ((SchedState){ .policy = -1 })

static inline bool sched_state_known(const SchedState *s)
{
	return s->policy >= 0;
}

/* value: priority 1..99 for FIFO/RR, nice -20..19 for NICE. Always sets
 * SCHED_RESET_ON_FORK so children do not inherit the grant. */
int sched_apply(pid_t tid, PolicyGrantKind kind, int value);
/* Reads what the thread runs with now. */
int sched_get_state(pid_t tid, SchedState *ret);
/* Undoes a grant of kind: puts back before, what the thread had before it,
 * or when that is not known, SCHED_OTHER at the thread's own nice level
 * (for a nice grant: nice 0). Never raises the thread above what it runs
 * with now: a thread that lowered itself since stays as it is. */
int sched_restore(pid_t tid, PolicyGrantKind kind, const SchedState *before);
/* The demotion: a realtime thread goes to SCHED_OTHER at its own nice level
 * (the kernel keeps it under SCHED_FIFO/RR); any other thread is left as it
 * is, so this never raises a thread (never nice 0 for a nice-19 thread,
 * never SCHED_OTHER for a SCHED_IDLE one). */
int sched_reset(pid_t tid);
/* Does a claim more of the CPU than b? (SCHED_DEADLINE above SCHED_FIFO/RR
 * by priority, above the fair policies by nice level, above SCHED_IDLE.) */
bool sched_state_above(const SchedState *a, const SchedState *b);
/* Whether a thread running now may hold what a grant of kind and value
 * left on it: SCHED_RESET_ON_FORK, which every change of realtimed sets
 * and only a privileged caller clears, and no more than the grant gave (a
 * thread may lower itself, and switch between the realtime policies only
 * at a priority it holds already). */
bool sched_state_may_hold(const SchedState *now, PolicyGrantKind kind, int value);
/* A state as the grant it is: SCHED_FIFO/RR as fifo/rr and the priority,
 * SCHED_OTHER/BATCH as a nice level. -EINVAL for SCHED_IDLE or
 * SCHED_DEADLINE, which realtimed never grants. */
int sched_state_as_grant(const SchedState *s, PolicyGrantKind *ret_kind, int *ret_value);
/* SCHED_DEADLINE: runtime_nsec of CPU time every period_nsec (deadline =
 * period), with SCHED_FLAG_RESET_ON_FORK. For the canary watchdog, which must
 * outrank every SCHED_FIFO priority; -EPERM/-EBUSY where the kernel refuses. */
int sched_apply_deadline(pid_t tid, uint64_t runtime_nsec, uint64_t period_nsec);
