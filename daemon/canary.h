/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The canary watchdog (realtimed(8), SAFETY): demotes realtime threads that
 * starve the machine. The watchdog thread blames, clamps and demotes by
 * itself, without allocating, logging or waiting on the main thread.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

/* Foreign processes clamped per firing (threads beyond are still demoted). */
#define CANARY_UNKNOWN_CLAMP_MAX 256

typedef struct Canary Canary;

typedef struct CanaryTarget {
	pid_t pid;
	pid_t tid;
	uint64_t start_time;
	uid_t uid; /* whose grant: the user blamed for it */
} CanaryTarget;

/* A user blamed, and their threads' realtime CPU time in the window. */
typedef struct CanaryBlame {
	uid_t uid;
	uint64_t realtime_usec;
} CanaryBlame;

/* A process whose RLIMIT_RTPRIO the watchdog set to 0. */
typedef struct CanaryClamp {
	pid_t pid;
	uint64_t start_time; /* of the process, against pid reuse */
	struct rlimit old;
} CanaryClamp;

typedef struct CanaryReport {
	const CanaryTarget *demoted; /* the granted, then up to 256 unknown */
	size_t n_demoted, n_unknown_listed;
	const CanaryBlame *blamed; /* to be refused for CanaryRefuseSec */
	size_t n_blamed;
	bool escalated;		 /* starvation persisted: every user's threads demoted */
	size_t n_unknown;	 /* threads realtimed never granted, demoted */
	size_t n_clamped;	 /* processes whose RLIMIT_RTPRIO is now 0 */
	unsigned cheeps_percent; /* of the cheeps expected in the window */
	uint64_t held_usec;	 /* how long granted threads held every CPU in it */
	unsigned probe_percent;	 /* of the CPU time the last probe asked, 100 if none */
	uint64_t window_usec;
} CanaryReport;

typedef enum CanaryClass {
	CANARY_CLASS_DEADLINE,
	CANARY_CLASS_FIFO,  /* SCHED_FIFO 99: the fallback */
	CANARY_CLASS_OTHER, /* neither: the watchdog preempts nothing */
	_CANARY_CLASS_MAX,
	_CANARY_CLASS_INVALID = -EINVAL,
} CanaryClass;

typedef struct CanarySettings {
	uint64_t watchdog_usec; /* CanaryWatchdogSec; 0 disables the canary */
	uint64_t refuse_usec;	/* CanaryRefuseSec: how long clamped limits stay 0 */
	bool demote_unknown;	/* CanaryDemoteUnknown */
} CanarySettings;

/* Called in the main thread after the watchdog fired. */
typedef void (*canary_fired_t)(const CanaryReport *report, void *userdata);

/* Probes the class the watchdog gets. */
int canary_new(sd_event *e, const char *proc, canary_fired_t fired, void *userdata, Canary **ret);
/* Gives clamped processes their RLIMIT_RTPRIO back at once. */
Canary *canary_free(Canary *c);

/* Sets the targets (copied, any order); starts the threads when n > 0, stops
 * them at 0. Memory held stays proportional to n. */
int canary_update(Canary *c, const CanaryTarget *targets, size_t n, const CanarySettings *s);
CanaryClass canary_class(const Canary *c);
const char *canary_class_to_string(CanaryClass k);
/* The highest SCHED_FIFO/RR priority the watchdog can preempt: 99 as
 * SCHED_DEADLINE, 98 as SCHED_FIFO 99, 0 when it cannot run realtime. */
int canary_max_grant_priority(const Canary *c);
