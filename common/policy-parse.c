// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The reader of realtime.conf(5): one file's text, in one pass over its
 * buffer, into a list of assignments, stopping at the first problem with
 * its line (or, for realtimectl policy check, going on to find them all). Names are cut out of the
 * buffer in place. Nothing is applied here: policy_apply() takes a file only when it parsed without
 * error, so a typo never half-applies.
 *
 * The dialect is the small one realtime.conf(5) describes, read here rather
 * than by a general INI library: a login (pam_realtime) reads the whole
 * policy, and a general parser costs more than pam_limits' whole session
 * (bench/RESULTS.md). This one also gives exact line numbers and refuses
 * what a general parser would read differently ("Key:value").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "policy-internal.h"

void policy_file_parse_done(FileParse *fp)
{
	free(fp->assignments);
	for (size_t i = 0; i < fp->n_errors; i++)
		free(fp->errors[i].message);
	free(fp->errors);
}

/* Records the problem with the current line; returns false, for
 * "return file_parse_fail(...)" in the parsers below. */
_printf_(2, 3) static bool file_parse_fail(FileParse *fp, const char *fmt, ...)
{
	FileParseError *n;
	va_list ap;
	char *msg;
	int r;

	if (fp->oom || (fp->n_errors > 0 && !fp->all_errors))
		return false; /* the first problem is the one reported */
	if (fp->n_errors >= POLICY_FILE_ERRORS_MAX) {
		fp->errors_truncated = true;
		return false;
	}
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		fp->oom = true;
		return false;
	}
	n = reallocarray(fp->errors, fp->n_errors + 1, sizeof(FileParseError));
	if (!n) {
		free(msg);
		fp->oom = true;
		return false;
	}
	fp->errors = n;
	n[fp->n_errors++] = (FileParseError){ .line = fp->line, .message = msg };
	return false;
}

/* The blanks around names and values: spaces, tabs, the CR of a CR LF line
 * end, and the vertical tab and form feed isspace() also counts. */
static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Narrows [*s, *e) to its text without blanks on either side. */
static void trim(char **s, char **e)
{
	while (*s < *e && is_blank(**s))
		(*s)++;
	while (*e > *s && is_blank((*e)[-1]))
		(*e)--;
}

/* Does [s, e) hold a ';' after a blank, where a comment starts? */
static bool has_semicolon_comment(const char *s, const char *e)
{
	for (const char *c = s; (c = memchr(c, ';', e - c)); c++)
		if (c > s && is_blank(c[-1]))
			return true;
	return false;
}

/* Parses "Default", "Group audio", "User #1000", ... into kind and target. */
static SectionKind section_parse(const char *section, const char **ret_target)
{
	static const struct {
		const char *word;
		SectionKind kind;
		bool takes_name;
	} table[] = {
		{ "Daemon", SECTION_DAEMON, false }, { "Default", SECTION_DEFAULT, false },
		{ "IRQ", SECTION_IRQ, false },	     { "Group", SECTION_GROUP, true },
		{ "User", SECTION_USER, true },
	};

	for (size_t i = 0; i < ELEMENTSOF(table); i++) {
		const char *rest = startswith(section, table[i].word);

		if (!rest)
			continue;
		if (!table[i].takes_name) {
			if (*rest != '\0')
				continue;
			*ret_target = NULL;
			return table[i].kind;
		}
		if (*rest != ' ' && *rest != '\t')
			continue;
		rest += strspn(rest, " \t");
		if (*rest == '\0' || strpbrk(rest, " \t"))
			return _SECTION_KIND_INVALID;
		if (rest[0] == '#') {
			unsigned u;

			/* (uid_t) -1 is "no user" to the kernel, never a real id */
			if (parse_unsigned(rest + 1, &u) < 0 || u == UINT32_MAX)
				return _SECTION_KIND_INVALID;
		}
		*ret_target = rest;
		return table[i].kind;
	}
	return _SECTION_KIND_INVALID;
}

/* Are the keys under this header kept? All of them, unless loading for one
 * user: then a [User] or [Group] section of someone else is checked and
 * dropped. */
