/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time in microseconds, the unit every part keeps durations in (policy's
 * RTTime=, the daemon's timers and windows, sd-event's clocks). Header only.
 */
#pragma once

#include <stdint.h>
#include <time.h>

#define NSEC_PER_USEC 1000ULL
#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC 1000000ULL

/* Now on clock (CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME), in
 * microseconds. clock_gettime() cannot fail for these clocks. */
static inline uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}
