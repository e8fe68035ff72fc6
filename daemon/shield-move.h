/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the shield moves off its CPUs, planned as values of its record
 * (shield-record.h) that shield.c then writes: every IRQ of
 * /proc/interrupts whose affinity reaches the shield, but the audio
 * devices' own (shield-audio.h, [IRQ] rules, ShieldKeep=), to its CPUs
 * off the shield (or to the rest of the machine when it had none there);
 * the default affinity of IRQs requested later; the unbound workqueues'
 * cpumask. A value the record holds already is not planned again: one
 * that someone changed since the shield wrote it is theirs (never fought
 * over). What stays on the shield, and why, is the caller's list of
 * ShieldLeft.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cpu-set.h"
#include "policy.h"
#include "shield-file.h"
#include "shield-record.h"

/* An IRQ that stays on the shield, for realtimectl status. */
typedef struct ShieldLeft {
	unsigned irq;
	char name[SHIELD_NAME_MAX]; /* its first action, printable ASCII */
	char why[160];
} ShieldLeft;

#define SHIELD_LEFT_MAX 64
#define SHIELD_KEPT_MAX 64

typedef struct ShieldMovePlan {
	const CpuSet *shield, *rest;
	const Policy *policy; /* its [IRQ] rules name IRQs to keep */
	const char *keep;     /* ShieldKeep= */
	bool irqbalance;      /* irqbalance places IRQs too (the entries say so) */
	/* filled in: the IRQs kept on the shield, for status and irqbalance */
	ShieldLeft left[SHIELD_LEFT_MAX];
	size_t n_left;
	unsigned kept[SHIELD_KEPT_MAX];
	size_t n_kept;
} ShieldMovePlan;

/* Adds to record the IRQs to move (see above). Returns how many were
 * added, -errno when /proc/interrupts cannot be read. */
int shield_move_plan_irqs(const ShieldRoots *roots, ShieldMovePlan *plan, ShieldRecord *record);
/* Adds the default IRQ affinity (unless irq is false: irqbalance cannot
 * be told) and the workqueues' cpumask where they reach the shield.
 * Returns how many were added; a file that cannot be read is logged. */
int shield_move_plan_defaults(const ShieldRoots *roots, const ShieldMovePlan *plan, bool irq,
			      ShieldRecord *record);
/* Adds a ShieldLeft to plan, when there is room. */
void shield_move_left(ShieldMovePlan *plan, unsigned irq, const char *name, const char *fmt, ...)
	_printf_(4, 5);
