/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the shield changes, between shield.c (when), shield-move.c (what
 * moves and the writes) and shield-record.c (the record under STATE_DIR
 * and each value given back from it). Every change is planned as an entry
 * of the record, saved before it is written. Roots are "/proc", "/sys",
 * "/run" for realtimed and a fake tree in the unit tests; the files' reads
 * and writes never log and open O_NONBLOCK, writes O_NOFOLLOW.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "cpu-set.h"
#include "grants.h"
#include "macro.h"
#include "policy.h"
#include "procfs-interrupts.h"

typedef struct ShieldRoots {
	const char *proc;
	const char *sys;
	const char *run;       /* irqbalance's socket directory is under it */
	const char *state_dir; /* the record's directory */
} ShieldRoots;

typedef enum ShieldKind {
	SHIELD_KIND_IRQ,	     /* PROC/irq/ID/smp_affinity_list */
	SHIELD_KIND_IRQ_DEFAULT,     /* PROC/irq/default_smp_affinity */
	SHIELD_KIND_WORKQUEUE,	     /* SYS/devices/virtual/workqueue/cpumask */
	SHIELD_KIND_GOVERNOR,	     /* SYS/devices/system/cpu/cpuID/cpufreq/scaling_governor */
	SHIELD_KIND_EPP,	     /* the same CPU's energy_performance_preference */
	SHIELD_KIND_THREAD,	     /* thread ID's CPU affinity */
	SHIELD_KIND_IRQBALANCE_CPUS, /* irqbalance (pid ID): its banned CPUs */
	SHIELD_KIND_IRQBALANCE_IRQS, /* irqbalance (pid ID): the IRQs it leaves alone */
	_SHIELD_KIND_MAX,
	_SHIELD_KIND_INVALID = -EINVAL,
} ShieldKind;

/* An IRQ's action name (printable ASCII), or a thread's "PID-START". */
#define SHIELD_NAME_MAX 96
#define SHIELD_RECORD_MAX 16384
#define SHIELD_PINS_MAX 1024
#define SHIELD_LEFT_MAX 64
#define SHIELD_KEPT_MAX 64

typedef struct ShieldEntry {
	ShieldKind kind;
	unsigned id;
	char name[SHIELD_NAME_MAX];
	char *before;	 /* the value before, as read */
	char *want;	 /* what the shield writes */
	bool irqbalance; /* irqbalance places this IRQ too */
} ShieldEntry;

typedef struct ShieldRecord {
	char *path;
	ShieldEntry *entries;
	size_t n, allocated;
} ShieldRecord;

/* An IRQ that stays on the shield, for realtimectl status. */
typedef struct ShieldLeft {
	unsigned irq;
	char name[SHIELD_NAME_MAX];
	char why[160];
} ShieldLeft;

typedef struct ShieldMovePlan {
	const CpuSet *shield, *rest;
	const Policy *policy; /* its [IRQ] rules name IRQs to keep */
	const char *keep;     /* ShieldKeep= */
	bool irqbalance;      /* irqbalance places IRQs too */
	/* filled in: the IRQs kept on the shield, for status and irqbalance */
	ShieldLeft left[SHIELD_LEFT_MAX];
	size_t n_left;
	unsigned kept[SHIELD_KEPT_MAX];
	size_t n_kept;
} ShieldMovePlan;

/* shield-move.c */

/* The first line of root/rel, NUL-terminated. -errno; -EFBIG when it does
 * not fit. */
int shield_file_read(const char *root, const char *rel, char *buf, size_t size);
/* The same as a CPU list or mask. -EBADMSG when it holds neither. */
int shield_file_read_cpus(const char *root, const char *rel, bool mask, CpuSet *ret);
/* value and a newline in one write(). -errno as the kernel answered. */
int shield_file_write(const char *root, const char *rel, const char *value);
/* What to do about err from shield_file_write(). */
const char *shield_file_write_hint(int err);

/* Adds to record every IRQ whose affinity reaches the shield, but the
 * sound cards', [IRQ] rules' and ShieldKeep='s (listed in plan->left and
 * plan->kept). How many were added; -errno when PROC/interrupts cannot be
 * read. */
int shield_move_plan_irqs(const ShieldRoots *roots, ShieldMovePlan *plan, ShieldRecord *record);
/* Adds the default IRQ affinity (irq true) and the workqueues' cpumask
 * where they reach the shield. How many were added. */
int shield_move_plan_defaults(const ShieldRoots *roots, const ShieldMovePlan *plan, bool irq,
			      ShieldRecord *record);
