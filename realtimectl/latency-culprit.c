/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where each CPU's worst wakeup came from, from the interrupt counts the
 * main thread reads once per window (latency-measure.c): pure, so that
 * test-ctl-latency-culprit.c can feed it snapshots; see latency.h.
 */
#include <math.h>
#include <stdatomic.h>

#include "latency.h"

void lat_window_take(LatRun *run, const IrqCounts *prev, const IrqCounts *cur, uint64_t from_ns,
		     uint64_t to_ns)
{
	for (size_t k = 0; k < run->n_cpus; k++) {
		LatCpu *c = &run->cpus[k];
		uint64_t at = atomic_load_explicit(&c->worst_at_ns, memory_order_acquire);
		uint64_t worst = atomic_load_explicit(&c->worst_ns, memory_order_relaxed);

		if (at <= from_ns || at > to_ns || worst < c->culprit_for_ns || !c->window_delta)
			continue;
		c->culprit_for_ns = worst;
		c->window_ns = to_ns - from_ns;
		for (size_t i = 0; i < run->first.n_sources; i++) {
			const char *key = run->first.sources[i].key;
			long p = procfs_irq_counts_find(prev, key, i),
			     q = procfs_irq_counts_find(cur, key, i);
			uint64_t a, b;

			c->window_delta[i] = 0;
			if (p < 0 || q < 0)
				continue;
			a = prev->counts[(size_t)p * prev->n_cpus + k];
			b = cur->counts[(size_t)q * cur->n_cpus + k];
			c->window_delta[i] = b > a ? b - a : 0;
		}
	}
}

void lat_culprits_find(LatRun *run, const IrqCounts *last, uint64_t total_ns)
{
	for (size_t k = 0; k < run->n_cpus; k++) {
		LatCpu *c = &run->cpus[k];
		double best = 0;

		if (!c->window_ns || !c->window_delta || total_ns == 0)
			continue;
		for (size_t i = 0; i < run->first.n_sources; i++) {
			long q = procfs_irq_counts_find(last, run->first.sources[i].key, i);
			uint64_t a = run->first.counts[i * run->first.n_cpus + k], b, all;
			double usual, excess;

			if (q < 0)
				continue;
			b = last->counts[(size_t)q * last->n_cpus + k];
			all = b > a ? b - a : 0;
			usual = (double)all * (double)c->window_ns / (double)total_ns;
			excess = (double)c->window_delta[i] - usual;
			/* counts vary: 415 timer interrupts where 400 are usual
			 * names nothing (three standard deviations of a Poisson
			 * count, and a few more for small ones) */
			if (excess <= 3 * sqrt(usual) + 2)
				continue;
			if (excess > best) {
				best = excess;
				c->have_culprit = true;
				c->culprit = run->first.sources[i];
				c->culprit_count = c->window_delta[i];
				c->culprit_usual = (uint64_t)(usual + 0.5);
			}
		}
	}
}
