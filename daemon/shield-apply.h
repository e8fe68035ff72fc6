/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A value of the shield's record (shield-record.h) written, and given
 * back: a file's (an IRQ's affinity, the default affinity, the
 * workqueues' cpumask, a governor), a thread's affinity (shield-pin.h) or
 * irqbalance's setting (shield-irqbalance.h). A value is given back only
 * while it still is what the shield wrote (an affinity compared as a set
 * of CPUs, a governor as a word), and an IRQ only while its number still
 * names the action it named (numbers are reused); a value someone else
 * changed since is left as it is, and the journal says so.
 */
#pragma once

#include <stddef.h>

#include "shield-file.h"
#include "shield-record.h"

typedef enum ShieldRestoreResult {
	SHIELD_RESTORE_GIVEN_BACK, /* written back */
	SHIELD_RESTORE_ALREADY,	   /* it was back already (or never written) */
	SHIELD_RESTORE_CHANGED,	   /* someone else changed it since: left */
	SHIELD_RESTORE_GONE,	   /* no such IRQ, thread or irqbalance any more */
	SHIELD_RESTORE_FAILED,	   /* the write failed */
	_SHIELD_RESTORE_MAX,
} ShieldRestoreResult;

typedef struct ShieldRestoreCounts {
	unsigned n[_SHIELD_RESTORE_MAX];
} ShieldRestoreCounts;

/* Writes e->want. A thread's want becomes the affinity the kernel gave
 * it (the shield's CPUs that are online). -errno, not logged. */
int shield_apply_entry(const ShieldRoots *roots, ShieldEntry *e);
/* Gives e->before back (see above), logging what is left and what
 * failed, with what to do. */
ShieldRestoreResult shield_restore_entry(const ShieldRoots *roots, const ShieldEntry *e);
/* Gives back every value of record (irqbalance's settings last), logs a
 * summary naming when ("the last realtime grant ended"), empties record
 * and removes its file. The counts into *ret, when not NULL. */
void shield_restore_all(const ShieldRoots *roots, ShieldRecord *record, const char *when,
			ShieldRestoreCounts *ret);
/* "IRQ 24 (nvme0q1)", "the default IRQ affinity", "CPU 3's governor",
 * "thread 1234", ... for the journal. */
void shield_entry_describe(const ShieldEntry *e, char *buf, size_t size);
