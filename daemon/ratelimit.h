/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fixed-window rate limiter: at most burst events per interval (the
 * per-user request limit, log lines). Pure: the caller passes the time.
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

/* Counts one event; true if within the limit. A 0 interval or burst: no limit. */
bool ratelimit_below(RateLimit *rl, uint64_t now_usec);
/* True when the window has passed: the limiter holds no state worth keeping. */
bool ratelimit_idle(const RateLimit *rl, uint64_t now_usec);
/* Whether an event now would be within the limit; counts nothing. */
bool ratelimit_has_room(const RateLimit *rl, uint64_t now_usec);