void shield_move_left(ShieldMovePlan *plan, unsigned irq, const char *name, const char *fmt, ...)
	_printf_(4, 5);
/* Adds each CPU's governor, or energy-performance preference, of that
 * name where it is not already. How many; why names the first CPU that
 * has neither. */
int shield_cpufreq_plan(const char *sys, const CpuSet *shield, const char *name,
			ShieldRecord *record, char *why, size_t size);
/* Adds each realtime grant of t not recorded yet, with its affinity now
 * (at most SHIELD_PINS_MAX threads). How many were added. */
int shield_pin_plan(const char *proc, GrantTable *t, const CpuSet *shield, ShieldRecord *record);
bool shield_pin_granted(GrantTable *t, const ShieldEntry *e);
/* Sets e's thread (told by tid and start time) to e->want, then e->want
 * to what the kernel reports. -ESRCH when it is gone. */
int shield_pin_apply(const char *proc, ShieldEntry *e);
/* 1 given back, 0 left (*ret_gone: no such thread), -errno. */
int shield_pin_restore(const char *proc, const ShieldEntry *e, bool *ret_gone);

/* shield-record.c: lines "KIND ID NAME BEFORE WANT FLAGS", bytes outside
 * '!'..'~' and '%' as %XX, "-" for "", FLAGS "b" or "-"; written to a
 * temporary file and renamed. */

const char *shield_kind_to_string(ShieldKind k);
ShieldKind shield_kind_from_string(const char *s);
/* An empty record kept at state_dir/shield. -ENOMEM. */
int shield_record_new(const char *state_dir, ShieldRecord **ret);
ShieldRecord *shield_record_free(ShieldRecord *r);
/* Appends a copy. -ENOMEM; -E2BIG past SHIELD_RECORD_MAX. */
int shield_record_add(ShieldRecord *r, ShieldKind kind, unsigned id, const char *name,
		      const char *before, const char *want, bool irqbalance);
ShieldEntry *shield_record_find(ShieldRecord *r, ShieldKind kind, unsigned id);
/* Removes entry i (the last one takes its place). */
void shield_record_drop(ShieldRecord *r, size_t i);
void shield_record_clear(ShieldRecord *r);
/* An empty record removes the file. -errno, not logged. */
int shield_record_save(const ShieldRecord *r);
/* Appends the file's values. -ENOENT: no file. *ret_bad: lines skipped. */
int shield_record_load(ShieldRecord *r, unsigned *ret_bad);
/* -EINVAL for a line that is no value; free with shield_entry_done(). */
int shield_record_parse_line(const char *line, ShieldEntry *ret);
void shield_entry_done(ShieldEntry *e);

/* e's file into rel and its root; NULL for the kinds that are no file. */
const char *shield_entry_file(const ShieldRoots *roots, const ShieldEntry *e, char *rel,
			      size_t size);
/* "IRQ 24 (nvme0q1)", "CPU 3's cpufreq governor", ... */
void shield_entry_describe(const ShieldEntry *e, char *buf, size_t size);
/* Writes the record's values from first on, irqbalance's first; drops
 * each the kernel refuses, listing an IRQ that stays on plan->shield in
 * plan and logging the others (the first into problem). Returns the IRQs
 * moved. */
int shield_apply_from(const ShieldRoots *roots, ShieldRecord *record, size_t first,
		      ShieldMovePlan *plan, char *problem, size_t size);
typedef enum ShieldRestoreResult {
	SHIELD_RESTORE_GIVEN_BACK, /* written back */
	SHIELD_RESTORE_ALREADY,	   /* it was back already (or never written) */
	SHIELD_RESTORE_CHANGED,	   /* someone else changed it since: left */
	SHIELD_RESTORE_GONE,	   /* no such IRQ, thread or irqbalance any more */
	SHIELD_RESTORE_FAILED,	   /* the write failed */
	_SHIELD_RESTORE_MAX,
} ShieldRestoreResult;

/* Gives e->before back while the value is still the shield's (an IRQ
 * while its number names the same action); logs what is left or failed.
 * c: PROC/interrupts read already, or NULL. */
ShieldRestoreResult shield_restore_entry(const ShieldRoots *roots, const ShieldEntry *e,
					 const IrqCounts *c);
/* Gives back every value (irqbalance's last), logs a summary saying when,
 * empties the record and removes its file. */
void shield_restore_all(const ShieldRoots *roots, ShieldRecord *record, const char *when);