static bool header_kept(const FileParse *fp, SectionKind kind, const char *target)
{
	const PolicyUser *u = fp->only;
	uint32_t id;
	bool numeric;

	if (!u || (kind != SECTION_USER && kind != SECTION_GROUP))
		return true;
	numeric = section_target_id(target, &id);
	return policy_section_matches(kind, numeric, id, numeric ? NULL : target, u->name, u->uid,
				      u->gids, u->group_names, u->n_gids);
}

/* "[Name]", the stripped line s..e: parsed once, for all the keys below it. */
static bool file_parse_header(FileParse *fp, char *s, char *e)
{
	char *close, *name, *end, *c;
	const char *target;
	SectionKind kind;

	close = memchr(s, ']', e - s);
	if (!close)
		return file_parse_fail(fp, "section header without closing ']'");
	for (c = close + 1; c < e && is_blank(*c); c++)
		;
	if (c < e && *c != '#' && *c != ';')
		return file_parse_fail(fp, "unexpected text after section header");
	name = s + 1;
	end = close;
	trim(&name, &end);
	*end = '\0';
	if (end - name > POLICY_NAME_MAX)
		return file_parse_fail(fp, "section name too long (at most %d characters)",
				       POLICY_NAME_MAX);
	kind = section_parse(name, &target);
	if (kind < 0)
		return file_parse_fail(fp,
				       "unknown section [%s]; expected [Daemon], [Default], "
				       "[Group NAME], [User NAME] or [IRQ]",
				       name);
	/* "[User ;x]": a comment where the name should end */
	if (has_semicolon_comment(name, end))
		return file_parse_fail(fp, "section header without closing ']'");
	fp->kind = kind;
	fp->section = name;
	fp->target = target ? name + (target - name) : NULL;
	fp->keep = header_kept(fp, kind, fp->target);
	fp->n_headers += fp->keep;
	return true;
}

/* An unknown key in [Default], [Group] or [User]: the error names the
 * keys there are. Apart from file_parse_key() so that its buffer does not
 * weigh on every line. */
static bool file_parse_unknown_key(FileParse *fp, const char *key)
{
	char names[256];

	policy_key_names_format(names, sizeof(names));
	return file_parse_fail(fp, "unknown key '%s' in section [%s]; expected %s", key,
			       fp->section, names);
}

/* A key under a header that was an error, when all errors are collected:
 * its section is unknown, so the value is checked against the key of that
 * name in any section, and a name no section knows is passed over (the
 * header's error already covers it). The file is rejected anyway. */
static bool file_parse_key_loosely(FileParse *fp, const char *key, const char *value)
{
	const PolicyItem *it =
		policy_item_lookup(policy_keys, _POLICY_KEY_MAX, key)
			?: policy_item_lookup(policy_daemon_keys, policy_n_daemon_keys, key);
	PolicyValue v;

	if (!it || it->parse(value, &v) >= 0)
		return true;
	return file_parse_fail(fp, "invalid value '%s' for %s: expected %s", value, key,
			       it->expect);
}

