/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Taking back grants, and telling (Demoted). A thread is changed only while
 * its tid is still the thread granted; its grant leaves the table either way.
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
	uint64_t start_time;	     /* of the thread when it was granted */
	char owner[GRANT_OWNER_MAX]; /* set by demote_threads(); "" unknown */
} DemoteThread;

#define DEMOTE_BATCH 64 /* threads listed on the stack */

/* Demotes each of threads[0..n) still the thread granted: to what it had
 * before (sched_restore()), or SCHED_OTHER for DEMOTE_CANARY; never raises.
 * One not in t is judged by its start time. Each listed grant leaves t (not
 * another thread's on the reused tid). Moves the demoted (for DEMOTE_CANARY
 * all, also those gone since) to the front, with owners; returns how many. */
size_t demote_threads(GrantTable *t, DemoteThread *threads, size_t n, DemoteReason reason);

/* Room for n threads: the stack, else the heap, else (no memory) the stack
 * DEMOTE_BATCH at a time: no thread stays realtime for want of memory. */
typedef struct DemoteList {
	DemoteThread *threads;
	size_t size;
	DemoteThread stack[DEMOTE_BATCH];
} DemoteList;

void demote_list_init(DemoteList *l, size_t n, DemoteReason reason);
void demote_list_done(DemoteList *l);

/* demote_threads(), and Demoted(reason) for those demoted. Returns how many. */
size_t demote_tell(Daemon *d, DemoteThread *threads, size_t n, DemoteReason reason);

/* Whether demote_grants() takes grant g of process p. */
typedef bool (*grant_filter_t)(Daemon *d, const GrantProcess *p, const Grant *g, void *userdata);
/* demote_tell() of the grants filter takes. Returns how many. */
size_t demote_grants(Daemon *d, grant_filter_t filter, void *userdata, DemoteReason reason);
/* DEMOTE_RESET of the grants of pid (0: all) and tid (0: all). Returns how
 * many. */
unsigned demote_reset(Daemon *d, pid_t pid, pid_t tid);
