/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The grant, once the checks before it passed: of realtime or a nice level
 * to one thread (RLIMIT_RTTIME, the thread checked again right before and
 * after it is changed, the canary watching it from the moment it turns
 * realtime, the read-back of what the thread holds, and the grant table),
 * or of rlimits to a process (GrantLimits). prlimit() names the process by
 * its pid number: each change is checked against the pinned pidfd before
 * and after, and one that landed on a process that took the pid is put
 * back (NoSuchProcess is the answer).
 */
#pragma once

#include "canary.h"
#include "request.h"

/* 0 when the thread holds the grant and the table supervises it, else the
 * answer (request.h) with its text in r->why; the thread is then left as
 * it was. */
int request_grant_sched(Request *r, const PolicyGrant *g, const char *user);

/* 0 with r->reply set to the answer (each limit set: name -> its hard
 * limit now), else the answer (request.h) with its text in r->why. */
int request_grant_limits(Request *r, const PolicyGrant *g, const char *user);

/* Lowers RLIMIT_RTTIME of r's process to RTTime= where realtimed may, else refuses (as rtkit). */
int request_lower_rttime(Request *r, const PolicyGrant *g, const char *user);

/* The canary's view of the grant table, kept in step when the table
 * changes (the manager's callback) and by a grant under way. *//* Hands the canary every supervised realtime thread, plus pending (may be
 * NULL): a thread about to be granted, so that a thread which spins the
 * moment it turns realtime, starving the loop before the grant is
 * recorded, is still watched. < 0 (logged) when the canary could not take
 * the list: then pending is not watched, and must not be granted. */
int supervise_canary_sync(Daemon *d, const CanaryTarget *pending);
/* The highest realtime priority that may be granted with the canary in
 * force: 99, or lower when its watchdog cannot preempt 99 (realtimed(8)). */
int supervise_max_priority(Daemon *d);
