// SPDX-License-Identifier: GPL-2.0-or-later
/* What the shield moves off its CPUs; see shield-move.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "parse.h"
#include "procfs-interrupts.h"
#include "procfs-irq.h"
#include "shield-audio.h"
#include "shield-move.h"
#include "utf8.h"

#define AUDIO_IRQS_MAX 64

void shield_move_left(ShieldMovePlan *plan, unsigned irq, const char *name, const char *fmt, ...)
{
	ShieldLeft *l;
	va_list ap;

	if (plan->n_left >= SHIELD_LEFT_MAX)
		return;
	l = &plan->left[plan->n_left++];
	l->irq = irq;
	snprintf(l->name, sizeof(l->name), "%s", name);
	va_start(ap, fmt);
	utf8_vsnprintf(l->why, sizeof(l->why), fmt, ap);
	va_end(ap);
}

/* Does a blank-separated glob of keep match name? The glob into buf. */
static bool keep_matches(const char *keep, const char *name, char *buf, size_t size)
{
	for (const char *p = keep; *p;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == 0)
			break;
		if (n < size) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			if (fnmatch(buf, name, 0) == 0)
				return true;
		}
		p += n;
	}
	return false;
}

/* Why IRQ irq stays where it is, into why; false when it may move. */
static bool irq_kept(const ShieldRoots *roots, const ShieldMovePlan *plan, unsigned irq,
		     const unsigned *audio, size_t n_audio, char *why, size_t size)
{
	char **names = NULL, glob[POLICY_TEXT_MAX], esc[2 * POLICY_TEXT_MAX];
	size_t n = 0;
	bool kept = false;

	for (size_t i = 0; i < n_audio; i++)
		if (audio[i] == irq) {
			snprintf(why, size, "kept: a sound card's device");
			return true;
		}
	if (procfs_irq_actions(roots->proc, irq, &names, &n) < 0)
		return false;
	for (size_t i = 0; i < n && !kept; i++) {
		const PolicyIrqRule *rule =
			plan->policy ? policy_irq_match(plan->policy, names[i]) : NULL;

		if (rule) {
			utf8_escape(rule->pattern, 0, esc, sizeof(esc));
			snprintf(why, size, "kept: [IRQ] %s", esc);
			kept = true;
		} else if (plan->keep && keep_matches(plan->keep, names[i], glob, sizeof(glob))) {
			utf8_escape(glob, 0, esc, sizeof(esc));
			snprintf(why, size, "kept: ShieldKeep=%s", esc);
			kept = true;
		}
	}
	procfs_irq_actions_free(names);
	return kept;
}

/* What cpus (a value of the file at root/rel, a list or a mask) becomes
 * off the shield, into want; false when it does not reach the shield. */
static bool move_off(const ShieldMovePlan *plan, const CpuSet *cpus, bool mask, char *want,
		     size_t size)
{
	CpuSet to;

	if (!cpu_set_intersects(cpus, plan->shield))
		return false;
	cpu_set_andnot(&to, cpus, plan->shield);
	if (cpu_set_is_empty(&to))
		to = *plan->rest;
	return (mask ? cpu_set_format_mask(&to, want, size)
		     : cpu_set_format_list(&to, want, size)) >= 0;
}

int shield_move_plan_irqs(const ShieldRoots *roots, ShieldMovePlan *plan, ShieldRecord *record)
{
	unsigned audio[AUDIO_IRQS_MAX];
	size_t n_audio = 0;
	char path[4096];
	IrqCounts c = {};
	int added = 0, r;

	snprintf(path, sizeof(path), "%s/interrupts", roots->proc);
	r = procfs_irq_counts_read(path, false, NULL, 0, &c);
	if (r < 0)
		return r;
	r = shield_audio_irqs(roots->sys, audio, ELEMENTSOF(audio), &n_audio);
	if (r < 0)
		log_warning_errno(r,
				  "Failed to list the sound cards' IRQs under %s/class/sound: "
				  "%m; only [IRQ] rules and ShieldKeep= keep IRQs on the shield",
				  roots->sys);
	for (size_t i = 0; i < c.n_sources; i++) {
		const IrqSource *s = &c.sources[i];
		char rel[64], before[8192], want[8192], why[160];
		CpuSet cpus;
		uint64_t irq;

		if (parse_decimal(s->key, UINT32_MAX, &irq) < 0 ||
		    shield_record_find(record, SHIELD_KIND_IRQ, (unsigned)irq))
			continue;
		snprintf(rel, sizeof(rel), "irq/%u/smp_affinity_list", (unsigned)irq);
		if (shield_file_read(roots->proc, rel, before, sizeof(before)) < 0 ||
		    cpu_set_parse_list(before, &cpus) < 0 ||
		    !move_off(plan, &cpus, false, want, sizeof(want)))
			continue;
		if (irq_kept(roots, plan, (unsigned)irq, audio, n_audio, why, sizeof(why))) {
			shield_move_left(plan, (unsigned)irq, s->action, "%s", why);
			if (plan->n_kept < SHIELD_KEPT_MAX)
				plan->kept[plan->n_kept++] = (unsigned)irq;
			continue;
		}
		r = shield_record_add(record, SHIELD_KIND_IRQ, (unsigned)irq, s->action, before,
				      want, plan->irqbalance);
		if (r < 0) {
			log_warning_errno(r, "Failed to note IRQ %u for the shield: %m; it stays",
					  (unsigned)irq);
			break;
		}
		added++;
	}
	procfs_irq_counts_done(&c);
	return added;
}

/* Plans the mask file root/rel; 1 when added. */
static int plan_mask(const char *root, const char *rel, const ShieldMovePlan *plan, ShieldKind kind,
		     ShieldRecord *record)
{
	char before[8192], want[8192];
	CpuSet cpus;
	int r;

	if (shield_record_find(record, kind, 0))
		return 0;
	r = shield_file_read(root, rel, before, sizeof(before));
	if (r >= 0 && cpu_set_parse_mask(before, &cpus) < 0)
		r = -EBADMSG;
	if (r == -ENOENT)
		return 0; /* not on this kernel */
	if (r < 0)
		return log_warning_errno(r, "Failed to read %s/%s: %m; it stays on the shield",
					 root, rel);
	if (!move_off(plan, &cpus, true, want, sizeof(want)))
		return 0;
	r = shield_record_add(record, kind, 0, "", before, want, false);
	return r < 0 ? r : 1;
}

int shield_move_plan_defaults(const ShieldRoots *roots, const ShieldMovePlan *plan, bool irq,
			      ShieldRecord *record)
{
	int n = 0, r;

	if (irq) {
		r = plan_mask(roots->proc, "irq/default_smp_affinity", plan,
			      SHIELD_KIND_IRQ_DEFAULT, record);
		n += r > 0;
	}
	r = plan_mask(roots->sys, "devices/virtual/workqueue/cpumask", plan, SHIELD_KIND_WORKQUEUE,
		      record);
	return n + (r > 0);
}
