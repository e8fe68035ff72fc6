/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the two halves of the canary share (canary.h has the design): the
 * Canary, the Watch the watchdog works on, the figures both halves derive
 * their timing from, and the threads' entry points. canary.c is the main
 * thread's side (start, stop, updates, the report, giving limits back);
 * canary-watchdog.c is the canary's and the watchdog's threads, and
 * canary-fire.c what the watchdog does when it fires.
 */
#pragma once

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "canary.h"
#include "time-util.h"

/* SCHED_DEADLINE reservation of the watchdog: it needs microseconds per look,
 * more only while demoting; 10% of one CPU at most, and never late by more
 * than a period behind a runaway. */
#define WATCHDOG_RUNTIME_NSEC (5ULL * 1000000ULL)
#define WATCHDOG_PERIOD_NSEC (50ULL * 1000000ULL)
#define WATCHDOG_FIFO_PRIORITY 99

/* The watchdog looks four times per window. */
#define SLOTS 4
/* A probe (canary.h) asks for 1/PROBE_SHARE of a look's interval of CPU
 * time. */
#define PROBE_SHARE 4

/* A realtime thread realtimed did not grant, as the watchdog noted it
 * (half way to a firing, or at a firing that did not escalate): the CPU
 * time it uses counts towards the looks' held time, and at the next firing
 * the CPU time it used since blames its user. */
typedef struct UnknownThread {
	pid_t pid, tid;
	uid_t uid;
	uint64_t start_time;
	uint64_t runtime; /* ns, then */
	uint64_t looked;  /* ns, at the watchdog's last look since */
} UnknownThread;

/* What the watchdog works on. The main thread allocates it with each update,
 * with room for what the watchdog may write when it fires, so that the
 * watchdog never allocates (a main thread starved while holding the malloc
 * lock must not block it). */
typedef struct Watch {
	CanaryTarget *targets; /* sorted by pid, so one process's threads are adjacent */
	size_t n_targets;
	CanaryTarget *demoted; /* room for n_targets */
	size_t n_demoted;
	CanaryClamp *clamped; /* room for max_clamped */
	size_t n_clamped, max_clamped;
	size_t n_unknown;
	CanaryBlame *blamed; /* room for n_targets */
	size_t n_blamed;
	CanaryBlame *users; /* room for n_targets: each user's realtime time, to blame */
	bool escalated;
	/* realtime CPU time (us) of every granted thread in the starved slots
	 * of the window, and how long those slots were (watch_blame()) */
	uint64_t realtime_usec, starved_usec;
	unsigned cheeps_percent, probe_percent;
	uint64_t held_usec;
	uint64_t *runtime;   /* per target: CPU time (ns) at the last look, 0 before */
	bool looked;	     /* runtime holds the last look's (not so at the first) */
	bool *realtime;	     /* per target: it ran SCHED_FIFO/RR/DEADLINE at the last look */
	uint64_t *slot_nsec; /* per target and slot (i * SLOTS + slot): realtime CPU time */
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
	Watch report;	      /* under lock: filled when the watchdog fired */
	bool report_pending;  /* under lock: until the main thread collected it */
	bool demote_unknown;  /* under lock */

	/* the watchdog's only (allocated by canary_new()): the unknown
	 * realtime threads of the last firing, CANARY_UNKNOWN_CLAMP_MAX at
	 * most, when; and room to add up their CPU time per user */
	UnknownThread *unknown;
	size_t n_unknown_seen;
	uint64_t unknown_usec;
	CanaryBlame *unknown_users;
	/* and the unknown threads the last firing demoted, for its report
	 * (read by the main thread while the report waits) */
	CanaryTarget *unknown_demoted;
	size_t n_unknown_demoted;

	/* main thread only */
	CanaryClass klass;
	int class_error; /* why SCHED_DEADLINE was refused */
	CanaryClamp *restore;
	size_t n_restore;
	uint64_t refuse_usec;
	bool running;
	uint64_t watchdog_usec;
	int quit_fd;  /* main -> both threads */
	int fired_fd; /* watchdog -> main */

	/* set before the threads start, read-only while they run */
	uint64_t cheep_usec, slot_usec;
	int cheep_fd;			  /* canary -> watchdog: the count of cheeps */
	int started_fd;			  /* watchdog -> main: class reported */
	int canary_timer;		  /* timerfd, every cheep_usec */
	int kick_fd;			  /* watchdog -> canary: moved, arm the timer again */
	int started_class, started_error; /* atomic: what the watchdog became */
	pthread_t canary_thread, watchdog_thread;
	/* the probe (canary.h): the watchdog asks for probe number probe_gen
	 * (0: none), the canary sets probe_done to it once it got probe_nsec
	 * of CPU time; both atomic */
	unsigned probe_gen, probe_done;
	uint64_t probe_nsec; /* set before the threads start */
	/* written by the canary before it publishes its tid (atomic), then
	 * read by the watchdog only */
	cpu_set_t canary_cpus;
	pid_t canary_tid;
};

/* A look in which granted threads ran realtime for this share of every
 * CPU the canary may use (in 1/100) counts as held by them; a user whose
 * granted threads ran realtime for this share of one CPU over the window
 * is blamed for it. */
#define HELD_PERCENT 90

/* The watchdog's view of the last window: per slot, how long it was, how
 * many cheeps came, how long granted threads held every CPU, and whether
 * the probe that ran in it found the fair class deprived. */
typedef struct Window {
	uint64_t elapsed[SLOTS];
	uint64_t held[SLOTS];
	bool deprived[SLOTS];
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

/* Tries SCHED_DEADLINE, then SCHED_FIFO 99, for the calling thread; the
 * errno of SCHED_DEADLINE's refusal in *ret_error. */
CanaryClass canary_become_watchdog(int *ret_error);
/* The threads' entry points; data is the Canary. */
/* Arms the canary's timerfd: every cheep_usec, the first cheep_usec from
 * now, from the CPU the caller runs on (canary-watchdog.c). -errno. */
int canary_timer_start(Canary *c);
void *canary_thread_main(void *data);
void *canary_watchdog_main(void *data);

/* CPU time (ns) a thread has used (its schedstat); 0 when it is gone
 * (canary-watchdog.c). */
uint64_t canary_thread_runtime(Canary *c, pid_t pid, pid_t tid);
/* How long in the window the canary was kept from running, in
 * microseconds; the share of the window its cheeps covered and how long
 * granted threads held every CPU (canary-fire.c). */
uint64_t canary_window_missing(const Window *win, uint64_t cheep_usec, unsigned *ret_percent,
			       uint64_t *ret_held);
/* The watchdog fires on the last window: blames, demotes and clamps (all
 * users' threads when escalate), and hands the main thread the report
 * (canary-fire.c). Returns whether it demoted any thread. */
bool canary_watchdog_fire(Canary *c, const Window *win, bool escalate, unsigned probe_percent);
/* Notes every realtime thread of a user other than root as it is at now
 * (CANARY_UNKNOWN_CLAMP_MAX at most), for the blame at the next firing:
 * the CPU time each used since (canary-fire.c). In the watchdog only. */
void canary_note_unknown(Canary *c, uint64_t now);
