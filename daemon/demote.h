/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Demotion: taking back what realtimed granted to a list of threads, for
 * one reason. A thread is changed only while its tid is still the thread
 * that was granted (its start time, and the pidfds of its grant); its grant
 * leaves the table either way. Which threads, and who is told, is the
 * manager's business (manager.h).
 */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
