/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency's figures, pure: the per-CPU histogram that a
 * measuring thread fills (1 µs buckets, no allocation, no I/O, so it may
 * run in a realtime loop), the figures read from it (average, percentiles)
 * and the verdict for an audio buffer size. latency.c measures,
 * latency-print.c and latency-svg.c show. Unit-tested in
 * test-ctl-latency-stats.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* Buckets of 1 µs up to 10 ms: a wakeup later than that is a dropout at
 * every buffer size people use; it is counted in the last bucket, and the
 * maximum is kept exactly. 80 KiB per CPU. */
#define LAT_HIST_BUCKETS 10000u

typedef struct LatHist {
	uint64_t samples;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t count[LAT_HIST_BUCKETS]; /* [us]: wakeups late by us..us+1 µs; the last: or more */
} LatHist;

/* An empty histogram. */
void lat_hist_init(LatHist *h);

/* A histogram's count, sum, minimum and maximum, kept aside while a
 * measuring loop runs (in its registers), so that a wakeup touches one line
 * of the histogram, its bucket's, and no more: cyclictest's loop touches as
 * little. lat_tally_done() writes them back. */
typedef struct LatTally {
	uint64_t samples, sum_ns, min_ns, max_ns;
} LatTally;

static inline LatTally lat_tally_start(const LatHist *h)
{
	return (LatTally){ h->samples, h->sum_ns, h->min_ns, h->max_ns };
}

/* Records one wakeup late by ns nanoseconds into h's buckets and t.
 * Cheap, allocation-free. Returns whether it is the worst so far (or as
 * bad as the worst: the later of two equal ones counts). */
static inline bool lat_tally_add(LatHist *h, LatTally *t, uint64_t ns)
{
	uint64_t us = ns / 1000;

	h->count[us < LAT_HIST_BUCKETS ? us : LAT_HIST_BUCKETS - 1]++;
	t->samples++;
	t->sum_ns += ns;
	if (ns < t->min_ns)
		t->min_ns = ns;
	if (ns < t->max_ns)
		return false;
	t->max_ns = ns;
	return true;
}

static inline void lat_tally_done(LatHist *h, const LatTally *t)
{
	h->samples = t->samples;
	h->sum_ns = t->sum_ns;
	h->min_ns = t->min_ns;
	h->max_ns = t->max_ns;
}

/* Records one wakeup late by ns nanoseconds, tally and all. */
static inline void lat_hist_add(LatHist *h, uint64_t ns)
{
	LatTally t = lat_tally_start(h);

	(void)lat_tally_add(h, &t, ns);
	lat_tally_done(h, &t);
}

/* The average in µs; 0 without samples. */
double lat_hist_avg_us(const LatHist *h);
/* The smallest whole µs that at least share (0..1] of the samples are
 * below (the upper edge of their bucket), capped by the exact maximum:
 * 0.99 gives p99. 0 without samples. */
uint64_t lat_hist_percentile_us(const LatHist *h, double share);

/* The verdict for one buffer size, from the worst wakeup measured. */
typedef enum LatVerdict {
	LAT_VERDICT_OK,	    /* worst wakeup <= 1/4 of the period */
	LAT_VERDICT_TIGHT,  /* <= 1/2: only light processing will fit */
	LAT_VERDICT_GLITCH, /* more: expect dropouts */
	_LAT_VERDICT_MAX,
	_LAT_VERDICT_INVALID = -EINVAL,
} LatVerdict;

/* The shares of the period of the rule above, as realtimectl(1) states it. */
#define LAT_VERDICT_OK_SHARE 4	  /* ok: worst <= period / 4 */
#define LAT_VERDICT_TIGHT_SHARE 2 /* tight: worst <= period / 2 */

/* When the k-th of n measuring threads starts its first interval, after
 * the common start: k/n of the interval, so that the CPUs' wakeups are
 * spread over the period rather than all at one instant (which costs every
 * thread the others' timer work on a VM, and is not how audio threads
 * wake). 0 for n == 0; k is taken modulo n. */
uint64_t lat_thread_offset_ns(uint64_t interval_ns, size_t k, size_t n);

/* The period of frames at rate Hz, in ns. */
uint64_t lat_period_ns(unsigned frames, unsigned rate);
LatVerdict lat_verdict(uint64_t worst_ns, unsigned frames, unsigned rate);
const char *lat_verdict_to_string(LatVerdict v);

/* The buffer sizes and rates of the verdict table. */
extern const unsigned lat_frames[6];
extern const unsigned lat_rates[3];
