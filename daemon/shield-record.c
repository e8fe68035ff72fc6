// SPDX-License-Identifier: GPL-2.0-or-later
/* The shield's record, and each value given back; see shield-move.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "parse.h"
#include "procfs-interrupts.h"
#include "shield-irqbalance.h"
#include "shield-move.h"

#define RECORD_FILE "shield"
#define RECORD_HEADER "# realtimed shield v1: kind id name before want flags\n"
/* A text field's bytes: an affinity list of 8192 CPUs at worst. */
#define FIELD_MAX (64 * 1024)

int shield_record_new(const char *state_dir, ShieldRecord **ret)
{
	ShieldRecord *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (asprintf(&r->path, "%s/" RECORD_FILE, state_dir) < 0) {
		free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

void shield_entry_done(ShieldEntry *e)
{
	e->before = mfree(e->before);
	e->want = mfree(e->want);
}

void shield_record_clear(ShieldRecord *r)
{
	for (size_t i = 0; i < r->n; i++)
		shield_entry_done(&r->entries[i]);
	r->n = 0;
}

ShieldRecord *shield_record_free(ShieldRecord *r)
{
	if (!r)
		return NULL;
	shield_record_clear(r);
	free(r->entries);
	free(r->path);
	free(r);
	return NULL;
}

/* Takes e's strings. */
static int record_append(ShieldRecord *r, ShieldEntry *e)
{
	if (r->n >= SHIELD_RECORD_MAX)
		return -E2BIG;
	if (r->n == r->allocated) {
		size_t a = r->allocated ? r->allocated * 2 : 64;
		ShieldEntry *n = reallocarray(r->entries, a, sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->entries = n;
		r->allocated = a;
	}
	r->entries[r->n++] = *e;
	*e = (ShieldEntry){};
	return 0;
}

int shield_record_add(ShieldRecord *r, ShieldKind kind, unsigned id, const char *name,
		      const char *before, const char *want, bool irqbalance)
{
	ShieldEntry e = { .kind = kind, .id = id, .irqbalance = irqbalance };
	int ret;

	snprintf(e.name, sizeof(e.name), "%s", name ?: "");
	e.before = strdup(before);
	e.want = strdup(want);
	ret = e.before && e.want ? record_append(r, &e) : -ENOMEM;
	shield_entry_done(&e);
	return ret;
}

ShieldEntry *shield_record_find(ShieldRecord *r, ShieldKind kind, unsigned id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->entries[i].kind == kind && r->entries[i].id == id)
			return &r->entries[i];
	return NULL;
}

void shield_record_drop(ShieldRecord *r, size_t i)
{
	if (i >= r->n)
		return;
	shield_entry_done(&r->entries[i]);
	r->entries[i] = r->entries[--r->n];
}

/* s as a field: %XX for each byte outside '!'..'~' and for '%', "-" for "". */
static void put_field(FILE *f, const char *s)
{
	if (!*s) {
		fputc('-', f);
		return;
	}
	if (streq(s, "-")) {
		fputs("%2d", f);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '%')
			fprintf(f, "%%%02x", *p);
		else
			fputc(*p, f);
}

int shield_record_save(const ShieldRecord *r)
{
	_cleanup_free_ char *tmp = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	int fd, ret;

	if (r->n == 0)
		return unlink(r->path) < 0 && errno != ENOENT ? -errno : 0;
	if (asprintf(&tmp, "%s.tmp", r->path) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		safe_close(fd);
		unlink(tmp);
		return ret;
	}
	fputs(RECORD_HEADER, f);
	for (size_t i = 0; i < r->n; i++) {
		const ShieldEntry *e = &r->entries[i];

		fprintf(f, "%s %u ", shield_kind_to_string(e->kind), e->id);
		put_field(f, e->name);
		fputc(' ', f);
		put_field(f, e->before);
		fputc(' ', f);
		put_field(f, e->want);
		fprintf(f, " %s\n", e->irqbalance ? "b" : "-");
	}
	ret = fflush(f) == 0 && !ferror(f) ? 0 : -errno;
	if (ret >= 0 && rename(tmp, r->path) < 0)
		ret = -errno;
	if (ret < 0)
		unlink(tmp);
	return ret;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The field at *p (up to a blank or the end), decoded into a new string;
 * *p after it. NULL: not a field (or no memory: the line is skipped
 * either way). */
static char *take_field(const char **p, size_t max)
{
	const char *s = *p;
	size_t n = strcspn(s, " \n"), l = 0;
	char *out;

	if (n == 0 || n > 3 * max)
		return NULL;
	*p = s + n + (s[n] == ' ');
	out = malloc(n + 1);
	if (!out)
		return NULL;
	if (n == 1 && s[0] == '-') {
		out[0] = '\0';
		return out;
	}
	for (size_t i = 0; i < n; i++) {
		int hi, lo;

		if (s[i] != '%') {
			if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] > '~')
				goto bad;
			out[l++] = s[i];
			continue;
		}
		if (i + 2 >= n)
			goto bad;
		hi = hex_digit(s[i + 1]);
		lo = hex_digit(s[i + 2]);
		/* no NUL inside a value */
		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
			goto bad;
		out[l++] = (char)(hi * 16 + lo);
		i += 2;
	}
	out[l] = '\0';
	if (l <= max)
		return out;
bad:
	free(out);
	return NULL;
}

int shield_record_parse_line(const char *line, ShieldEntry *ret)
{
	_cleanup_free_ char *kind = NULL, *id = NULL, *name = NULL, *flags = NULL;
	ShieldEntry e = {};
	const char *p = line;
	uint64_t v;

	kind = take_field(&p, 32);
	id = kind ? take_field(&p, 16) : NULL;
	name = id ? take_field(&p, SHIELD_NAME_MAX - 1) : NULL;
	e.before = name ? take_field(&p, FIELD_MAX) : NULL;
	e.want = e.before ? take_field(&p, FIELD_MAX) : NULL;
	flags = e.want ? take_field(&p, 1) : NULL;
	if (!flags || (*p && *p != '\n') || (e.kind = shield_kind_from_string(kind)) < 0 ||
	    parse_decimal(id, UINT32_MAX, &v) < 0 || (!streq(flags, "b") && !isempty(flags))) {
		shield_entry_done(&e);
		return -EINVAL;
	}
	e.id = (unsigned)v;
	e.irqbalance = streq(flags, "b");
	memcpy(e.name, name, strlen(name) + 1);
	*ret = e;
	return 0;
}

int shield_record_load(ShieldRecord *r, unsigned *ret_bad)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	unsigned bad = 0;
	ssize_t n;
	int ret = 0;

	f = fopen(r->path, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &size, f)) > 0) {
		ShieldEntry e;

		if (line[0] == '#')
			continue;
		if ((size_t)n != strlen(line) || shield_record_parse_line(line, &e) < 0) {
			bad++;
			continue;
		}
		ret = record_append(r, &e);
		shield_entry_done(&e);
		if (ret < 0)
			break;
	}
	*ret_bad = bad;
	return ret;
}

