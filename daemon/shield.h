/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shield (realtime.conf(5) Shield=, realtimed(8) SHIELD): the
 * shielded CPUs kept free of the interrupts and unbound work that can
 * move while a realtime grant is supervised, taken at the first and given
 * back SHIELD_LINGER_USEC after the last, at a reload that changes
 * Shield= and at stop; re-applied SHIELD_SETTLE_USEC after a device or
 * CPU uevent or a resume. Driven like cpu-dma.h, never polled.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "daemon.h"
#include "shield-move.h"

#define SHIELD_LINGER_USEC (3ULL * 1000000ULL)
#define SHIELD_SETTLE_USEC (1000ULL * 1000ULL)

typedef struct Shield Shield;

typedef enum ShieldState {
	SHIELD_UNSET,	  /* Shield=none */
	SHIELD_RELEASED,  /* set, but no realtime grant is supervised */
	SHIELD_HELD,	  /* in force */
	SHIELD_LINGERING, /* in force; the last grant ended, given back soon */
	SHIELD_REFUSED,	  /* a grant runs, but Shield= leaves the rest too little */
	SHIELD_FAILED,	  /* a grant runs, but the record could not be written */
	_SHIELD_STATE_MAX,
	_SHIELD_STATE_INVALID = -EINVAL,
} ShieldState;

/* What realtimectl status shows (bus-props.c: the Shield property). */
typedef struct ShieldStatus {
	ShieldState state;
	char cpus[256];		/* the shielded CPUs, "" while not held */
	unsigned moved;		/* IRQs moved off them */
	const ShieldLeft *left; /* IRQs on them that stay, and why */
	size_t n_left;
	char irqbalance[320]; /* "" when not running, "told (pid N)", or why not */
	char problem[1024];   /* why it is not held, or what it left undone */
} ShieldStatus;

/* A shield over roots (copied), not held. -ENOMEM. */
int shield_new(sd_event *event, const ShieldRoots *roots, Shield **ret);
/* Frees s without giving anything back (shield_stop() does). NULL-safe. */
Shield *shield_free(Shield *s);

/* Takes or gives back the shield after policy p (Shield= and the rest,
 * its [IRQ] rules) and whether a realtime grant is supervised (want);
 * pins and unpins the grants of t when ShieldPin=yes. p and t must live
 * until the next call or shield_stop(): the device and resume events use
 * them. */
void shield_update(Shield *s, const Policy *p, GrantTable *t, bool want);
/* Gives back what a realtimed that did not stop left in the record (a
 * crash, SIGKILL, the OOM killer): at start, before anything is taken. */
void shield_recover(Shield *s);
/* Gives everything back now (realtimed stops). */
void shield_stop(Shield *s);
/* A kernel uevent ("ACTION@DEVPATH"): a device added or bound, a CPU on-
 * or offline re-applies the shield after SHIELD_SETTLE_USEC. */
void shield_uevent(Shield *s, const char *event);

void shield_status(const Shield *s, ShieldStatus *ret);
const char *shield_state_to_string(ShieldState st);

/* The daemon's shield after its policy and grant table (a no-op without
 * d->shield). Called at each change of the table and each reload
 * (manager.c), as cpu_dma_sync(). */
void shield_sync(Daemon *d);
