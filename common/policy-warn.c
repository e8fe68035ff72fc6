// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The warnings of policy_load_check() (realtimectl policy check) that come
 * from applying files: a key set twice, a key that a later file overrides,
 * a [User NAME] or [Group NAME] that NSS does not know. They reject
 * nothing: realtimed and pam_realtime never load in check mode, so none of
 * this (nor its NSS lookups) weighs on a login. A file rejected for an
 * error gets the warnings it has on its own all the same, so that one
 * round of policy check shows every problem of it.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy-internal.h"

int policy_warn_override(Policy *p, const char *file, const Assignment *a, const char *key,
			 const PolicySource *prev)
{
	const char *section = a->kind == SECTION_IRQ ? "IRQ" : a->section;

	if (!p->check || !prev->file)
		return 0;
	if (streq(prev->file, file))
		return policy_add_warning(
			p, file, a->line,
			"%s= set twice in [%s] (first at line %u); the later value "
			"%s",
			key, section, prev->line,
			p->rejected ? "would be the one in force once the file's "
				      "errors are fixed"
				    : "is the one in force");
	return policy_add_warning(p, file, a->line,
				  "%s= in [%s] overrides %s:%u, which sets it too; this value is "
				  "the one in force",
				  key, section, prev->file, prev->line);
}

int policy_warn_daemon_key(Policy *p, const char *file, const Assignment *a)
{
	size_t k = (size_t)(a->item - policy_daemon_keys);
	int r;

	/* where each was set is kept always (a refusal cites it,
	 * policy_daemon_source()); the warning only in a check */
	if (!p->daemon_sources) {
		p->daemon_sources = calloc(policy_n_daemon_keys, sizeof(PolicySource));
		if (!p->daemon_sources)
			return -ENOMEM;
	}
	r = policy_warn_override(p, file, a, a->item->name, &p->daemon_sources[k]);
	p->daemon_sources[k] = (PolicySource){ .file = file, .line = a->line };
	return r;
}

/* 1 if NSS knows the user or group name, 0 if not, -errno if the lookup
 * failed. */
static int nss_knows(SectionKind kind, const char *name)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 1024;

	for (;;) {
		struct passwd pw, *pwr = NULL;
		struct group gr, *grr = NULL;
		char *b;
		int r;

		b = realloc(buf, size);
		if (!b)
			return -ENOMEM;
		buf = b;
		if (kind == SECTION_USER)
			r = getpwnam_r(name, &pw, buf, size, &pwr);
		else
			r = getgrnam_r(name, &gr, buf, size, &grr);
		if (r == ERANGE && size < 1024 * 1024) {
			size *= 2;
			continue;
		}
		/* ENOENT, ESRCH... are what some NSS modules say for "no such" */
		if (r == 0 || r == ENOENT || r == ESRCH || r == EBADF || r == EPERM)
			return pwr || grr;
		return -r;
	}
}

int policy_warn_name(Policy *p, const char *file, const Assignment *a, Section *s)
{
	const char *what = a->kind == SECTION_USER ? "user" : "group";
	int r;

	if (!p->check || s->name_checked || s->numeric || !s->name)
		return 0;
	s->name_checked = true;
	r = nss_knows(a->kind, s->name);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return policy_add_warning(p, file, a->header_line,
					  "[%s]: looking up the %s '%s' failed (%s); the section "
					  "matches nobody while it does not resolve",
					  s->display, what, s->name, strerror(-r));
	if (r == 0)
		return policy_add_warning(
			p, file, a->header_line,
			"[%s]: no %s '%s' is known on this machine (NSS: /etc/%s, and any "
			"directory "
			"such as LDAP or SSSD, which may be down now); the section matches nobody "
			"until it resolves: a typo?",
			s->display, what, s->name, a->kind == SECTION_USER ? "passwd" : "group");
	return 0;
}

int policy_warn_rejected(Policy *p, const char *path, const FileParse *fp)
{
	_cleanup_(policy_freep) Policy *scratch = NULL;
	const char *file;
	int r;

	if (!p->check || fp->n_assignments == 0)
		return 0;
	/* the file alone, applied to a policy of its own: what it would say
	 * of itself, and nothing of it reaches p but the warnings */
	r = policy_new(&scratch);
	if (r < 0)
		return r;
	scratch->check = true;
	scratch->rejected = true;
	r = policy_add_path(scratch, path, &file);
	if (r >= 0)
		r = policy_apply(scratch, file, fp);
	for (size_t i = 0; r >= 0 && i < scratch->n_warnings; i++)
		r = policy_add_warning(p, path, scratch->warnings[i].line, "%s",
				       scratch->warnings[i].message);
	return r;
}
