/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/latency-stats.c, the figures of realtimectl
 * latency on synthetic samples: the histogram's buckets, its overflow bucket
 * with the exact maximum, min/avg, p99 and p99.9 where the answer is known
 * by construction, and the verdict rule at its edges (1/4 and 1/2 of the
 * period) for the buffer sizes of the table.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "latency-stats.h"

static LatHist *hist_new(void)
{
	LatHist *h = malloc(sizeof(*h));

	ck_assert_ptr_nonnull(h);
	lat_hist_init(h);
	return h;
}

START_TEST(test_buckets)
{
	LatHist *h = hist_new();

	ck_assert_uint_eq(lat_hist_percentile_us(h, 0.99), 0);
	ck_assert(lat_hist_avg_us(h) == 0.0);
	lat_hist_add(h, 0);
	lat_hist_add(h, 999);
	lat_hist_add(h, 1000);
	lat_hist_add(h, 2500);
	ck_assert_uint_eq(h->count[0], 2);
	ck_assert_uint_eq(h->count[1], 1);
	ck_assert_uint_eq(h->count[2], 1);
	ck_assert_uint_eq(h->samples, 4);
	ck_assert_uint_eq(h->min_ns, 0);
	ck_assert_uint_eq(h->max_ns, 2500);
	ck_assert(lat_hist_avg_us(h) > 1.1 && lat_hist_avg_us(h) < 1.125);
	/* far beyond the last bucket: counted there, the maximum exact */
	lat_hist_add(h, 123456789);
	ck_assert_uint_eq(h->count[LAT_HIST_BUCKETS - 1], 1);
	ck_assert_uint_eq(h->max_ns, 123456789);
	ck_assert_uint_eq(lat_hist_percentile_us(h, 1.0), 123457);
	free(h);
}
END_TEST

START_TEST(test_percentiles)
{
	LatHist *h = hist_new();
	uint64_t sum = 0;

	/* 1000 samples: 990 at 3.5 us, 9 at 40.2 us, one at 700.1 us */
	for (int i = 0; i < 990; i++)
		lat_hist_add(h, 3500);
	for (int i = 0; i < 9; i++)
		lat_hist_add(h, 40200);
	lat_hist_add(h, 700100);
	for (unsigned us = 0; us < LAT_HIST_BUCKETS; us++)
		sum += h->count[us];
	ck_assert_uint_eq(sum, h->samples);
	/* p99 is the 990th sample: 3.5 us, reported as its bucket's edge, 4 */
	ck_assert_uint_eq(lat_hist_percentile_us(h, 0.99), 4);
	/* p99.9 is the 999th: 40.2 us -> 41 */
	ck_assert_uint_eq(lat_hist_percentile_us(h, 0.999), 41);
	/* the maximum is 700.1: p100 says 701 */
	ck_assert_uint_eq(lat_hist_percentile_us(h, 1.0), 701);
	ck_assert_uint_eq(h->min_ns, 3500);
	/* the edge of a bucket never exceeds the exact maximum */
	lat_hist_init(h);
	lat_hist_add(h, 5000);
	ck_assert_uint_eq(lat_hist_percentile_us(h, 0.5), 5);
	free(h);
}
END_TEST

