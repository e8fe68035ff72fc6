/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The figures and verdicts of realtimectl latency; see latency-stats.h.
 */
#include <string.h>

#include "latency-stats.h"

const unsigned lat_frames[6] = { 32, 64, 128, 256, 512, 1024 };
const unsigned lat_rates[3] = { 44100, 48000, 96000 };

void lat_hist_init(LatHist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

double lat_hist_avg_us(const LatHist *h)
{
	return h->samples ? (double)h->sum_ns / (double)h->samples / 1000.0 : 0.0;
}

uint64_t lat_hist_percentile_us(const LatHist *h, double share)
{
	/* the rank of the sample at share, rounded up: p99 of 100 samples is the 99th */
	uint64_t want = (uint64_t)((double)h->samples * share + 0.999999), seen = 0;
	uint64_t max_us = (h->max_ns + 999) / 1000;

	if (h->samples == 0)
		return 0;
	if (want == 0)
		want = 1;
	for (unsigned us = 0; us < LAT_HIST_BUCKETS; us++) {
		seen += h->count[us];
		if (seen >= want)
			return us == LAT_HIST_BUCKETS - 1 || us + 1 > max_us ? max_us : us + 1;
	}
	return max_us;
}

uint64_t lat_thread_offset_ns(uint64_t interval_ns, size_t k, size_t n)
{
	if (n == 0)
		return 0;
	k %= n;
	/* in two parts, so that no product can overflow */
	return interval_ns / n * k + interval_ns % n * k / n;
}

uint64_t lat_period_ns(unsigned frames, unsigned rate)
{
	return rate ? (uint64_t)frames * 1000000000u / rate : 0;
}

LatVerdict lat_verdict(uint64_t worst_ns, unsigned frames, unsigned rate)
{
	uint64_t period = lat_period_ns(frames, rate);

	if (worst_ns <= period / LAT_VERDICT_OK_SHARE)
		return LAT_VERDICT_OK;
	if (worst_ns <= period / LAT_VERDICT_TIGHT_SHARE)
		return LAT_VERDICT_TIGHT;
	return LAT_VERDICT_GLITCH;
}

static const char *const verdict_names[_LAT_VERDICT_MAX] = {
	[LAT_VERDICT_OK] = "ok",
	[LAT_VERDICT_TIGHT] = "tight",
	[LAT_VERDICT_GLITCH] = "glitch",
};

const char *lat_verdict_to_string(LatVerdict v)
{
	return v >= 0 && v < _LAT_VERDICT_MAX ? verdict_names[v] : NULL;
}