/* How a file's value compares: as a CPU list, a CPU mask, or a word. */
typedef enum ValueForm {
	FORM_NONE, /* no file */
	FORM_LIST,
	FORM_MASK,
	FORM_WORD,
} ValueForm;

/* Each kind: its word in the record; its file under PROC or SYS (the id
 * between pre and post where post is set) and how its value compares;
 * its name in the journal (the id between what and what_post where
 * what_post is set). */
static const struct {
	const char *name, *pre, *post;
	bool sys;
	ValueForm form;
	const char *what, *what_post;
} kinds[_SHIELD_KIND_MAX] = {
	[SHIELD_KIND_IRQ] = { "irq", "irq/", "/smp_affinity_list", false, FORM_LIST, "IRQ ", "" },
	[SHIELD_KIND_IRQ_DEFAULT] = { "irq-default", "irq/default_smp_affinity", NULL, false,
				      FORM_MASK, "the default IRQ affinity", NULL },
	[SHIELD_KIND_WORKQUEUE] = { "workqueue", "devices/virtual/workqueue/cpumask", NULL, true,
				    FORM_MASK, "the unbound workqueues' cpumask", NULL },
	[SHIELD_KIND_GOVERNOR] = { "governor", "devices/system/cpu/cpu",
				   "/cpufreq/scaling_governor", true, FORM_WORD, "CPU ",
				   "'s cpufreq governor" },
	[SHIELD_KIND_EPP] = { "epp", "devices/system/cpu/cpu",
			      "/cpufreq/energy_performance_preference", true, FORM_WORD, "CPU ",
			      "'s energy-performance preference" },
	[SHIELD_KIND_THREAD] = { "thread", .what = "thread ", .what_post = "'s CPU affinity" },
	[SHIELD_KIND_IRQBALANCE_CPUS] = { "irqbalance-cpus",
					  .what = "irqbalance's banned CPUs (pid ",
					  .what_post = ")" },
	[SHIELD_KIND_IRQBALANCE_IRQS] = { "irqbalance-irqs",
					  .what = "irqbalance's banned IRQs (pid ",
					  .what_post = ")" },
};

const char *shield_kind_to_string(ShieldKind k)
{
	return k >= 0 && k < _SHIELD_KIND_MAX ? kinds[k].name : NULL;
}

ShieldKind shield_kind_from_string(const char *s)
{
	for (size_t k = 0; s && k < _SHIELD_KIND_MAX; k++)
		if (streq(kinds[k].name, s))
			return (ShieldKind)k;
	return _SHIELD_KIND_INVALID;
}

const char *shield_entry_file(const ShieldRoots *roots, const ShieldEntry *e, char *rel,
			      size_t size)
{
	if (e->kind < 0 || e->kind >= _SHIELD_KIND_MAX || !kinds[e->kind].pre)
		return NULL;
	if (kinds[e->kind].post)
		snprintf(rel, size, "%s%u%s", kinds[e->kind].pre, e->id, kinds[e->kind].post);
	else
		snprintf(rel, size, "%s", kinds[e->kind].pre);
	return kinds[e->kind].sys ? roots->sys : roots->proc;
}

