/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency: how late a thread of this user, made realtime the
 * way realtimed grants it, wakes on each CPU. latency.c is the verb (and
 * what check --latency calls), latency-measure.c the measuring threads and
 * the windows of interrupt counts, latency-culprit.c what those name,
 * latency-grant.c getting realtime through realtimed (or without it),
 * latency-print.c the text and JSON, latency-svg.c the picture,
 * latency-stats.c the figures and verdicts, check-latency.c check's line.
 */
#pragma once

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl.h"
#include "latency-stats.h"
#include "procfs-interrupts.h"

/* The interrupt counts are read in windows of at least LAT_WINDOW_MIN_NS:
 * short enough that a burst which delayed one wakeup stands out against
 * the usual rate. Reading both files costs the kernel, which formats them
 * under its IRQ descriptor locks, tens to hundreds of µs (150 µs on the
 * project's 2-core VM; more with many IRQs and CPUs): a window is made
 * LAT_WINDOW_COST_FACTOR times what the last read took, if that is longer,
 * so that reading stays under 0.05% of a CPU, and the measurement costs
 * no more CPU time per wakeup than cyclictest (bench/latency-bench.sh). */
#define LAT_WINDOW_MIN_NS (100 * 1000 * 1000ull)
#define LAT_WINDOW_MAX_NS (1000 * 1000 * 1000ull)
#define LAT_WINDOW_COST_FACTOR 2000

typedef struct LatCpu {
	int cpu;
	pid_t tid;
	int policy;   /* what the thread ran with: SCHED_FIFO, SCHED_RR, SCHED_OTHER */
	int priority; /* its rt priority; 0 for SCHED_OTHER */
	_Atomic uint64_t worst_ns, worst_at_ns; /* published to the main thread */
	LatHist *hist;				/* the thread's own; read after it ended */
	void *mem; /* the thread's stack, then hist: what must stay locked */
	size_t mem_size;

	/* The source that fired most above its usual rate in the window of
	 * the worst wakeup; count in that window of window_ns. */
	uint64_t culprit_for_ns; /* the worst wakeup the window was taken for */
	uint64_t window_ns;
	uint64_t *window_delta; /* per source of the run's first snapshot */
	bool have_culprit;
	IrqSource culprit;
	uint64_t culprit_count, culprit_usual;
} LatCpu;

typedef struct LatRun {
	/* asked for */
	uint64_t duration_ns, interval_ns;
	int priority; /* --priority, or -1 for the highest the policy gives */
	bool progress;

	LatCpu *cpus;
	size_t n_cpus;

	/* how it went */
	bool realtimed;	     /* realtimed answered */
	char note[384];	     /* "measured without realtime: ..." or "" */
	uint64_t elapsed_ns; /* measured; less than duration_ns after Ctrl-C */
	IrqCounts first;     /* the first interrupt snapshot: the culprits' names */
} LatRun;

/* Fills run from ctl's --duration (default_duration_usec when not
 * given), --interval, --priority and --cpu. -1 to go on, or an exit status
 * after saying why; lat_run_done() either way. */
int lat_run_init(LatRun *run, const Ctl *ctl, uint64_t default_duration_usec);

/* Fills run->cpus from a list "0-3,6" (NULL: every CPU this process may
 * run on). Returns -1 to go on, or an exit status after saying why. */
int lat_run_set_cpus(LatRun *run, const char *list);

/* Measures as asked: makes the threads realtime (lat_grant()), locks
 * memory, runs them for the duration, takes the culprits. Messages about
 * what could not be had go to stderr. Returns -1 when there are figures,
 * or an exit status after saying why not. */
int lat_run_measure(LatRun *run);

void lat_run_done(LatRun *run);

/* The worst CPU (the largest maximum); NULL without samples. */
const LatCpu *lat_run_worst(const LatRun *run);

/* latency-measure.c: the threads, then the main thread's windows until
 * they end. start is called once every thread runs, pinned, before the
 * first wakeup is measured (to make them realtime); a value >= 0 from it
 * stops everything. Returns -1, or an exit status. */
int lat_measure(LatRun *run, int (*start)(LatRun *run));

/* latency-culprit.c. After a window (from_ns, to_ns] whose snapshots are
 * prev and cur: keeps, for each CPU whose worst wakeup so far (worst_ns,
 * worst_at_ns) fell in it, the counts of the window per source of
 * run->first, in window_delta (allocated by the caller, one per source). */
void lat_window_take(LatRun *run, const IrqCounts *prev, const IrqCounts *cur, uint64_t from_ns,
		     uint64_t to_ns);
/* At the end, last the run's last snapshot and total_ns its length since
 * run->first: names, per CPU, the source that fired most above its usual
 * rate (over the whole run) in the window of its worst wakeup, if one did
 * by more than chance (three standard deviations of a Poisson count, and
 * 2): the local timer fires at every wakeup, so raw counts would always
 * name it. */
void lat_culprits_find(LatRun *run, const IrqCounts *last, uint64_t total_ns);

/* latency-grant.c: makes each thread of run realtime at the caller's
 * policy through realtimed (SCHED_FIFO where it allows, else SCHED_RR, at
 * its highest priority or run->priority), with the policy's rlimits and
 * memory locked; without realtimed, or refused, at what the process may
 * do itself; says why in run->note. Always returns -1 (go on). */
int lat_grant(LatRun *run);
/* The part without realtimed; why says why it is not used. */
int lat_grant_self(LatRun *run, const char *why);
/* Locks memory (mlockall), or where RLIMIT_MEMLOCK is too low for that,
 * the threads' stacks and histograms; says on stderr what it could not. */
void lat_lock_memory(const LatRun *run);

/* check-latency.c: check --latency's line into r, after the table's
 * results res of context c. -1, or an exit status after saying why. */
typedef struct CheckContext CheckContext;
typedef struct CheckResult CheckResult;
int check_latency(const Ctl *ctl, const CheckContext *c, const CheckResult *res, CheckResult *r);

/* latency-print.c */
int lat_print_text(const LatRun *run, FILE *f);
int lat_print_json(const LatRun *run, FILE *f);
/* "SCHED_FIFO 95" or "SCHED_OTHER" for the policy the first CPU ran at. */
void lat_policy_string(const LatRun *run, char *buf, size_t size);

/* latency-svg.c: the picture into path. -errno. */
int lat_write_svg(const LatRun *run, const char *path);
