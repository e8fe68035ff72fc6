/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The canary's view of the grant table (canary.h): the realtime grants it
 * watches, and what it can preempt. Called when the table changes (the
 * manager's callback) and by a grant under way (request-sched.c).
 */
#pragma once

#include "canary.h"
#include "daemon.h"

/* Hands the canary every supervised realtime thread, plus pending (may be
 * NULL): a thread about to be granted, so that a thread which spins the
 * moment it turns realtime, starving the loop before the grant is
 * recorded, is still watched. < 0 (logged) when the canary could not take
 * the list: then pending is not watched, and must not be granted. */
int supervise_canary_sync(Daemon *d, const CanaryTarget *pending);
/* The highest realtime priority that may be granted with the canary in
 * force: 99, or lower when its watchdog cannot preempt 99 (realtimed(8)). */
int supervise_max_priority(Daemon *d);
