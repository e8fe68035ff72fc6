// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The Policy object: what loading fills in (the files, their errors and
 * warnings, the sections, [Daemon], the [IRQ] rules) and what callers read
 * back. policy-load.c decides what is read; this file holds the result.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy-internal.h"

int policy_add_path(Policy *p, const char *path, const char **ret)
{
	char **n;

	n = reallocarray(p->paths, p->n_paths + 1, sizeof(char *));
	if (!n)
		return -ENOMEM;
	p->paths = n;
	n[p->n_paths] = strdup(path);
	if (!n[p->n_paths])
		return -ENOMEM;
	*ret = n[p->n_paths++];
	return 0;
}

/* Adds "path:line: message" to *list (the errors or the warnings). */
_printf_(6, 0) static int policy_add_note(Policy *p, PolicyError **list, size_t *n_list,
					  const char *path, unsigned line, const char *fmt,
					  va_list ap)
{
	PolicyError *n;
	const char *file;
	char *msg;
	int r;

	r = policy_add_path(p, path, &file);
	if (r < 0)
		return r;
	if (vasprintf(&msg, fmt, ap) < 0)
		return -ENOMEM;
	n = reallocarray(*list, *n_list + 1, sizeof(PolicyError));
	if (!n) {
		free(msg);
		return -ENOMEM;
	}
	*list = n;
	n[(*n_list)++] = (PolicyError){ .file = file, .line = line, .message = msg };
	return 0;
}

_printf_(4, 5) int policy_add_error(Policy *p, const char *path, unsigned line, const char *fmt,
				    ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = policy_add_note(p, &p->errors, &p->n_errors, path, line, fmt, ap);
	va_end(ap);
	return r;
}

_printf_(4, 5) int policy_add_warning(Policy *p, const char *path, unsigned line, const char *fmt,
				      ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = policy_add_note(p, &p->warnings, &p->n_warnings, path, line, fmt, ap);
	va_end(ap);
	return r;
}

static int policy_set_irq(Policy *p, const Assignment *a, PolicySource src)
{
	IrqRule *n;
	char *pattern;

	for (size_t i = 0; i < p->n_irq; i++)
		if (streq(p->irq[i].pattern, a->target)) {
			int r = policy_warn_override(p, src.file, a, a->target,
						     &p->irq[i].rule.source);

			if (r < 0)
				return r;
			p->irq[i].rule.priority = a->v.i;
			p->irq[i].rule.source = src;
			return 0;
		}
	pattern = strdup(a->target);
	if (!pattern)
		return -ENOMEM;
	n = reallocarray(p->irq, p->n_irq + 1, sizeof(IrqRule));
	if (!n) {
		free(pattern);
		return -ENOMEM;
	}
	p->irq = n;
	n[p->n_irq] =
		(IrqRule){ .pattern = pattern, .rule = { .priority = a->v.i, .source = src } };
	p->n_irq++;
	/* the array moved: point every rule at its (stable, heap) pattern again */
	for (size_t i = 0; i < p->n_irq; i++)
		p->irq[i].rule.pattern = p->irq[i].pattern;
	return 0;
}

