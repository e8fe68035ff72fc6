/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler calls realtimed makes on other threads: grants (always with
 * SCHED_RESET_ON_FORK), reading back what the kernel holds, and the two ways
 * down, which never raise a thread that lowered itself meanwhile.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy-allow.h"

/* What a thread runs with. policy < 0: not known (adopted from a state file
 * that did not record it). */
typedef struct SchedState {
	int policy;	    /* SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, ... */
	int priority;	    /* 1..99 under SCHED_FIFO/SCHED_RR, else 0 */
	int nice;	    /* kept by the kernel under every policy */
	bool reset_on_fork; /* SCHED_RESET_ON_FORK */
} SchedState;

#define SCHED_STATE_UNKNOWN ((SchedState){ .policy = -1 })

static inline bool sched_state_known(const SchedState *s)
{
	return s->policy >= 0;
}

/* value: priority 1..99 for FIFO/RR, nice -20..19 for NICE; -EINVAL else. */
int sched_apply(pid_t tid, PolicyGrantKind kind, int value);
int sched_get_state(pid_t tid, SchedState *ret);
/* Undoes a grant: back to before, or if unknown SCHED_OTHER at the thread's
 * nice level (nice 0 for a nice grant). Never raises the thread. */
int sched_restore(pid_t tid, PolicyGrantKind kind, const SchedState *before);
/* Demotion: a SCHED_FIFO/RR/DEADLINE thread goes to SCHED_OTHER at its own
 * nice level; any other thread is left as it is. */
int sched_reset(pid_t tid);
/* Does a claim more of the CPU than b? */
bool sched_state_above(const SchedState *a, const SchedState *b);
/* Whether now may be what a grant of kind and value left: SCHED_RESET_ON_FORK
 * still set (only a privileged caller clears it) and no more than granted. */
bool sched_state_may_hold(const SchedState *now, PolicyGrantKind kind, int value);
/* FIFO/RR as that kind and priority, OTHER/BATCH as a nice level; -EINVAL else. */
int sched_state_as_grant(const SchedState *s, PolicyGrantKind *ret_kind, int *ret_value);
/* SCHED_DEADLINE (deadline = period) with reset-on-fork, for the canary
 * watchdog; -EPERM/-EBUSY where the kernel refuses. */
int sched_apply_deadline(pid_t tid, uint64_t runtime_nsec, uint64_t period_nsec);
