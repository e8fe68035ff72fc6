// SPDX-License-Identifier: GPL-2.0-or-later
/* A value of the shield written and given back; see shield-apply.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "procfs-interrupts.h"
#include "shield-apply.h"
#include "shield-cpufreq.h"
#include "shield-irqbalance.h"
#include "shield-pin.h"

/* How a file's value compares: as a CPU list, a CPU mask, or a word. */
typedef enum ValueForm {
	FORM_LIST,
	FORM_MASK,
	FORM_WORD,
} ValueForm;

/* The file of e under its root; false for the kinds that are no file. */
static bool entry_file(const ShieldRoots *roots, const ShieldEntry *e, const char **ret_root,
		       char *rel, size_t size, ValueForm *ret_form)
{
	switch (e->kind) {
	case SHIELD_KIND_IRQ:
		snprintf(rel, size, "irq/%u/smp_affinity_list", e->id);
		*ret_root = roots->proc;
		*ret_form = FORM_LIST;
		return true;
	case SHIELD_KIND_IRQ_DEFAULT:
		snprintf(rel, size, "irq/default_smp_affinity");
		*ret_root = roots->proc;
		*ret_form = FORM_MASK;
		return true;
	case SHIELD_KIND_WORKQUEUE:
		snprintf(rel, size, "devices/virtual/workqueue/cpumask");
		*ret_root = roots->sys;
		*ret_form = FORM_MASK;
		return true;
	case SHIELD_KIND_GOVERNOR:
	case SHIELD_KIND_EPP:
		shield_cpufreq_path(e, rel, size);
		*ret_root = roots->sys;
		*ret_form = FORM_WORD;
		return true;
	case SHIELD_KIND_THREAD:
	case SHIELD_KIND_IRQBALANCE_CPUS:
	case SHIELD_KIND_IRQBALANCE_IRQS:
	case _SHIELD_KIND_MAX:
	case _SHIELD_KIND_INVALID:
		break;
	}
	return false;
}

void shield_entry_describe(const ShieldEntry *e, char *buf, size_t size)
{
	switch (e->kind) {
	case SHIELD_KIND_IRQ:
		snprintf(buf, size, "IRQ %u (%s)", e->id, e->name);
		return;
	case SHIELD_KIND_IRQ_DEFAULT:
		snprintf(buf, size, "the default IRQ affinity");
		return;
	case SHIELD_KIND_WORKQUEUE:
		snprintf(buf, size, "the unbound workqueues' cpumask");
		return;
	case SHIELD_KIND_GOVERNOR:
		snprintf(buf, size, "CPU %u's cpufreq governor", e->id);
		return;
	case SHIELD_KIND_EPP:
		snprintf(buf, size, "CPU %u's energy-performance preference", e->id);
		return;
	case SHIELD_KIND_THREAD:
		snprintf(buf, size, "thread %u's CPU affinity", e->id);
		return;
	case SHIELD_KIND_IRQBALANCE_CPUS:
		snprintf(buf, size, "irqbalance's banned CPUs (pid %u)", e->id);
		return;
	case SHIELD_KIND_IRQBALANCE_IRQS:
		snprintf(buf, size, "irqbalance's banned IRQs (pid %u)", e->id);
		return;
	case _SHIELD_KIND_MAX:
	case _SHIELD_KIND_INVALID:
		break;
	}
	snprintf(buf, size, "an unknown value");
}

int shield_apply_entry(const ShieldRoots *roots, ShieldEntry *e)
{
	const char *root;
	ValueForm form;
	char rel[128];

	if (entry_file(roots, e, &root, rel, sizeof(rel), &form))
		return shield_file_write(root, rel, e->want);
	if (e->kind == SHIELD_KIND_THREAD)
		return shield_pin_apply(roots->proc, e);
	if (e->kind == SHIELD_KIND_IRQBALANCE_CPUS || e->kind == SHIELD_KIND_IRQBALANCE_IRQS)
		return shield_irqbalance_apply(roots, e);
	return -EINVAL;
}

static bool same_value(ValueForm form, const char *a, const char *b)
{
	CpuSet x, y;

	switch (form) {
	case FORM_LIST:
		return cpu_set_parse_list(a, &x) >= 0 && cpu_set_parse_list(b, &y) >= 0 &&
		       cpu_set_equal(&x, &y);
	case FORM_MASK:
		return cpu_set_parse_mask(a, &x) >= 0 && cpu_set_parse_mask(b, &y) >= 0 &&
		       cpu_set_equal(&x, &y);
	case FORM_WORD:
		return streq(a, b);
	}
	return false;
}

/* Does IRQ e->id still name e's action? c: /proc/interrupts read once
 * for many entries, or NULL: read now. */
static bool irq_same(const ShieldRoots *roots, const ShieldEntry *e, const IrqCounts *c)
{
	IrqCounts own = {};
	char key[16], path[4096];
	bool same = false;
	long i;

	if (!c) {
		snprintf(path, sizeof(path), "%s/interrupts", roots->proc);
		if (procfs_irq_counts_read(path, false, NULL, 0, &own) < 0)
			return false;
		c = &own;
	}
	snprintf(key, sizeof(key), "%u", e->id);
	i = procfs_irq_counts_find(c, key, 0);
	same = i >= 0 && streq(c->sources[i].action, e->name);
	procfs_irq_counts_done(&own);
	return same;
}

