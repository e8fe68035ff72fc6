/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the canary's files share: canary.c the main thread's side,
 * canary-watchdog.c the two threads, canary-fire.c the watchdog's firing.
 */
#pragma once

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "canary.h"
#include "time-util.h"

/* The watchdog's SCHED_DEADLINE reservation: 10% of one CPU, late by at most
 * a period behind a runaway. */
#define WATCHDOG_RUNTIME_NSEC (5ULL * 1000000ULL)
#define WATCHDOG_PERIOD_NSEC (50ULL * 1000000ULL)
#define WATCHDOG_FIFO_PRIORITY 99

#define SLOTS 4	      /* looks per window */
#define PROBE_SHARE 4 /* a probe asks for 1/PROBE_SHARE of a look's interval */
/* Realtime use of every CPU (%) that makes a look held; of one CPU, that
 * blames a user. */
#define HELD_PERCENT 90

/* A realtime thread realtimed did not grant, as canary_note_unknown() saw it. */
typedef struct UnknownThread {
	pid_t pid, tid;
	uid_t uid;
	uint64_t start_time;
	uint64_t runtime; /* ns, when noted */
	uint64_t looked;  /* ns, at the watchdog's last look since */
} UnknownThread;

/* A target and what the watchdog's looks found of it. */
typedef struct Watched {
	CanaryTarget target;
	uint64_t runtime;	   /* CPU time (ns) at the last look, 0 before */
	bool realtime;		   /* it ran SCHED_FIFO/RR/DEADLINE at the last look */
	uint64_t slot_nsec[SLOTS]; /* realtime CPU time in each slot of the window */
} Watched;

/* What the watchdog works on, allocated by the main thread with room for
 * what a firing writes: the watchdog never allocates (a main thread starved
 * while holding the malloc lock must not block it). */
typedef struct Watch {
	Watched *targets; /* sorted by user, then process */
	size_t n_targets;
	bool looked;	       /* targets hold the last look's */
	CanaryTarget *demoted; /* the granted threads demoted, then the others */
	CanaryClamp *clamped;
	CanaryBlame *blamed;
	CanaryBlame *users;  /* each user's realtime time, to blame */
	CanaryReport report; /* what the firing did; its lists point into the above */
} Watch;

struct Canary {
	sd_event *event;
	sd_event_source *fired_source;
	sd_event_source *restore_source;
	char *proc;
	canary_fired_t fired;
	void *userdata;

	pthread_mutex_t lock; /* priority inheritance: the watchdog may wait on it */
	Watch watch;	      /* under lock */
	Watch firing;	      /* under lock: the Watch that fired */
	bool report_pending;  /* under lock: until the main thread collected it */
	bool demote_unknown;  /* under lock */

	/* the watchdog's only: the unknown threads noted last, and when */
	UnknownThread unknown[CANARY_UNKNOWN_CLAMP_MAX];
	size_t n_unknown_seen;
	uint64_t unknown_usec;

	/* main thread only */
	CanaryClass klass;
	CanaryClamp *restore; /* given back after CanaryRefuseSec */
	size_t n_restore;
	uint64_t refuse_usec;
	bool running;
	uint64_t watchdog_usec;
	int quit_fd;  /* main -> both threads */
	int fired_fd; /* watchdog -> main */

	/* set before the threads start, read-only while they run */
	uint64_t cheep_usec, slot_usec;
	int started_fd;			  /* watchdog -> main: class reported */
	int canary_timer;		  /* timerfd, every cheep_usec */
	int kick_fd;			  /* watchdog -> canary: moved, or a probe asked */
	int started_class, started_error; /* atomic: what the watchdog became */
	pthread_t canary_thread, watchdog_thread;
	/* atomic: cheeps since the last look; the probe asked (0: none), and
	 * the last that got probe_nsec of CPU time */
	unsigned cheeps, probe_gen, probe_done;
	uint64_t probe_nsec;
	/* written by the canary before it publishes its tid (atomic) */
	cpu_set_t canary_cpus;
	pid_t canary_tid;
};

/* The watchdog's view of the last window, per slot. */
typedef struct Window {
	uint64_t elapsed[SLOTS];
	uint64_t held[SLOTS];
	bool deprived[SLOTS]; /* the probe run in it did not get its time */
	bool measured[SLOTS]; /* the granted threads' realtime time is known */
	unsigned cheeps[SLOTS];
	unsigned next;
	uint64_t last;	      /* CLOCK_MONOTONIC of the previous look */
	uint64_t boot_offset; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC then */
} Window;

static inline uint64_t u64_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t u64_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* canary-watchdog.c: */
/* SCHED_DEADLINE, else SCHED_FIFO 99, for the calling thread; the errno of
 * SCHED_DEADLINE's refusal in *ret_error. */
CanaryClass canary_become_watchdog(int *ret_error);
/* Arms the canary's timerfd every cheep_usec from now. -errno. */
int canary_timer_start(Canary *c);
/* The threads' entry points; data is the Canary. */
void *canary_thread_main(void *data);
void *canary_watchdog_main(void *data);
/* CPU time (ns) a thread has used (its schedstat); 0 when it is gone. */
uint64_t canary_thread_runtime(const char *proc, pid_t pid, pid_t tid);

/* canary-fire.c: */
/* How long (usec) in the window the canary was kept from running. */
uint64_t canary_window_missing(const Window *win, uint64_t cheep_usec);
/* Blames, clamps and demotes (every user's threads when escalate), and
 * hands the main thread the report. Returns whether it demoted any thread. */
bool canary_watchdog_fire(Canary *c, const Window *win, bool escalate, unsigned probe_percent);
/* Notes up to CANARY_UNKNOWN_CLAMP_MAX non-root realtime threads as of now,
 * for the blame at the next firing. */
void canary_note_unknown(Canary *c, uint64_t now);
