/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fixed-window rate limiter: at most burst events per interval. Used for
 * the per-user request limit ([Daemon] BurstSec=, ActionsPerBurst=) and for
 * log lines. Pure: the caller passes the time, so tests need no clock.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct RateLimit {
	uint64_t interval_usec;
	unsigned burst;
	uint64_t begin_usec; /* start of the current window */
	unsigned n;	     /* events counted in it */
	bool started;
} RateLimit;

/* Counts one event at now_usec; true if it is within the limit.
 * interval_usec == 0 or burst == 0 disables the limit. */
bool ratelimit_below(RateLimit *rl, uint64_t now_usec);

/* True when the window has passed: the limiter holds no state worth keeping. */
bool ratelimit_idle(const RateLimit *rl, uint64_t now_usec);
/* Whether an event at now_usec would be within the limit; counts nothing. */
bool ratelimit_has_room(const RateLimit *rl, uint64_t now_usec);
