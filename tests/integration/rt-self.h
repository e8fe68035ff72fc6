/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the runaways of the canary tests (rt-client spin, canary-load) ask
 * about themselves: the monotonic clock and whether realtimed made them
 * realtime. Header-only: canary-load is built from its one file.
 */
#pragma once

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

/* CLOCK_MONOTONIC in microseconds. */
static inline uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The calling thread runs SCHED_FIFO or SCHED_RR. */
static inline bool is_realtime(void)
{
	int p = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

	return p == SCHED_FIFO || p == SCHED_RR;
}
