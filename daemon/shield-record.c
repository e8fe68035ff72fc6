// SPDX-License-Identifier: GPL-2.0-or-later
/* The shield's record on disk; see shield-record.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "parse.h"
#include "shield-record.h"
#include "string-table.h"

#define RECORD_FILE "shield"
#define RECORD_HEADER "# realtimed shield v1: kind id name before want flags\n"
/* A text field's bytes: an affinity list of 8192 CPUs at worst. */
#define FIELD_MAX (64 * 1024)

static const char *const kind_names[_SHIELD_KIND_MAX] = {
	[SHIELD_KIND_IRQ] = "irq",
	[SHIELD_KIND_IRQ_DEFAULT] = "irq-default",
	[SHIELD_KIND_WORKQUEUE] = "workqueue",
	[SHIELD_KIND_GOVERNOR] = "governor",
	[SHIELD_KIND_EPP] = "epp",
	[SHIELD_KIND_THREAD] = "thread",
	[SHIELD_KIND_IRQBALANCE_CPUS] = "irqbalance-cpus",
	[SHIELD_KIND_IRQBALANCE_IRQS] = "irqbalance-irqs",
};

const char *shield_kind_to_string(ShieldKind k)
{
	return string_table_lookup(kind_names, ELEMENTSOF(kind_names), k);
}

ShieldKind shield_kind_from_string(const char *s)
{
	return string_table_find(kind_names, ELEMENTSOF(kind_names), s);
}

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