static ShieldRestoreResult restore_file(const ShieldRoots *roots, const ShieldEntry *e,
					const IrqCounts *c, const char *what)
{
	char rel[128], now[8192];
	const char *root;
	ValueForm form;
	int r;

	(void)entry_file(roots, e, &root, rel, sizeof(rel), &form);
	if (e->kind == SHIELD_KIND_IRQ && !irq_same(roots, e, c)) {
		log_info("Left %s alone: that IRQ is gone or names another device now", what);
		return SHIELD_RESTORE_GONE;
	}
	r = shield_file_read(root, rel, now, sizeof(now));
	if (r < 0) {
		log_warning_errno(r, "Failed to read %s/%s to give %s back: %m", root, rel, what);
		return r == -ENOENT ? SHIELD_RESTORE_GONE : SHIELD_RESTORE_FAILED;
	}
	if (same_value(form, now, e->before))
		return SHIELD_RESTORE_ALREADY;
	if (!same_value(form, now, e->want)) {
		/* irqbalance's own placement is no one's to report */
		if (!e->irqbalance)
			log_full(LOG_NOTICE, 0, NULL,
				 "Left %s at %s: someone changed it since the shield set %s "
				 "(it was %s before the shield)",
				 what, now, e->want, e->before);
		return SHIELD_RESTORE_CHANGED;
	}
	r = shield_file_write(root, rel, e->before);
	if (r < 0) {
		log_warning_errno(r, "Failed to give %s back (%s to %s/%s): %m; %s", what,
				  e->before, root, rel, shield_file_write_hint(r));
		return SHIELD_RESTORE_FAILED;
	}
	return SHIELD_RESTORE_GIVEN_BACK;
}

static ShieldRestoreResult restore_one(const ShieldRoots *roots, const ShieldEntry *e,
				       const IrqCounts *c)
{
	char what[SHIELD_NAME_MAX + 64];
	bool gone = false;
	int r;

	shield_entry_describe(e, what, sizeof(what));
	switch (e->kind) {
	case SHIELD_KIND_THREAD:
		r = shield_pin_restore(roots->proc, e, &gone);
		break;
	case SHIELD_KIND_IRQBALANCE_CPUS:
	case SHIELD_KIND_IRQBALANCE_IRQS:
		r = shield_irqbalance_restore(roots, e, &gone);
		break;
	case SHIELD_KIND_IRQ:
	case SHIELD_KIND_IRQ_DEFAULT:
	case SHIELD_KIND_WORKQUEUE:
	case SHIELD_KIND_GOVERNOR:
	case SHIELD_KIND_EPP:
		return restore_file(roots, e, c, what);
	case _SHIELD_KIND_MAX:
	case _SHIELD_KIND_INVALID:
		return SHIELD_RESTORE_GONE;
	}
	if (r < 0) {
		log_warning_errno(r, "Failed to give %s back (%s): %m", what,
				  isempty(e->before) ? "none" : e->before);
		return SHIELD_RESTORE_FAILED;
	}
	if (r > 0)
		return SHIELD_RESTORE_GIVEN_BACK;
	if (gone)
		return SHIELD_RESTORE_GONE;
	log_full(LOG_NOTICE, 0, NULL,
		 "Left %s as it is: someone changed it since the shield set %s", what,
		 isempty(e->want) ? "none" : e->want);
	return SHIELD_RESTORE_CHANGED;
}

ShieldRestoreResult shield_restore_entry(const ShieldRoots *roots, const ShieldEntry *e)
{
	return restore_one(roots, e, NULL);
}

static bool is_irqbalance_kind(ShieldKind k)
{
	return k == SHIELD_KIND_IRQBALANCE_CPUS || k == SHIELD_KIND_IRQBALANCE_IRQS;
}

void shield_restore_all(const ShieldRoots *roots, ShieldRecord *record, const char *when,
			ShieldRestoreCounts *ret)
{
	ShieldRestoreCounts n = {};
	char path[4096];
	IrqCounts c = {};
	bool have_irqs;
	int r;

	snprintf(path, sizeof(path), "%s/interrupts", roots->proc);
	have_irqs = procfs_irq_counts_read(path, false, NULL, 0, &c) >= 0;
	/* the values first, then irqbalance's settings: until it takes them
	 * back at its next pass it places nothing on the shield */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = record->n; i-- > 0;) {
			const ShieldEntry *e = &record->entries[i];

			if (is_irqbalance_kind(e->kind) != (pass == 1))
				continue;
			n.n[restore_one(roots, e, have_irqs ? &c : NULL)]++;
		}
	procfs_irq_counts_done(&c);
	if (record->n > 0)
		log_info("Shield given back (%s): %u values given back, %u were back already, "
			 "%u changed by someone else since and left, %u gone, %u failed",
			 when, n.n[SHIELD_RESTORE_GIVEN_BACK], n.n[SHIELD_RESTORE_ALREADY],
			 n.n[SHIELD_RESTORE_CHANGED], n.n[SHIELD_RESTORE_GONE],
			 n.n[SHIELD_RESTORE_FAILED]);
	shield_record_clear(record);
	r = shield_record_save(record);
	if (r < 0)
		log_warning_errno(r,
				  "Failed to remove %s: %m; a restart gives back what it lists "
				  "again, where the values are still the shield's",
				  record->path);
	if (ret)
		*ret = n;
}
