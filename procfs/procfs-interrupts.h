/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-CPU interrupt and softirq counts from /proc/interrupts and
 * /proc/softirqs, for realtimectl latency, which names the source that fired
 * most against its usual rate while a CPU woke late. The files are hostile
 * input as far as this reader is concerned: lines longer than
 * PROCFS_IRQ_LINE_MAX are skipped, at most PROCFS_IRQ_SOURCES_MAX sources are
 * kept, a key that comes again is left out, and names are cut and made
 * printable ASCII (other bytes become '?'), so they can go into text, JSON
 * and XML as they are. Unit-tested in test-procfs-interrupts.c and fuzzed
 * (tests/fuzz/fuzz-procfs-interrupts.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROCFS_IRQ_LINE_MAX (64 * 1024)
#define PROCFS_IRQ_SOURCES_MAX 8192
#define PROCFS_IRQ_KEY_MAX 16
#define PROCFS_IRQ_NAME_MAX 96

typedef struct IrqSource {
	char key[PROCFS_IRQ_KEY_MAX];	  /* "24", "LOC", "s:TIMER": unique in a snapshot */
	char name[PROCFS_IRQ_NAME_MAX];	  /* "IRQ 24 (nvme0q1)", "LOC (Local timer interrupts)",
					   * "softirq TIMER" */
	char action[PROCFS_IRQ_NAME_MAX]; /* a numbered IRQ's first action ("nvme0q1"), else "" */
} IrqSource;

/* A snapshot: counts[source * n_cpus + i] for the i-th CPU asked for. */
typedef struct IrqCounts {
	size_t n_cpus;
	size_t n_sources;
	IrqSource *sources;
	uint64_t *counts;
} IrqCounts;

/* Appends the sources of path, a file in /proc/interrupts' format
 * (softirqs: /proc/softirqs', whose keys get "s:" before them), with the
 * counts of cpus[0..n_cpus) (a CPU the file has no column for counts 0).
 * n_cpus must be the same for every call on one snapshot. -errno when the
 * file cannot be read or its header names no CPU. */
int procfs_irq_counts_read(const char *path, bool softirqs, const int *cpus, size_t n_cpus,
			   IrqCounts *counts);

/* Empties a snapshot, keeping nothing. */
void procfs_irq_counts_done(IrqCounts *counts);

/* The index of key in counts, trying hint first (the same index in the
 * previous snapshot); -1 when absent. */
long procfs_irq_counts_find(const IrqCounts *counts, const char *key, size_t hint);