START_TEST(test_verdicts)
{
	/* 64 frames at 48 kHz: 1333333 ns; ok up to a quarter, tight up to half */
	ck_assert_uint_eq(lat_period_ns(64, 48000), 1333333);
	ck_assert_uint_eq(lat_period_ns(256, 48000), 5333333);
	ck_assert_uint_eq(lat_period_ns(32, 44100), 725623);
	ck_assert_int_eq(lat_verdict(0, 64, 48000), LAT_VERDICT_OK);
	ck_assert_int_eq(lat_verdict(333333, 64, 48000), LAT_VERDICT_OK);
	ck_assert_int_eq(lat_verdict(333334, 64, 48000), LAT_VERDICT_TIGHT);
	ck_assert_int_eq(lat_verdict(666666, 64, 48000), LAT_VERDICT_TIGHT);
	ck_assert_int_eq(lat_verdict(666667, 64, 48000), LAT_VERDICT_GLITCH);
	/* a worst wakeup of 400 us: glitch at 32/96k, tight at 64/48k, ok at 256/48k */
	ck_assert_int_eq(lat_verdict(400000, 32, 96000), LAT_VERDICT_GLITCH);
	ck_assert_int_eq(lat_verdict(400000, 64, 48000), LAT_VERDICT_TIGHT);
	ck_assert_int_eq(lat_verdict(400000, 256, 48000), LAT_VERDICT_OK);
	ck_assert_str_eq(lat_verdict_to_string(LAT_VERDICT_OK), "ok");
	ck_assert_str_eq(lat_verdict_to_string(LAT_VERDICT_TIGHT), "tight");
	ck_assert_str_eq(lat_verdict_to_string(LAT_VERDICT_GLITCH), "glitch");
	ck_assert_ptr_null(lat_verdict_to_string(_LAT_VERDICT_MAX));
	/* the table: larger buffers and lower rates never judge worse */
	for (uint64_t worst = 0; worst < 30000000; worst += 77777)
		for (size_t i = 1; i < ELEMENTSOF(lat_frames); i++)
			for (size_t j = 0; j < ELEMENTSOF(lat_rates); j++) {
				ck_assert_int_le(
					lat_verdict(worst, lat_frames[i], lat_rates[j]),
					lat_verdict(worst, lat_frames[i - 1], lat_rates[j]));
				if (j > 0)
					ck_assert_int_le(
						lat_verdict(worst, lat_frames[i], lat_rates[j - 1]),
						lat_verdict(worst, lat_frames[i], lat_rates[j]));
			}
}
END_TEST

/* The threads' first wakeups spread evenly over one interval, so that the
 * CPUs' timers do not all fire at one instant (cyclictest's threads do not
 * either): each offset below the interval, in order, none twice. */
START_TEST(test_offsets)
{
	ck_assert_uint_eq(lat_thread_offset_ns(1000000, 0, 1), 0);
	ck_assert_uint_eq(lat_thread_offset_ns(1000000, 0, 2), 0);
	ck_assert_uint_eq(lat_thread_offset_ns(1000000, 1, 2), 500000);
	ck_assert_uint_eq(lat_thread_offset_ns(1000000, 3, 4), 750000);
	/* a second interval, 4096 CPUs: no overflow, all distinct */
	for (size_t n = 1; n <= 4096; n *= 4)
		for (size_t k = 1; k < n; k++) {
			ck_assert_uint_lt(lat_thread_offset_ns(1000000000, k, n), 1000000000);
			ck_assert_uint_gt(lat_thread_offset_ns(1000000000, k, n),
					  lat_thread_offset_ns(1000000000, k - 1, n));
		}
	/* k outside 0..n-1: within the interval still */
	ck_assert_uint_lt(lat_thread_offset_ns(1000000, 7, 2), 1000000);
	ck_assert_uint_eq(lat_thread_offset_ns(1000000, 0, 0), 0);
}
END_TEST

/* The measuring loop's tally: count, sum, minimum and maximum kept aside
 * (in the loop's registers) and written back at the end give the same
 * histogram as adding one by one; the loop learns of each new worst wakeup
 * as it comes, and of no other; a second tally continues the first. */
START_TEST(test_tally)
{
	static const uint64_t late[] = { 3500, 999, 40200, 40200, 0, 123456789, 5000, 700100 };
	static const bool worst[] = { true, false, true, true, false, true, false, false };
	LatHist *a = hist_new(), *b = hist_new();
	LatTally t = lat_tally_start(b);
	uint64_t written = 0;

	for (size_t i = 0; i < ELEMENTSOF(late); i++) {
		lat_hist_add(a, late[i]);
		ck_assert_int_eq(lat_tally_add(b, &t, late[i]), worst[i]);
		/* until the tally is written back, only the buckets move */
		ck_assert_uint_eq(b->samples, written);
		if (i == 3) {
			lat_tally_done(b, &t);
			t = lat_tally_start(b);
			written = i + 1;
		}
	}
	lat_tally_done(b, &t);
	ck_assert_uint_eq(b->samples, a->samples);
	ck_assert_uint_eq(b->sum_ns, a->sum_ns);
	ck_assert_uint_eq(b->min_ns, a->min_ns);
	ck_assert_uint_eq(b->max_ns, a->max_ns);
	ck_assert_int_eq(memcmp(b->count, a->count, sizeof(a->count)), 0);
	free(a);
	free(b);
}
END_TEST

int main(void)
{
	return check_run_case("ctl-latency-stats", "stats",
			      CHECK_TESTS(test_buckets, test_percentiles, test_verdicts,
					  test_offsets, test_tally),
			      NULL, NULL);
}