void shield_entry_describe(const ShieldEntry *e, char *buf, size_t size)
{
	if (e->kind < 0 || e->kind >= _SHIELD_KIND_MAX)
		snprintf(buf, size, "an unknown value");
	else if (e->kind == SHIELD_KIND_IRQ)
		snprintf(buf, size, "IRQ %u (%s)", e->id, e->name);
	else if (!kinds[e->kind].what_post)
		snprintf(buf, size, "%s", kinds[e->kind].what);
	else
		snprintf(buf, size, "%s%u%s", kinds[e->kind].what, e->id, kinds[e->kind].what_post);
}

static int shield_apply_entry(const ShieldRoots *roots, ShieldEntry *e)
{
	char rel[128];
	const char *root = shield_entry_file(roots, e, rel, sizeof(rel));

	if (root)
		return shield_file_write(root, rel, e->want);
	if (e->kind == SHIELD_KIND_THREAD)
		return shield_pin_apply(roots->proc, e);
	if (e->kind == SHIELD_KIND_IRQBALANCE_CPUS || e->kind == SHIELD_KIND_IRQBALANCE_IRQS)
		return shield_irqbalance_apply(roots, e);
	return -EINVAL;
}

/* Writes the record's values from first on; a value the kernel refuses is
 * dropped from the record, and an IRQ that stays on the shield is listed
 * with the reason. */
int shield_apply_from(const ShieldRoots *roots, ShieldRecord *record, size_t first,
		      ShieldMovePlan *plan, char *problem, size_t size)
{
	int moved = 0;

	/* irqbalance first, so that its next pass leaves the shield alone;
	 * the values second */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = first; i < record->n;) {
			ShieldEntry *e = &record->entries[i];
			bool ib = e->kind == SHIELD_KIND_IRQBALANCE_CPUS ||
				  e->kind == SHIELD_KIND_IRQBALANCE_IRQS;
			char what[SHIELD_NAME_MAX + 64], rel[64];
			CpuSet eff;
			int r;

			if (ib != (pass == 0)) {
				i++;
				continue;
			}
			r = shield_apply_entry(roots, e);
			if (r >= 0) {
				moved += e->kind == SHIELD_KIND_IRQ;
				i++;
				continue;
			}
			shield_entry_describe(e, what, sizeof(what));
			if (e->kind == SHIELD_KIND_IRQ) {
				/* only what still lands on the shield is worth a word */
				snprintf(rel, sizeof(rel), "irq/%u/effective_affinity_list", e->id);
				if (shield_file_read_cpus(roots->proc, rel, false, &eff) < 0 ||
				    cpu_set_intersects(&eff, plan->shield))
					shield_move_left(plan, e->id, e->name, "not moved: %s (%s)",
							 shield_file_write_hint(r), strerror(-r));
			} else if (e->kind != SHIELD_KIND_THREAD || r != -ESRCH) {
				log_warning_errno(r,
						  "Failed to set %s to %s for the shield: %m; %s",
						  what, e->want, shield_file_write_hint(r));
				if (!problem[0])
					snprintf(problem, size, "%s could not be set: %s", what,
						 strerror(-r));
			}
			shield_record_drop(record, i);
		}
	return moved;
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
	case FORM_NONE:
		break;
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
	const char *root = shield_entry_file(roots, e, rel, sizeof(rel));
	ValueForm form = kinds[e->kind].form;
	int r;

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

ShieldRestoreResult shield_restore_entry(const ShieldRoots *roots, const ShieldEntry *e,
					 const IrqCounts *c)
{
	char what[SHIELD_NAME_MAX + 64];
	bool gone = false;
	int r = -EINVAL; /* a kind no case names: said, not given back */

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

static bool is_irqbalance_kind(ShieldKind k)
{
	return k == SHIELD_KIND_IRQBALANCE_CPUS || k == SHIELD_KIND_IRQBALANCE_IRQS;
}

void shield_restore_all(const ShieldRoots *roots, ShieldRecord *record, const char *when)
{
	unsigned n[_SHIELD_RESTORE_MAX] = {};
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
			n[shield_restore_entry(roots, e, have_irqs ? &c : NULL)]++;
		}
	procfs_irq_counts_done(&c);
	if (record->n > 0)
		log_info("Shield given back (%s): %u values given back, %u were back already, "
			 "%u changed by someone else since and left, %u gone, %u failed",
			 when, n[SHIELD_RESTORE_GIVEN_BACK], n[SHIELD_RESTORE_ALREADY],
			 n[SHIELD_RESTORE_CHANGED], n[SHIELD_RESTORE_GONE],
			 n[SHIELD_RESTORE_FAILED]);
	shield_record_clear(record);
	r = shield_record_save(record);
	if (r < 0)
		log_warning_errno(r,
				  "Failed to remove %s: %m; a restart gives back what it lists "
				  "again, where the values are still the shield's",
				  record->path);
}