/* "Key=value", the stripped line s..e. */
static bool file_parse_key(FileParse *fp, char *s, char *e)
{
	Assignment a = { .line = fp->line, .header_line = fp->header_line, .kind = fp->kind };
	char *eq, *name_end = NULL, *value, *c;
	const char *expect = NULL;
	bool colon, comment;
	int r;

	/* the '=', and any ':' or comment before it */
	eq = memchr(s, '=', e - s);
	if (!eq)
		eq = e;
	colon = memchr(s, ':', eq - s);
	comment = has_semicolon_comment(s, eq);
	if (eq < e) {
		name_end = eq;
		trim(&s, &name_end);
		if (name_end - s > POLICY_NAME_MAX)
			return file_parse_fail(fp, "key too long (at most %d characters)",
					       POLICY_NAME_MAX);
		/* IRQ action names contain ':' ("snd_hda_intel:card0") */
		if (fp->kind != SECTION_IRQ && colon)
			return file_parse_fail(fp, "expected 'Key=value', found ':' before '='");
	}
	/* "Key: value", as other formats write it: name the mistake */
	if (eq == e && colon && fp->kind != SECTION_IRQ && !comment)
		return file_parse_fail(fp, "expected 'Key=value', found ':' instead of '='");
	if (eq == e || comment)
		return file_parse_fail(
			fp, "syntax error: expected 'Key=value', '[Section]' or a '#' comment");
	if (!fp->section && !fp->bad_header) {
		*name_end = '\0';
		return file_parse_fail(
			fp, "'%s=' outside of a section; put it under [Default] or another section",
			s);
	}
	*name_end = '\0';

	/* A comment after a value starts with '#' or ';' after a blank; '#'
	 * right after the '=' is one too. */
	value = eq + 1;
	for (c = value; c < e; c++)
		if ((*c == '#' || *c == ';') && (c > value ? is_blank(c[-1]) : *c == '#')) {
			e = c;
			break;
		}
	trim(&value, &e);
	*e = '\0';

	if (fp->bad_header)
		return file_parse_key_loosely(fp, s, value);

	switch (a.kind) {
	case SECTION_DAEMON:
		a.item = policy_item_lookup(policy_daemon_keys, policy_n_daemon_keys, s);
		if (!a.item)
			return file_parse_fail(fp, "unknown key '%s' in section [Daemon]", s);
		break;
	case SECTION_DEFAULT:
	case SECTION_GROUP:
	case SECTION_USER:
		a.item = policy_item_lookup(policy_keys, _POLICY_KEY_MAX, s);
		if (!a.item)
			return file_parse_unknown_key(fp, s);
		break;
	case SECTION_IRQ:
		if (*s == '\0')
			return file_parse_fail(fp, "missing IRQ name pattern before '='");
		break;
	case _SECTION_KIND_MAX:
	case _SECTION_KIND_INVALID:
		/* unreachable: a header that parses has a kind; never accept
		 * half a file if that ever changes */
		return file_parse_fail(fp, "key '%s' in a section of unknown kind", s);
	}
	if (a.item) {
		expect = a.item->expect;
		r = a.item->parse(value, &a.v);
	} else {
		expect = "a SCHED_FIFO priority from 1 to 99";
		r = parse_priority(value, false, &a.v.i);
	}
	if (r < 0)
		return file_parse_fail(fp, "invalid value '%s' for %s: expected %s", value, s,
				       expect);

	if (!fp->keep)
		return true; /* checked, and not needed */
	/* every key of a section points at the name in its header */
	a.section = fp->section;
	a.target = a.kind == SECTION_IRQ ? s : fp->target;
	if (fp->n_assignments == fp->n_allocated) {
		size_t want = fp->n_allocated ? 2 * fp->n_allocated : 64;
		Assignment *n = reallocarray(fp->assignments, want, sizeof(Assignment));

		if (!n) {
			fp->oom = true;
			return false;
		}
		fp->assignments = n;
		fp->n_allocated = want;
	}
	fp->assignments[fp->n_assignments++] = a;
	return true;
}

/* One line, s[0..len) without its newline; s[len] may be overwritten. */
static bool file_parse_line(FileParse *fp, char *s, size_t len)
{
	char *e;

	if (fp->line == 1 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3; /* UTF-8 byte order mark */
		len -= 3;
	}
	if (len > POLICY_LINE_MAX)
		return file_parse_fail(fp, "line too long (at most %d characters)",
				       POLICY_LINE_MAX);
	e = s + len;
	/* Indentation is ignored: an indented line is a line of its own,
	 * never a continuation of the value above. */
	trim(&s, &e);
	*e = '\0';
	if (s == e || *s == '#' || *s == ';')
		return true;
	if (*s == '[') {
		/* after a bad header, keys are checked loosely until the next */
		fp->bad_header = !file_parse_header(fp, s, e);
		if (!fp->bad_header)
			fp->header_line = fp->line;
		return !fp->bad_header;
	}
	return file_parse_key(fp, s, e);
}

/* Parses the file in data[0..size) (data[size] is writable), stopping at
 * the first problem unless fp->all_errors. */
void policy_file_parse(FileParse *fp, char *data, size_t size)
{
	const char *nul = memchr(data, '\0', size);

	for (size_t offset = 0; offset < size;) {
		char *s = data + offset, *nl = memchr(s, '\n', size - offset);
		size_t len = nl ? (size_t)(nl - s) : size - offset;

		offset += nl ? len + 1 : len;
		fp->line++;
		if (nul && nul < s + len) {
			file_parse_fail(fp, "line contains a NUL byte; is this a text file?");
			return;
		}
		if (!file_parse_line(fp, s, len) && (!fp->all_errors || fp->oom))
			return;
	}
}
