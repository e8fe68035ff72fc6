/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * irqbalance, which Debian installs on many machines and which rewrites
 * IRQ affinities every 10 s: the shield tells it instead of fighting it.
 * irqbalance (1.x, built with its UI, as Debian's is) listens on
 * RUN/irqbalance/irqbalancePID.sock, one message per connection from root
 * (it checks the sender's credentials): "setup" answers "SLEEP n IRQ n
 * LOAD n DIFF n CLASS n ... BANNED <mask>" (the IRQs it leaves alone and
 * the CPUs it places none on), "settings cpus LIST|NULL" replaces the
 * banned CPUs (applied at its next pass), "settings ban irqs N N...|NONE"
 * replaces the banned IRQs. The shield bans its CPUs and the IRQs it
 * keeps there, and gives both settings back after; where irqbalance runs
 * but its socket cannot be reached, the shield moves no IRQ (it would be
 * undone within seconds) and says why. Every exchange is bounded by
 * IRQBALANCE_TIMEOUT_MSEC.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cpu-set.h"
#include "shield-file.h"
#include "shield-record.h"

#define IRQBALANCE_TIMEOUT_MSEC 500

typedef enum ShieldIrqbalanceState {
	SHIELD_IRQBALANCE_ABSENT,      /* not running */
	SHIELD_IRQBALANCE_TOLD,	       /* running, its socket answers */
	SHIELD_IRQBALANCE_UNREACHABLE, /* running, its socket does not answer */
} ShieldIrqbalanceState;

typedef struct ShieldIrqbalance {
	ShieldIrqbalanceState state;
	pid_t pid;
	char why[256];	  /* UNREACHABLE: what failed and what to do */
	char banned[256]; /* its banned CPUs as a list, "" for none */
	char irqs[256];	  /* the IRQs it leaves alone, "43 44", "" for none */
} ShieldIrqbalance;

/* Looks for irqbalance among PROC's processes and asks it for its
 * settings. */
void shield_irqbalance_find(const ShieldRoots *roots, ShieldIrqbalance *ret);
/* Adds to record what to tell a TOLD irqbalance: its banned CPUs with the
 * shield's, its banned IRQs with kept. -E2BIG when the IRQs do not fit in
 * one of its messages (then none is added). */
int shield_irqbalance_plan(const ShieldIrqbalance *ib, const CpuSet *shield, const unsigned *kept,
			   size_t n_kept, ShieldRecord *record);
/* Tells irqbalance e's want. -errno. */
int shield_irqbalance_apply(const ShieldRoots *roots, const ShieldEntry *e);
/* Gives irqbalance e's before back, when it still runs with e's pid and
 * the setting is the shield's (or not applied yet, which it may be until
 * its next pass). 1 given back, 0 left (*ret_gone: it runs no more, or
 * under another pid, with its own settings), -errno. */
int shield_irqbalance_restore(const ShieldRoots *roots, const ShieldEntry *e, bool *ret_gone);
