/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shield's record (STATE_DIR/shield): every value the shield changes,
 * as it was before and as the shield writes it, written (atomically:
 * temporary file + rename) before anything changes, so that a realtimed
 * killed with the shield held (SIGKILL, the OOM killer) gives everything
 * back at its next start (shield-apply.h). One line per value:
 *   KIND ID NAME BEFORE WANT FLAGS
 * KIND a word of shield_kind_to_string(); ID the IRQ, CPU, thread or
 * irqbalance's pid; NAME the IRQ's action name or the thread's "PID-START";
 * the texts with each byte outside '!'..'~', and '%', as %XX, "-" for an
 * empty one; FLAGS "b" when irqbalance places the IRQ too, else "-". A
 * line that does not parse is skipped and counted, never guessed at.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum ShieldKind {
	SHIELD_KIND_IRQ,	     /* PROC/irq/ID/smp_affinity_list */
	SHIELD_KIND_IRQ_DEFAULT,     /* PROC/irq/default_smp_affinity */
	SHIELD_KIND_WORKQUEUE,	     /* SYS/devices/virtual/workqueue/cpumask */
	SHIELD_KIND_GOVERNOR,	     /* SYS/devices/system/cpu/cpuID/cpufreq/scaling_governor */
	SHIELD_KIND_EPP,	     /* the same CPU's energy_performance_preference */
	SHIELD_KIND_THREAD,	     /* thread ID's CPU affinity (sched_setaffinity()) */
	SHIELD_KIND_IRQBALANCE_CPUS, /* irqbalance (pid ID): its banned CPUs */
	SHIELD_KIND_IRQBALANCE_IRQS, /* irqbalance (pid ID): the IRQs it leaves alone */
	_SHIELD_KIND_MAX,
	_SHIELD_KIND_INVALID = -EINVAL,
} ShieldKind;

/* An IRQ's action name as procfs-interrupts.h makes it (printable ASCII),
 * or a thread's "PID-START". */
#define SHIELD_NAME_MAX 96
/* The most values one record holds: every IRQ of a large machine, a
 * governor per CPU, the pinned threads (SHIELD_PINS_MAX). */
#define SHIELD_RECORD_MAX 16384

typedef struct ShieldEntry {
	ShieldKind kind;
	unsigned id;
	char name[SHIELD_NAME_MAX];
	char *before; /* the value before, as read */
	char *want;   /* what the shield writes */
	bool irqbalance;
} ShieldEntry;

typedef struct ShieldRecord {
	char *path;
	ShieldEntry *entries;
	size_t n, allocated;
} ShieldRecord;

const char *shield_kind_to_string(ShieldKind k);
ShieldKind shield_kind_from_string(const char *s);

/* An empty record kept at STATE_DIR/shield. -ENOMEM. */
int shield_record_new(const char *state_dir, ShieldRecord **ret);
ShieldRecord *shield_record_free(ShieldRecord *r);
/* Appends a value (the strings copied). -ENOMEM, -E2BIG past
 * SHIELD_RECORD_MAX. */
int shield_record_add(ShieldRecord *r, ShieldKind kind, unsigned id, const char *name,
		      const char *before, const char *want, bool irqbalance);
/* The entry of (kind, id), or NULL. */
ShieldEntry *shield_record_find(ShieldRecord *r, ShieldKind kind, unsigned id);
/* Removes entry i (the last one takes its place). */
void shield_record_drop(ShieldRecord *r, size_t i);
/* Removes every entry. */
void shield_record_clear(ShieldRecord *r);
/* Writes r to its file atomically; an empty record removes the file.
 * -errno (not logged). */
int shield_record_save(const ShieldRecord *r);
/* Appends the file's values to r. -ENOENT when there is none. *ret_bad:
 * how many lines were skipped. */
int shield_record_load(ShieldRecord *r, unsigned *ret_bad);
/* Parses one line into *ret, its strings allocated (freed with
 * shield_entry_done()). -EINVAL for a line that is no value (or no memory
 * for it). */
int shield_record_parse_line(const char *line, ShieldEntry *ret);
void shield_entry_done(ShieldEntry *e);
