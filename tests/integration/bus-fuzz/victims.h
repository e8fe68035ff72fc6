// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shared by the parts of bus-fuzz's victims, and by them only: victims.c
 * (the tables that calls pick from), sleepers.c (the fuzzer's sleeping
 * threads) and children.c (its child processes). The rest of bus-fuzz
 * sees them through bus-fuzz.h.
 */
#pragma once

#include "bus-fuzz.h"

#define CHILDREN_MAX 4
#define CHILD_THREADS_MAX 8

/* victims.c */
extern atomic_bool victims_stopping; /* the run is over: threads return */
void sleep_usec(uint64_t usec);
/* Lowers the calling thread to baseline index % 4 (see victims.c). */
void victims_set_baseline(int index);
/* Thread tid of process pid becomes a target, its scheduling now its baseline. */
void victims_add_thread(TargetKind kind, pid_t pid, pid_t tid, int sleeper);
/* Ids that ended join the dead pools: pid (0: none) and tids, whose
 * targets are gone. */
void victims_add_dead(pid_t pid, const pid_t *tids, size_t n_tids);

/* sleepers.c: SLEEPERS threads, seeded from r; returns once each runs. */
int sleepers_start(Rng *r);
void sleepers_stop(void);

/* children.c: n processes of threads_per_child threads each. */
int children_start(unsigned n, unsigned threads_per_child);
void children_stop(void);
/* Kills the next child and starts another in its place. */
void children_churn(void);
