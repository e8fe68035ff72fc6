/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * irqbalance (1.x with its UI socket, as Debian builds it), told over
 * RUN/irqbalance/irqbalancePID.sock instead of fought: one message per
 * connection from root, "setup" answers its banned IRQs and CPUs,
 * "settings cpus LIST|NULL" and "settings ban irqs N...|NONE" replace
 * them. Every exchange is bounded by IRQBALANCE_TIMEOUT_MSEC.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shield-move.h"

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

/* Looks for irqbalance among PROC's processes and asks its settings. */
void shield_irqbalance_find(const ShieldRoots *roots, ShieldIrqbalance *ret);
/* Adds to record its banned CPUs with the shield's and its banned IRQs
 * with kept. -E2BIG when the IRQs do not fit one message (none added). */
int shield_irqbalance_plan(const ShieldIrqbalance *ib, const CpuSet *shield, const unsigned *kept,
			   size_t n_kept, ShieldRecord *record);
/* Tells irqbalance e's want. -errno. */
int shield_irqbalance_apply(const ShieldRoots *roots, const ShieldEntry *e);
/* Gives e's before back while irqbalance runs with e's pid and the
 * setting is the shield's (or not applied yet): 1 given back, 0 left
 * (*ret_gone: it runs no more, or under another pid), -errno. */
int shield_irqbalance_restore(const ShieldRoots *roots, const ShieldEntry *e, bool *ret_gone);