/* Applies a file that parsed without error. */
int policy_apply(Policy *p, const char *file, const FileParse *fp)
{
	const char *last_header = NULL;
	Section *s = NULL;
	PolicyKey k;
	int r;

	/* at most one new section per header: grow the index once, up front */
	r = policy_reserve_sections(p, p->n_sections + fp->n_headers);
	if (r < 0)
		return r;
	for (size_t i = 0; i < fp->n_assignments; i++) {
		const Assignment *a = &fp->assignments[i];
		PolicySource src = { .file = file, .line = a->line };

		switch (a->kind) {
		case SECTION_DAEMON:
			r = policy_warn_daemon_key(p, file, a);
			if (r < 0)
				return r;
			policy_value_store(a->item, &p->daemon, &a->v);
			break;
		case SECTION_IRQ:
			src.section = "IRQ";
			r = policy_set_irq(p, a, src);
			if (r < 0)
				return r;
			break;
		case SECTION_DEFAULT:
		case SECTION_GROUP:
		case SECTION_USER:
			/* the keys under one header share one name pointer */
			if (a->section != last_header) {
				r = policy_get_section(p, a, &s);
				if (r >= 0)
					r = policy_warn_name(p, file, a, s);
				if (r < 0)
					return r;
				last_header = a->section;
			}
			k = (PolicyKey)(a->item - policy_keys);
			if (s->values.set[k]) {
				r = policy_warn_override(p, file, a, a->item->name,
							 &s->values.source[k]);
				if (r < 0)
					return r;
			}
			src.section = s->display;
			policy_grant_set(&s->values, k, &a->v, src);
			break;
		case _SECTION_KIND_MAX:
		case _SECTION_KIND_INVALID:
			break;
		}
	}
	return 0;
}

int policy_new(Policy **ret)
{
	Policy *p;
	int r;

	p = calloc(1, sizeof(Policy));
	if (!p)
		return -ENOMEM;
	p->euid = geteuid();
	policy_values_init(policy_daemon_keys, policy_n_daemon_keys, &p->daemon);
	r = policy_reserve_sections(p, 1);
	if (r >= 0) {
		p->sections[0] = policy_section_new(p, SECTION_DEFAULT, "Default", NULL);
		if (!p->sections[0])
			r = -ENOMEM;
	}
	if (r < 0) {
		policy_free(p);
		return r;
	}
	p->n_sections = 1;
	*ret = p;
	return 0;
}

Policy *policy_free(Policy *p)
{
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n_paths; i++)
		free(p->paths[i]);
	free(p->paths);
	free(p->accepted);
	for (size_t i = 0; i < p->n_errors; i++)
		free((char *)p->errors[i].message);
	free(p->errors);
	for (size_t i = 0; i < p->n_warnings; i++)
		free((char *)p->warnings[i].message);
	free(p->warnings);
	for (size_t i = 0; i < p->n_blocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->sections);
	free(p->index);
	for (size_t i = 0; i < p->n_irq; i++)
		free(p->irq[i].pattern);
	free(p->irq);
	free(p->daemon_sources);
	free(p);
	return NULL;
}

size_t policy_n_errors(const Policy *p)
{
	return p->n_errors;
}

const PolicyError *policy_error(const Policy *p, size_t i)
{
	return i < p->n_errors ? &p->errors[i] : NULL;
}

size_t policy_n_warnings(const Policy *p)
{
	return p->n_warnings;
}

const PolicyError *policy_warning(const Policy *p, size_t i)
{
	return i < p->n_warnings ? &p->warnings[i] : NULL;
}

size_t policy_n_files(const Policy *p)
{
	return p->n_accepted;
}

const char *policy_file(const Policy *p, size_t i)
{
	return i < p->n_accepted ? p->paths[p->accepted[i]] : NULL;
}

const PolicyDaemon *policy_daemon(const Policy *p)
{
	return &p->daemon;
}

const PolicySource *policy_daemon_source(const Policy *p, const char *key)
{
	const PolicyItem *it = policy_item_lookup(policy_daemon_keys, policy_n_daemon_keys, key);

	if (!it || !p->daemon_sources || !p->daemon_sources[it - policy_daemon_keys].file)
		return NULL;
	return &p->daemon_sources[it - policy_daemon_keys];
}

size_t policy_n_irq_rules(const Policy *p)
{
	return p->n_irq;
}

const PolicyIrqRule *policy_irq_rule(const Policy *p, size_t i)
{
	return i < p->n_irq ? &p->irq[i].rule : NULL;
}

const PolicyIrqRule *policy_irq_match(const Policy *p, const char *action_name)
{
	for (size_t i = 0; i < p->n_irq; i++)
		if (fnmatch(p->irq[i].pattern, action_name, 0) == 0)
			return &p->irq[i].rule;
	return NULL;
}
