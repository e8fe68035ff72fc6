/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/latency-culprit.c on synthetic snapshots of
 * interrupt counts: the source named for a CPU's worst wakeup is the one
 * above its usual rate in that window (a storage IRQ's burst), not the
 * local timer that fires at every wakeup, and not a count within chance
 * of its usual; a CPU whose window held nothing unusual names none; a
 * later, smaller worst does not replace the window kept; a source gone
 * from a snapshot counts nothing.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "latency.h"

#define MS 1000000ull

static const char *const keys[] = { "LOC", "24", "s:TIMER" };
static const char *const names[] = { "LOC (Local timer interrupts)", "IRQ 24 (nvme0q1)",
				     "softirq TIMER" };

/* A snapshot of the three sources on two CPUs: counts[source][cpu]. */
static IrqCounts snap(const uint64_t counts[3][2], size_t n_sources)
{
	IrqCounts c = { .n_cpus = 2, .n_sources = n_sources };

	c.sources = calloc(n_sources, sizeof(IrqSource));
	c.counts = calloc(n_sources * 2, sizeof(uint64_t));
	ck_assert(c.sources && c.counts);
	for (size_t i = 0; i < n_sources; i++) {
		strcpy(c.sources[i].key, keys[i]);
		strcpy(c.sources[i].name, names[i]);
		memcpy(&c.counts[i * 2], counts[i], sizeof(counts[i]));
	}
	return c;
}

static void run_init(LatRun *run, LatCpu *cpus)
{
	static const uint64_t zero[3][2] = {};

	memset(cpus, 0, 2 * sizeof(LatCpu));
	*run = (LatRun){ .cpus = cpus, .n_cpus = 2, .first = snap(zero, 3) };
	for (size_t k = 0; k < 2; k++) {
		cpus[k].cpu = (int)k;
		cpus[k].window_delta = calloc(3, sizeof(uint64_t));
	}
}

static void run_done(LatRun *run)
{
	for (size_t k = 0; k < run->n_cpus; k++)
		free(run->cpus[k].window_delta);
	procfs_irq_counts_done(&run->first);
}

static void worst(LatCpu *c, uint64_t ns, uint64_t at)
{
	atomic_store(&c->worst_ns, ns);
	atomic_store(&c->worst_at_ns, at);
}

START_TEST(test_burst)
{
	/* 10 s; the window 5.0 to 5.1 s; CPU 1's storage IRQ bursts there */
	static const uint64_t at5000[3][2] = { { 5000, 5000 }, { 100, 100 }, { 2500, 2500 } };
	static const uint64_t at5100[3][2] = { { 5100, 5115 }, { 102, 1900 }, { 2550, 2550 } };
	static const uint64_t at10s[3][2] = { { 10000, 10015 }, { 200, 1990 }, { 5000, 5000 } };
	IrqCounts prev = snap(at5000, 3), cur = snap(at5100, 3), last = snap(at10s, 3);
	LatCpu cpus[2];
	LatRun run;

	run_init(&run, cpus);
	worst(&cpus[0], 90000, 5070 * MS);
	worst(&cpus[1], 412000, 5050 * MS);
	/* a window before the worst wakeups keeps nothing */
	lat_window_take(&run, &run.first, &prev, 0, 5000 * MS);
	ck_assert_uint_eq(cpus[1].window_ns, 0);
	lat_window_take(&run, &prev, &cur, 5000 * MS, 5100 * MS);
	ck_assert_uint_eq(cpus[1].window_ns, 100 * MS);
	ck_assert_uint_eq(cpus[1].window_delta[1], 1800);
	ck_assert_uint_eq(cpus[1].culprit_for_ns, 412000);
	lat_culprits_find(&run, &last, 10000 * MS);

	/* CPU 1: the IRQ at 1,800 where 20 are usual; LOC's 115 against
	 * 100 is chance */
	ck_assert(cpus[1].have_culprit);
	ck_assert_str_eq(cpus[1].culprit.name, "IRQ 24 (nvme0q1)");
	ck_assert_uint_eq(cpus[1].culprit_count, 1800);
	ck_assert_uint_eq(cpus[1].culprit_usual, 20);
	/* CPU 0: every source at its usual rate */
	ck_assert(!cpus[0].have_culprit);

	procfs_irq_counts_done(&prev);
	procfs_irq_counts_done(&cur);
	procfs_irq_counts_done(&last);
	run_done(&run);
}
END_TEST

START_TEST(test_worst_kept)
{
	static const uint64_t a[3][2] = { { 100, 100 }, { 0, 0 }, { 10, 10 } };
	static const uint64_t b[3][2] = { { 200, 200 }, { 0, 900 }, { 20, 20 } };
	static const uint64_t c[3][2] = { { 300, 300 }, { 0, 900 }, { 30, 30 } };
	static const uint64_t d[3][2] = { { 400, 400 }, { 0, 900 }, { 40, 40 } };
	IrqCounts sa = snap(a, 3), sb = snap(b, 3), sc = snap(c, 3), sd = snap(d, 2);
	LatCpu cpus[2];
	LatRun run;

	run_init(&run, cpus);
	worst(&cpus[1], 300000, 150 * MS);
	lat_window_take(&run, &sa, &sb, 100 * MS, 200 * MS);
	ck_assert_uint_eq(cpus[1].window_delta[1], 900);
	/* the same worst, published again later, is not taken again; nor
	 * is a window after it */
	lat_window_take(&run, &sb, &sc, 200 * MS, 300 * MS);
	ck_assert_uint_eq(cpus[1].window_delta[1], 900);
	/* a larger worst later: its window replaces it; TIMER is gone from
	 * the last snapshot, so counts nothing */
	worst(&cpus[1], 500000, 350 * MS);
	lat_window_take(&run, &sc, &sd, 300 * MS, 400 * MS);
	ck_assert_uint_eq(cpus[1].culprit_for_ns, 500000);
	ck_assert_uint_eq(cpus[1].window_delta[1], 0);
	ck_assert_uint_eq(cpus[1].window_delta[0], 100);
	ck_assert_uint_eq(cpus[1].window_delta[2], 0);
	lat_culprits_find(&run, &sd, 400 * MS);
	ck_assert(!cpus[1].have_culprit);

	procfs_irq_counts_done(&sa);
	procfs_irq_counts_done(&sb);
	procfs_irq_counts_done(&sc);
	procfs_irq_counts_done(&sd);
	run_done(&run);
}
END_TEST

int main(void)
{
	return check_run_case("ctl-latency-culprit", "culprit",
			      CHECK_TESTS(test_burst, test_worst_kept), NULL, NULL);
}
