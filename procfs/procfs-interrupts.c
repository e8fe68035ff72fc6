/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading /proc/interrupts and /proc/softirqs (see procfs-interrupts.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parse.h"
#include "procfs-interrupts.h"

/* Copies src (n bytes) into dst as printable ASCII, blanks squeezed and
 * trimmed, cut to size. */
static void copy_printable(char *dst, size_t size, const char *src, size_t n)
{
	size_t l = 0;
	bool blank = true; /* drops leading blanks */

	for (size_t i = 0; i < n && l + 1 < size; i++) {
		unsigned char ch = (unsigned char)src[i];

		if (ch == ' ' || ch == '\t') {
			if (!blank)
				dst[l++] = ' ';
			blank = true;
			continue;
		}
		dst[l++] = ch > 0x20 && ch < 0x7f ? (char)ch : '?';
		blank = false;
	}
	while (l > 0 && dst[l - 1] == ' ')
		l--;
	dst[l] = '\0';
}

/* The header's "CPU0 CPU1 ...": cols[k] is the column of cpus[k], or -1. */
static int parse_header(const char *line, const int *cpus, size_t n_cpus, long *cols)
{
	const char *p = line;
	long col = 0;

	for (size_t k = 0; k < n_cpus; k++)
		cols[k] = -1;
	while ((p = strstr(p, "CPU"))) {
		uint64_t cpu;

		p += 3;
		if (parse_decimal_prefix(p, INT32_MAX, &cpu, &p) < 0)
			continue;
		for (size_t k = 0; k < n_cpus; k++)
			if ((uint64_t)cpus[k] == cpu)
				cols[k] = col;
		col++;
	}
	return col > 0 ? 0 : -EBADMSG;
}

/* The action names of a numbered IRQ's description ("IR-PCI-MSI
 * 524288-edge nvme0q1"): what follows the trigger type, else its last
 * word. */
static const char *irq_actions(const char *desc)
{
	static const char *const types[] = { "-edge", "-level", "-fasteoi", "-eoi", "-simple" };
	const char *best = NULL;

	for (size_t i = 0; i < ELEMENTSOF(types); i++) {
		const char *t = strstr(desc, types[i]);

		if (t && (!best || t < best))
			best = t;
	}
	if (best) {
		best += strcspn(best, " ");
		best += strspn(best, " ");
		if (*best)
			return best;
	}
	best = strrchr(desc, ' ');
	return best ? best + 1 : desc;
}

static int add_source(IrqCounts *c, const char *line, bool softirqs, const long *cols,
		      size_t n_cols)
{
	const char *colon = strchr(line, ':'), *p;
	char key[PROCFS_IRQ_KEY_MAX - 2], full[PROCFS_IRQ_KEY_MAX], desc[PROCFS_IRQ_NAME_MAX];
	IrqSource *s;
	uint64_t *counts;
	size_t i, n = c->n_sources;
	long col = 0;

	if (!colon)
		return 0; /* not a counts line */
	if (n >= PROCFS_IRQ_SOURCES_MAX)
		return 0;
	copy_printable(key, sizeof(key), line, (size_t)(colon - line));
	if (!key[0])
		return 0;
	/* a key twice (or two that read the same once printable): the first
	 * is kept, so that a key names one source across snapshots */
	snprintf(full, sizeof(full), "%s%s", softirqs ? "s:" : "", key);
	if (procfs_irq_counts_find(c, full, n - 1) >= 0)
		return 0;

	s = reallocarray(c->sources, n + 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	c->sources = s;
	counts = reallocarray(c->counts, (n + 1) * (c->n_cpus ?: 1), sizeof(*counts));
	if (!counts)
		return -ENOMEM;
	c->counts = counts;
	counts += n * c->n_cpus;
	for (i = 0; i < c->n_cpus; i++)
		counts[i] = 0;

	/* the counts, one per column; fewer on ERR/MIS lines */
	p = colon + 1;
	for (;; col++) {
		uint64_t v;
		const char *end;

		p += strspn(p, " \t");
		if (parse_decimal_prefix(p, UINT64_MAX, &v, &end) < 0 ||
		    (*end && *end != ' ' && *end != '\t' && *end != '\n'))
			break;
		p = end;
		for (i = 0; i < n_cols; i++)
			if (cols[i] == col)
				counts[i] = v;
	}
	copy_printable(desc, sizeof(desc), p, strcspn(p, "\n"));

	s = &c->sources[n];
	s->action[0] = '\0';
	memcpy(s->key, full, sizeof(s->key));
	if (softirqs)
		snprintf(s->name, sizeof(s->name), "softirq %s", key);
	else if (isdigit((unsigned char)key[0])) {
		const char *a = irq_actions(desc);

		snprintf(s->name, sizeof(s->name), "IRQ %s (%.70s)", key, a);
		/* the first of a shared line's "ehci_hcd:usb1, snd_hda_intel" */
		copy_printable(s->action, sizeof(s->action), a, strcspn(a, ","));
	} else if (desc[0])
		snprintf(s->name, sizeof(s->name), "%s (%.70s)", key, desc);
	else
		snprintf(s->name, sizeof(s->name), "%s", key);
	c->n_sources = n + 1;
	return 0;
}

int procfs_irq_counts_read(const char *path, bool softirqs, const int *cpus, size_t n_cpus,
			   IrqCounts *counts)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	_cleanup_free_ long *cols = NULL;
	bool header = true;
	int r = 0;

	if (counts->n_sources > 0 && counts->n_cpus != n_cpus)
		return -EINVAL;
	counts->n_cpus = n_cpus;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	line = malloc(PROCFS_IRQ_LINE_MAX);
	cols = calloc(n_cpus ?: 1, sizeof(*cols));
	if (!line || !cols)
		return -ENOMEM;
	while (fgets(line, PROCFS_IRQ_LINE_MAX, f)) {
		size_t l = strlen(line);

		if (l > 0 && line[l - 1] != '\n' && !feof(f)) {
			int ch;

			/* too long: skip the rest of it, and it */
			while ((ch = fgetc(f)) != EOF && ch != '\n')
				;
			if (header)
				return -EBADMSG;
			continue;
		}
		if (header) {
			r = parse_header(line, cpus, n_cpus, cols);
			if (r < 0)
				return r;
			header = false;
			continue;
		}
		r = add_source(counts, line, softirqs, cols, n_cpus);
		if (r < 0)
			return r;
	}
	return header ? -EBADMSG : 0;
}

void procfs_irq_counts_done(IrqCounts *counts)
{
	free(counts->sources);
	free(counts->counts);
	*counts = (IrqCounts){};
}

long procfs_irq_counts_find(const IrqCounts *counts, const char *key, size_t hint)
{
	if (hint < counts->n_sources && streq(counts->sources[hint].key, key))
		return (long)hint;
	for (size_t i = 0; i < counts->n_sources; i++)
		if (streq(counts->sources[i].key, key))
			return (long)i;
	return -1;
}
