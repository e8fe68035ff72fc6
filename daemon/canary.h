/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The canary watchdog. A SCHED_OTHER canary thread cheeps (eventfd) twice
 * per CanaryWatchdogSec; a SCHED_FIFO 99 watchdog thread listens. If
 * no cheep came for CanaryWatchdogSec, SCHED_OTHER work is starving: the
 * watchdog itself demotes every supervised thread at once (no help from the
 * main thread, which may be starving too), then tells the main thread, which
 * drops the grants, refuses new ones for CanaryRefuseSec, logs once and emits
 * Demoted("canary").
 *
 * The threads run only while grants exist: an idle daemon has no timers.
 * Time is CLOCK_MONOTONIC, which stops during suspend; a jump of
 * CLOCK_BOOTTIME against it (a resume) or a watchdog that itself woke far
 * too late (the daemon was stopped with SIGSTOP, or the VM paused) restarts
 * the count instead of firing: a starving canary under a punctual watchdog
 * is the only thing that fires it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct Canary Canary;

typedef struct CanaryTarget {
	pid_t pid;
	pid_t tid;
	uint64_t start_time;
} CanaryTarget;

/* Called in the main thread after the watchdog demoted these threads. */
typedef void (*canary_fired_t)(const CanaryTarget *demoted, size_t n, void *userdata);

int canary_new(sd_event *e, const char *proc, canary_fired_t fired, void *userdata, Canary **ret);
Canary *canary_free(Canary *c);

/* Sets what the watchdog demotes; starts the threads when n > 0 (and stops
 * them when n == 0). watchdog_usec == 0 disables the canary. */
int canary_update(Canary *c, const CanaryTarget *targets, size_t n, uint64_t watchdog_usec);
bool canary_running(const Canary *c);

/* demote.c: what the main thread does when the watchdog fired. */
void daemon_canary_fired(const CanaryTarget *demoted, size_t n, void *userdata);
