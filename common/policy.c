// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy library: loads realtime.conf(5) files with libinih and
 * evaluates them for a user. See policy.h for the contract.
 *
 * Each file is parsed on its own into a list of assignments; only a file
 * without a single error is applied, so a typo never half-applies. Applied
 * assignments update per-section values in load order, so a later file's key
 * replaces an earlier one's for the same section.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <ini.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "config.h"
#include "macro.h"
#include "parse.h"
#include "policy.h"

#define POLICY_FILE_SIZE_MAX (4U * 1024U * 1024U)
/* inih's own limits (Debian builds it with the defaults). Longer names would be
 * truncated silently by inih, so the line reader refuses them first. */
#define INI_LINE_MAX 200
#define INI_NAME_MAX 50
/* Stands in for ':' in [IRQ] patterns while inih parses them. */
#define IRQ_COLON '\x1f'

typedef enum SectionKind {
	SECTION_DAEMON,
	SECTION_DEFAULT,
	SECTION_GROUP,
	SECTION_USER,
	SECTION_IRQ,
	_SECTION_KIND_MAX,
	_SECTION_KIND_INVALID = -EINVAL,
} SectionKind;

typedef enum DaemonKey {
	DAEMON_RTKIT_COMPAT,
	DAEMON_POLKIT,
	DAEMON_USERS_MAX,
	DAEMON_THREADS_PER_USER_MAX,
	DAEMON_PROCESSES_PER_USER_MAX,
	DAEMON_BURST_SEC,
	DAEMON_ACTIONS_PER_BURST,
	DAEMON_CANARY,
	DAEMON_CANARY_WATCHDOG_SEC,
	DAEMON_CANARY_REFUSE_SEC,
	_DAEMON_KEY_MAX,
	_DAEMON_KEY_INVALID = -EINVAL,
} DaemonKey;

static const char *const policy_key_table[_POLICY_KEY_MAX] = {
	[POLICY_KEY_REALTIME_PRIORITY] = "RealtimePriority",
	[POLICY_KEY_POLICIES] = "Policies",
	[POLICY_KEY_NICE] = "Nice",
	[POLICY_KEY_MEMLOCK] = "MemLock",
	[POLICY_KEY_RTTIME] = "RTTime",
	[POLICY_KEY_CAPABILITIES] = "Capabilities",
	[POLICY_KEY_COMPAT_POLICY] = "CompatPolicy",
};

static const char *const daemon_key_table[_DAEMON_KEY_MAX] = {
	[DAEMON_RTKIT_COMPAT] = "RtkitCompat",
	[DAEMON_POLKIT] = "Polkit",
	[DAEMON_USERS_MAX] = "UsersMax",
	[DAEMON_THREADS_PER_USER_MAX] = "ThreadsPerUserMax",
	[DAEMON_PROCESSES_PER_USER_MAX] = "ProcessesPerUserMax",
	[DAEMON_BURST_SEC] = "BurstSec",
	[DAEMON_ACTIONS_PER_BURST] = "ActionsPerBurst",
	[DAEMON_CANARY] = "Canary",
	[DAEMON_CANARY_WATCHDOG_SEC] = "CanaryWatchdogSec",
	[DAEMON_CANARY_REFUSE_SEC] = "CanaryRefuseSec",
};

/* A [Default], [Group X] or [User X] section, merged over all files. */
typedef struct Section {
	SectionKind kind;
	char *name;    /* group or user name; NULL for numeric or Default */
	bool numeric;  /* [Group #GID] / [User #UID] */
	uint32_t id;   /* the GID or UID when numeric */
	char *display; /* "Group audio", as written (single-spaced) */
	PolicyGrant values;
} Section;

typedef struct IrqRule {
	PolicyIrqRule rule;
	char *pattern;
} IrqRule;

struct Policy {
	char **paths; /* every path mentioned; sources and errors point here */
	size_t n_paths;
	size_t *accepted; /* indices into paths */
	size_t n_accepted;
	PolicyError *errors;
	size_t n_errors;
	Section **sections; /* sections[0] is [Default] */
	size_t n_sections;
	Section **index; /* open addressing over sections[1..]; n_index is 0 or a power of 2 */
	size_t n_index;
	IrqRule *irq;
	size_t n_irq;
	PolicyDaemon daemon;
};

/* One parsed "Key=value" line of a file that is still being checked. */
typedef struct Assignment {
	SectionKind kind;
	char *section; /* "Group audio" etc. as normalized */
	char *target;  /* group/user name or "#N"; IRQ pattern for [IRQ] */
	int key;       /* PolicyKey or DaemonKey */
	unsigned line;
	union {
		int i;
		unsigned u;
		uint64_t u64;
		bool b;
	} v;
} Assignment;

typedef struct FileParse {
	const char *path;
	const char *data;
	size_t size, offset;
	unsigned line;
	SectionKind kind; /* of the section the reader last saw */
	Assignment *assignments;
	size_t n_assignments, n_allocated;
	char *arena; /* section and target names of the assignments */
	size_t arena_size, arena_used;
	unsigned error_line;
	char *error;
	bool oom;
} FileParse;

const char *policy_key_to_string(PolicyKey k)
{
	if (k < 0 || k >= _POLICY_KEY_MAX)
		return NULL;
	return policy_key_table[k];
}

PolicyKey policy_key_from_string(const char *s)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		if (streq(s, policy_key_table[k]))
			return k;
	return _POLICY_KEY_INVALID;
}

static DaemonKey daemon_key_from_string(const char *s)
{
	for (int k = 0; k < _DAEMON_KEY_MAX; k++)
		if (streq(s, daemon_key_table[k]))
			return k;
	return _DAEMON_KEY_INVALID;
}

static void file_parse_done(FileParse *fp)
{
	free(fp->assignments);
	free(fp->arena);
	free(fp->error);
}

/* Copies s into the file's string arena, sized when the file was read so
 * that every section and target name of it fits: one allocation per file
 * instead of two per line. */
static char *file_parse_strdup(FileParse *fp, const char *s)
{
	size_t l = strlen(s) + 1;
	char *p;

	if (l > fp->arena_size - fp->arena_used)
		return NULL;
	p = memcpy(fp->arena + fp->arena_used, s, l);
	fp->arena_used += l;
	return p;
}

_printf_(2, 3) static void file_parse_fail(FileParse *fp, const char *fmt, ...)
{
	va_list ap;

	if (fp->error || fp->oom)
		return; /* the first problem is the one reported */
	va_start(ap, fmt);
	if (vasprintf(&fp->error, fmt, ap) < 0) {
		fp->error = NULL;
		fp->oom = true;
	}
	va_end(ap);
	fp->error_line = fp->line;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static char *strip(char *s)
{
	char *e;

	while (is_blank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_blank(e[-1]))
		*--e = '\0';
	return s;
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

/* Writes prefix, s and suffix into inih's line buffer str of size num. A
 * last line without a newline can leave no room for the one added here:
 * that counts as too long, never as an overflow. */
static char *reader_emit(FileParse *fp, char *str, int num, const char *prefix, const char *s,
			 const char *suffix)
{
	size_t lp = strlen(prefix), ls = strlen(s), lx = strlen(suffix);

	if (lp + ls + lx + 1 > (size_t)num) {
		file_parse_fail(fp, "line too long (at most %d characters)", INI_LINE_MAX - 2);
		str[0] = '\0';
		return str;
	}
	memcpy(str, prefix, lp);
	memcpy(str + lp, s, ls);
	memcpy(str + lp + ls, suffix, lx + 1);
	return str;
}

/* The inih reader: hands inih one whole line at a time from the buffer, so
 * the line counter is exact, and refuses what inih would silently truncate. */
static char *file_parse_reader(char *str, int num, void *userdata)
{
	FileParse *fp = userdata;
	const char *start, *nl;
	char line[INI_LINE_MAX + 1], *s, *end;
	size_t len;

	if (fp->offset >= fp->size)
		return NULL;
	start = fp->data + fp->offset;
	nl = memchr(start, '\n', fp->size - fp->offset);
	len = nl ? (size_t)(nl - start) + 1 : fp->size - fp->offset;
	fp->offset += len;
	fp->line++;

	if (memchr(start, '\0', len)) {
		file_parse_fail(fp, "line contains a NUL byte; is this a text file?");
		len = 0;
	}
	if (fp->line == 1 && len >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) {
		start += 3; /* UTF-8 byte order mark */
		len -= 3;
	}
	if (len + 1 > (size_t)num || len + 1 > sizeof(line)) {
		file_parse_fail(fp, "line too long (at most %d characters)", INI_LINE_MAX - 2);
		len = 0;
	}
	memcpy(line, start, len);
	line[len] = '\0';
	s = strip(line);

	/* Hand inih the stripped line: an indented line is then an ordinary line,
	 * never a silent continuation of the previous value. */
	if (s[0] == '[') {
		const char *target;
		SectionKind kind;

		/* inih never reports sections without keys, so check headers here. */
		end = strchr(s, ']');
		if (!end) {
			file_parse_fail(fp, "section header without closing ']'");
			str[0] = '\0';
			return str;
		}
		*end = '\0';
		end = strip(end + 1);
		if (*end != '\0' && *end != '#' && *end != ';')
			file_parse_fail(fp, "unexpected text after section header");
		s = strip(s + 1);
		if (strlen(s) >= INI_NAME_MAX)
			file_parse_fail(fp, "section name too long (at most %d characters)",
					INI_NAME_MAX - 1);
		kind = section_parse(s, &target);
		if (kind < 0)
			file_parse_fail(fp,
					"unknown section [%s]; expected [Daemon], [Default], "
					"[Group NAME], [User NAME] or [IRQ]",
					s);
		fp->kind = kind;
		return reader_emit(fp, str, num, "[", s, "]\n");
	}
	if (s[0] != '\0' && s[0] != '#' && s[0] != ';') {
		end = strchr(s, '=');
		if (end && (size_t)(end - s) >= INI_NAME_MAX)
			file_parse_fail(fp, "key too long (at most %d characters)",
					INI_NAME_MAX - 1);
		/* inih also splits at ':', but IRQ action names contain it
		 * ("snd_hda_intel:card0"): hide those from inih, the handler
		 * puts them back. Elsewhere "Key:value" is a mistake. */
		for (char *c = s; end && c < end; c++) {
			if (*c != ':')
				continue;
			if (fp->kind != SECTION_IRQ) {
				file_parse_fail(fp, "expected 'Key=value', found ':' before '='");
				break;
			}
			*c = IRQ_COLON;
		}
	}
	return reader_emit(fp, str, num, "", s, "\n");
}

/* Removes a trailing "  # comment" (inih handles " ; comment" itself). */
static char *value_strip_comment(char *v)
{
	for (char *p = v; *p; p++)
		if (*p == '#' && (p == v || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			break;
		}
	return strip(v);
}

static int policy_key_parse(PolicyKey k, const char *value, Assignment *a, const char **ret_expect)
{
	switch (k) {
	case POLICY_KEY_REALTIME_PRIORITY:
		*ret_expect = "a priority from 0 (no realtime) to 99";
		return parse_priority(value, true, &a->v.i);
	case POLICY_KEY_POLICIES:
		*ret_expect = "scheduling policies: fifo, rr, or both";
		return parse_policies(value, &a->v.u);
	case POLICY_KEY_NICE:
		*ret_expect = "a nice level from -20 to 19";
		return parse_nice(value, &a->v.i);
	case POLICY_KEY_MEMLOCK:
		*ret_expect = "a size such as 65536, 64K, 64M, 1G, or infinity";
		return parse_size(value, &a->v.u64);
	case POLICY_KEY_RTTIME:
		*ret_expect =
			"a duration such as 200000 (microseconds), 500us, 200ms, 2s, or infinity";
		return parse_duration(value, true, &a->v.u64);
	case POLICY_KEY_CAPABILITIES:
		*ret_expect = "capability names: sys_nice, ipc_lock (or nothing)";
		return parse_capabilities(value, &a->v.u64);
	case POLICY_KEY_COMPAT_POLICY:
		*ret_expect = "fifo or rr";
		if (parse_policies(value, &a->v.u) < 0 ||
		    (a->v.u != POLICY_SCHED_FIFO && a->v.u != POLICY_SCHED_RR))
			return -EINVAL;
		return 0;
	case _POLICY_KEY_MAX:
	case _POLICY_KEY_INVALID:
		break;
	}
	return -EINVAL;
}

static int daemon_key_parse(DaemonKey k, const char *value, Assignment *a, const char **ret_expect)
{
	switch (k) {
	case DAEMON_RTKIT_COMPAT:
	case DAEMON_POLKIT:
	case DAEMON_CANARY:
		*ret_expect = "yes or no";
		return parse_boolean(value, &a->v.b);
	case DAEMON_USERS_MAX:
	case DAEMON_THREADS_PER_USER_MAX:
	case DAEMON_PROCESSES_PER_USER_MAX:
	case DAEMON_ACTIONS_PER_BURST:
		*ret_expect = "a whole number from 1 to 1000000";
		if (parse_unsigned(value, &a->v.u) < 0 || a->v.u < 1 || a->v.u > 1000000)
			return -EINVAL;
		return 0;
	case DAEMON_BURST_SEC:
	case DAEMON_CANARY_WATCHDOG_SEC:
	case DAEMON_CANARY_REFUSE_SEC:
		*ret_expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from "
			      "1ms to 1h";
		if (parse_duration(value, false, &a->v.u64) < 0 || a->v.u64 < 1000 ||
		    a->v.u64 > 3600ULL * 1000000ULL)
			return -EINVAL;
		return 0;
	case _DAEMON_KEY_MAX:
	case _DAEMON_KEY_INVALID:
		break;
	}
	return -EINVAL;
}

static int file_parse_handler(void *userdata, const char *section, const char *name,
			      const char *value)
{
	FileParse *fp = userdata;
	char v[INI_LINE_MAX + 1];
	const char *target = NULL, *expect = NULL;
	Assignment a = { .line = fp->line }, *prev;
	SectionKind kind;
	Assignment *n;
	int r;

	if (fp->error || fp->oom)
		return 1; /* already rejected; keep inih going quietly */
	if (isempty(section)) {
		file_parse_fail(
			fp, "'%s=' outside of a section; put it under [Default] or another section",
			name);
		return 0;
	}
	prev = fp->n_assignments > 0 ? &fp->assignments[fp->n_assignments - 1] : NULL;
	if (prev && streq(prev->section, section))
		kind = prev->kind; /* the same section as the line before */
	else {
		prev = NULL;
		kind = section_parse(section, &target);
	}
	if (kind < 0)
		return 0; /* reported by the reader */

	/* inih's values are shorter than the line they came from */
	memcpy(v, value, strnlen(value, sizeof(v) - 1));
	v[strnlen(value, sizeof(v) - 1)] = '\0';
	value = value_strip_comment(v);
	a.kind = kind;

	switch (kind) {
	case SECTION_DAEMON:
		a.key = daemon_key_from_string(name);
		if (a.key < 0) {
			file_parse_fail(fp, "unknown key '%s' in section [Daemon]", name);
			return 0;
		}
		r = daemon_key_parse(a.key, value, &a, &expect);
		break;
	case SECTION_DEFAULT:
	case SECTION_GROUP:
	case SECTION_USER:
		a.key = policy_key_from_string(name);
		if (a.key < 0) {
			file_parse_fail(
				fp,
				"unknown key '%s' in section [%s]; expected RealtimePriority, "
				"Policies, Nice, MemLock, RTTime, Capabilities or CompatPolicy",
				name, section);
			return 0;
		}
		r = policy_key_parse(a.key, value, &a, &expect);
		break;
	case SECTION_IRQ:
		if (isempty(name)) {
			file_parse_fail(fp, "missing IRQ name pattern before '='");
			return 0;
		}
		expect = "a SCHED_FIFO priority from 1 to 99";
		target = name;
		r = parse_priority(value, false, &a.v.i);
		break;
	case _SECTION_KIND_MAX:
	case _SECTION_KIND_INVALID:
	default:
		return 0;
	}
	if (r < 0) {
		file_parse_fail(fp, "invalid value '%s' for %s: expected %s", value, name, expect);
		return 0;
	}

	/* Consecutive keys of one section share its name (and the user or group
	 * name in it), so the arena holds each header's names once, and each
	 * [IRQ] pattern once per line. */
	if (prev) {
		a.section = prev->section;
		if (kind != SECTION_IRQ) {
			a.target = prev->target;
			target = NULL;
		}
	} else
		a.section = file_parse_strdup(fp, section);
	if (target)
		a.target = file_parse_strdup(fp, target);
	for (char *c = a.target; c && *c; c++)
		if (*c == IRQ_COLON)
			*c = ':';
	n = fp->assignments;
	if (fp->n_assignments == fp->n_allocated) {
		size_t want = fp->n_allocated ? 2 * fp->n_allocated : 16;

		n = reallocarray(fp->assignments, want, sizeof(Assignment));
		if (n) {
			fp->assignments = n;
			fp->n_allocated = want;
		}
	}
	if (!a.section || (target && !a.target) || !n) {
		fp->oom = true;
		return 0;
	}
	fp->assignments[fp->n_assignments++] = a;
	return 1;
}

static int policy_add_path(Policy *p, const char *path, const char **ret)
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

_printf_(4, 5) static int policy_add_error(Policy *p, const char *path, unsigned line,
					   const char *fmt, ...)
{
	PolicyError *n;
	const char *file;
	char *msg;
	va_list ap;
	int r;

	r = policy_add_path(p, path, &file);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	n = reallocarray(p->errors, p->n_errors + 1, sizeof(PolicyError));
	if (!n) {
		free(msg);
		return -ENOMEM;
	}
	p->errors = n;
	n[p->n_errors++] = (PolicyError){ .file = file, .line = line, .message = msg };
	return 0;
}

static int section_new(SectionKind kind, const char *section, const char *target, Section **ret)
{
	Section *s;

	s = calloc(1, sizeof(Section));
	if (!s)
		return -ENOMEM;
	s->kind = kind;
	s->values.compat_policy = POLICY_SCHED_RR;
	if (target && target[0] == '#') {
		unsigned u = 0;

		(void)parse_unsigned(target + 1, &u); /* validated by section_parse() */
		s->numeric = true;
		s->id = u;
	} else if (target) {
		s->name = strdup(target);
		if (!s->name) {
			free(s);
			return -ENOMEM;
		}
	}
	s->display = strdup(section);
	if (!s->display) {
		free(s->name);
		free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

static Section *section_free(Section *s)
{
	if (!s)
		return NULL;
	free(s->name);
	free(s->display);
	free(s);
	return NULL;
}

static uint64_t section_hash(SectionKind kind, bool numeric, uint32_t id, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)kind ^ ((uint64_t)numeric << 8);

	if (numeric)
		return (h ^ id) * 0x100000001b3ULL;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return h;
}

static bool section_is(const Section *s, SectionKind kind, bool numeric, uint32_t id,
		       const char *name)
{
	return s->kind == kind && s->numeric == numeric &&
	       (numeric ? s->id == id : streq(s->name, name));
}

static void index_put(Section **index, size_t n_index, Section *s)
{
	size_t i = section_hash(s->kind, s->numeric, s->id, s->name) & (n_index - 1);

	while (index[i])
		i = (i + 1) & (n_index - 1);
	index[i] = s;
}

static int policy_get_section(Policy *p, const Assignment *a, Section **ret)
{
	Section **n, *s;
	bool numeric;
	uint32_t id;
	size_t i;
	int r;

	if (a->kind == SECTION_DEFAULT) {
		*ret = p->sections[0];
		return 0;
	}
	numeric = a->target[0] == '#';
	id = numeric ? (uint32_t)strtoul(a->target + 1, NULL, 10) : 0;
	if (p->n_index > 0)
		for (i = section_hash(a->kind, numeric, id, a->target) & (p->n_index - 1);
		     p->index[i]; i = (i + 1) & (p->n_index - 1))
			if (section_is(p->index[i], a->kind, numeric, id, a->target)) {
				*ret = p->index[i];
				return 0;
			}
	/* Keep the index at most half full. */
	if (2 * p->n_sections >= p->n_index) {
		size_t size = p->n_index ? 2 * p->n_index : 64;
		Section **index = calloc(size, sizeof(Section *));

		if (!index)
			return -ENOMEM;
		for (i = 1; i < p->n_sections; i++)
			index_put(index, size, p->sections[i]);
		free(p->index);
		p->index = index;
		p->n_index = size;
	}
	n = reallocarray(p->sections, p->n_sections + 1, sizeof(Section *));
	if (!n)
		return -ENOMEM;
	p->sections = n;
	r = section_new(a->kind, a->section, a->target, &s);
	if (r < 0)
		return r;
	n[p->n_sections++] = s;
	index_put(p->index, p->n_index, s);
	*ret = s;
	return 0;
}

static void grant_set(PolicyGrant *g, PolicyKey k, const Assignment *a, PolicySource src)
{
	switch (k) {
	case POLICY_KEY_REALTIME_PRIORITY:
		g->realtime_priority = a->v.i;
		break;
	case POLICY_KEY_POLICIES:
		g->policies = a->v.u;
		break;
	case POLICY_KEY_NICE:
		g->nice = a->v.i;
		break;
	case POLICY_KEY_MEMLOCK:
		g->memlock = a->v.u64;
		break;
	case POLICY_KEY_RTTIME:
		g->rttime_usec = a->v.u64;
		break;
	case POLICY_KEY_CAPABILITIES:
		g->capabilities = a->v.u64;
		break;
	case POLICY_KEY_COMPAT_POLICY:
		g->compat_policy = a->v.u;
		break;
	case _POLICY_KEY_MAX:
	case _POLICY_KEY_INVALID:
		return;
	}
	g->set[k] = true;
	g->source[k] = src;
}

static void daemon_set(PolicyDaemon *d, DaemonKey k, const Assignment *a)
{
	switch (k) {
	case DAEMON_RTKIT_COMPAT:
		d->rtkit_compat = a->v.b;
		break;
	case DAEMON_POLKIT:
		d->polkit = a->v.b;
		break;
	case DAEMON_USERS_MAX:
		d->users_max = a->v.u;
		break;
	case DAEMON_THREADS_PER_USER_MAX:
		d->threads_per_user_max = a->v.u;
		break;
	case DAEMON_PROCESSES_PER_USER_MAX:
		d->processes_per_user_max = a->v.u;
		break;
	case DAEMON_BURST_SEC:
		d->burst_usec = a->v.u64;
		break;
	case DAEMON_ACTIONS_PER_BURST:
		d->actions_per_burst = a->v.u;
		break;
	case DAEMON_CANARY:
		d->canary = a->v.b;
		break;
	case DAEMON_CANARY_WATCHDOG_SEC:
		d->canary_watchdog_usec = a->v.u64;
		break;
	case DAEMON_CANARY_REFUSE_SEC:
		d->canary_refuse_usec = a->v.u64;
		break;
	case _DAEMON_KEY_MAX:
	case _DAEMON_KEY_INVALID:
		break;
	}
}

static int policy_set_irq(Policy *p, const Assignment *a, PolicySource src)
{
	IrqRule *n;
	char *pattern;

	for (size_t i = 0; i < p->n_irq; i++)
		if (streq(p->irq[i].pattern, a->target)) {
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
static int policy_apply(Policy *p, const char *file, const FileParse *fp)
{
	for (size_t i = 0; i < fp->n_assignments; i++) {
		const Assignment *a = &fp->assignments[i];
		PolicySource src = { .file = file, .line = a->line };
		Section *s;
		int r;

		switch (a->kind) {
		case SECTION_DAEMON:
			daemon_set(&p->daemon, a->key, a);
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
			r = policy_get_section(p, a, &s);
			if (r < 0)
				return r;
			src.section = s->display;
			grant_set(&s->values, a->key, a, src);
			break;
		case _SECTION_KIND_MAX:
		case _SECTION_KIND_INVALID:
			break;
		}
	}
	return 0;
}

static int read_file(const char *path, char **ret, size_t *ret_size)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t size = 0;

	/* O_NONBLOCK: a FIFO named like a drop-in must not hang a login. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
		return -EBADFD;
	buf = malloc(POLICY_FILE_SIZE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(fd, buf + size, POLICY_FILE_SIZE_MAX + 1 - size);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		size += n;
		if (size > POLICY_FILE_SIZE_MAX)
			return -EFBIG;
	}
	*ret = TAKE_PTR(buf);
	*ret_size = size;
	return 0;
}

/* Loads one file. missing_ok: ENOENT is silently skipped. */
static int policy_load_one(Policy *p, const char *path, bool missing_ok)
{
	_cleanup_free_ char *data = NULL;
	FileParse fp = { .path = path, .kind = _SECTION_KIND_INVALID };
	const char *file;
	size_t size = 0, *n;
	int r;

	r = read_file(path, &data, &size);
	if (r == -ENOENT && missing_ok)
		return 0;
	if (r == -ENOMEM)
		return r;
	if (r == -EFBIG)
		return policy_add_error(p, path, 0, "file is larger than %u bytes",
					POLICY_FILE_SIZE_MAX);
	if (r == -EBADFD)
		return policy_add_error(p, path, 0, "not a regular file");
	if (r < 0)
		return policy_add_error(p, path, 0, "cannot read file: %s", strerror(-r));

	fp.data = data;
	fp.size = size;
	/* a line yields at most a section and a target name, each no longer
	 * than the line, plus their NULs */
	fp.arena_size = 2 * size + 2 * (size + 1) + 16;
	fp.arena = malloc(fp.arena_size);
	if (!fp.arena)
		return -ENOMEM;
	r = ini_parse_stream(file_parse_reader, &fp, file_parse_handler, &fp);
	if (fp.oom) {
		file_parse_done(&fp);
		return -ENOMEM;
	}
	/* inih returns the first line it found wrong: one our handler refused
	 * (we know why) or one it could not parse at all (a syntax error). */
	if (r < 0 && !fp.error)
		r = policy_add_error(p, path, 0, "cannot parse file");
	else if (r > 0 && (!fp.error || (unsigned)r < fp.error_line))
		r = policy_add_error(
			p, path, (unsigned)r,
			"syntax error: expected 'Key=value', '[Section]' or a '#' comment");
	else if (fp.error)
		r = policy_add_error(p, path, fp.error_line, "%s", fp.error);
	else {
		r = policy_add_path(p, path, &file);
		if (r >= 0)
			r = policy_apply(p, file, &fp);
		if (r >= 0) {
			n = reallocarray(p->accepted, p->n_accepted + 1, sizeof(size_t));
			if (!n)
				r = -ENOMEM;
			else {
				p->accepted = n;
				n[p->n_accepted++] = p->n_paths - 1;
			}
		}
	}
	file_parse_done(&fp);
	return r < 0 ? r : 0;
}

static int policy_new(Policy **ret)
{
	Policy *p;
	int r;

	p = calloc(1, sizeof(Policy));
	if (!p)
		return -ENOMEM;
	p->daemon = (PolicyDaemon){
		.rtkit_compat = true,
		.polkit = true,
		.users_max = 2048,
		.threads_per_user_max = 64,
		.processes_per_user_max = 32,
		.burst_usec = 20ULL * 1000000ULL,
		.actions_per_burst = 100,
		.canary = true,
		.canary_watchdog_usec = 2ULL * 1000000ULL,
		.canary_refuse_usec = 60ULL * 1000000ULL,
	};
	p->sections = calloc(1, sizeof(Section *));
	if (!p->sections) {
		free(p);
		return -ENOMEM;
	}
	p->n_sections = 1;
	r = section_new(SECTION_DEFAULT, "Default", NULL, &p->sections[0]);
	if (r < 0) {
		policy_free(p);
		return r;
	}
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
	for (size_t i = 0; i < p->n_sections; i++)
		section_free(p->sections[i]);
	free(p->sections);
	free(p->index);
	for (size_t i = 0; i < p->n_irq; i++)
		free(p->irq[i].pattern);
	free(p->irq);
	free(p);
	return NULL;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the *.conf names of dir to names (deduplicated later). */
static int dropins_collect(const char *dir, char ***names, size_t *n)
{
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (isempty(dir))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0; /* a missing or unreadable drop-in directory holds no policy */
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || l < 6 || !streq(de->d_name + l - 5, ".conf"))
			continue;
		nn = reallocarray(*names, *n + 1, sizeof(char *));
		if (!nn) {
			r = -ENOMEM;
			break;
		}
		*names = nn;
		nn[*n] = strdup(de->d_name);
		if (!nn[*n]) {
			r = -ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(d);
	return r;
}

static int policy_load_dropins(Policy *p, const char *vendor_dir, const char *admin_dir)
{
	char **names = NULL;
	size_t n = 0;
	int r;

	r = dropins_collect(vendor_dir, &names, &n);
	if (r >= 0)
		r = dropins_collect(admin_dir, &names, &n);
	if (r >= 0 && n > 0)
		qsort(names, n, sizeof(char *), cmp_strp);
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_free_ char *admin = NULL, *vendor = NULL;

		if (i > 0 && streq(names[i], names[i - 1]))
			continue;
		if (!isempty(admin_dir) && asprintf(&admin, "%s/%s", admin_dir, names[i]) < 0) {
			admin = NULL;
			r = -ENOMEM;
			break;
		}
		/* An /etc drop-in masks the vendor drop-in of the same name. */
		if (admin && access(admin, F_OK) == 0) {
			r = policy_load_one(p, admin, true);
			continue;
		}
		if (asprintf(&vendor, "%s/%s", vendor_dir, names[i]) < 0) {
			vendor = NULL;
			r = -ENOMEM;
			break;
		}
		r = policy_load_one(p, vendor, true);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

static const char *path_or(const char *path, const char *def)
{
	return path ? path : def;
}

int policy_load(const PolicyPaths *paths, Policy **ret)
{
	static const PolicyPaths none = {};
	const char *vendor_file, *admin_file;
	Policy *p;
	int r;

	if (!paths)
		paths = &none;
	r = policy_new(&p);
	if (r < 0)
		return r;
	vendor_file = path_or(paths->vendor_file, POLICY_VENDOR_FILE);
	admin_file = path_or(paths->admin_file, POLICY_ADMIN_FILE);
	if (!isempty(vendor_file))
		r = policy_load_one(p, vendor_file, true);
	if (r >= 0 && !isempty(admin_file))
		r = policy_load_one(p, admin_file, true);
	if (r >= 0)
		r = policy_load_dropins(p,
					path_or(paths->vendor_dropin_dir, POLICY_VENDOR_DROPIN_DIR),
					path_or(paths->admin_dropin_dir, POLICY_ADMIN_DROPIN_DIR));
	if (r < 0) {
		policy_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

int policy_load_files(const char *const *files, size_t n_files, Policy **ret)
{
	Policy *p;
	int r;

	r = policy_new(&p);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_files; i++) {
		r = policy_load_one(p, files[i], false);
		if (r < 0) {
			policy_free(p);
			return r;
		}
	}
	*ret = p;
	return 0;
}

size_t policy_n_errors(const Policy *p)
{
	return p->n_errors;
}

const PolicyError *policy_error(const Policy *p, size_t i)
{
	return i < p->n_errors ? &p->errors[i] : NULL;
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

/* Is a more generous than b for key k? */
static bool grant_more_generous(const PolicyGrant *a, const PolicyGrant *b, PolicyKey k)
{
	switch (k) {
	case POLICY_KEY_REALTIME_PRIORITY:
		return a->realtime_priority > b->realtime_priority;
	case POLICY_KEY_POLICIES:
		return (a->policies | b->policies) != b->policies;
	case POLICY_KEY_NICE:
		return a->nice < b->nice;
	case POLICY_KEY_MEMLOCK:
		return a->memlock > b->memlock;
	case POLICY_KEY_RTTIME:
		return a->rttime_usec > b->rttime_usec;
	case POLICY_KEY_CAPABILITIES:
		return (a->capabilities | b->capabilities) != b->capabilities;
	case POLICY_KEY_COMPAT_POLICY:
		return a->compat_policy == POLICY_SCHED_FIFO &&
		       b->compat_policy != POLICY_SCHED_FIFO;
	case _POLICY_KEY_MAX:
	case _POLICY_KEY_INVALID:
		break;
	}
	return false;
}

/* Copies key k (value and source) from src to dst. */
static void grant_copy_key(PolicyGrant *dst, const PolicyGrant *src, PolicyKey k)
{
	switch (k) {
	case POLICY_KEY_REALTIME_PRIORITY:
		dst->realtime_priority = src->realtime_priority;
		break;
	case POLICY_KEY_POLICIES:
		dst->policies = src->policies;
		break;
	case POLICY_KEY_NICE:
		dst->nice = src->nice;
		break;
	case POLICY_KEY_MEMLOCK:
		dst->memlock = src->memlock;
		break;
	case POLICY_KEY_RTTIME:
		dst->rttime_usec = src->rttime_usec;
		break;
	case POLICY_KEY_CAPABILITIES:
		dst->capabilities = src->capabilities;
		break;
	case POLICY_KEY_COMPAT_POLICY:
		dst->compat_policy = src->compat_policy;
		break;
	case _POLICY_KEY_MAX:
	case _POLICY_KEY_INVALID:
		return;
	}
	dst->set[k] = src->set[k];
	dst->source[k] = src->source[k];
}

/* Merges section values s into acc, keeping the most generous value of each
 * key. Policies and Capabilities are sets: their union is the most generous,
 * and the source named is the section that added the most. */
static void grant_merge_generous(PolicyGrant *acc, const PolicyGrant *s)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		unsigned policies = acc->policies | s->policies;
		uint64_t caps = acc->capabilities | s->capabilities;
		bool was_set = acc->set[k];

		if (!s->set[k] || (was_set && !grant_more_generous(s, acc, k)))
			continue;
		grant_copy_key(acc, s, k);
		if (was_set && k == POLICY_KEY_POLICIES)
			acc->policies = policies;
		if (was_set && k == POLICY_KEY_CAPABILITIES)
			acc->capabilities = caps;
	}
}

/* Overlays every key set in over onto base. */
static void grant_overlay(PolicyGrant *base, const PolicyGrant *over)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		if (over->set[k])
			grant_copy_key(base, over, k);
	base->covered = base->covered || over->covered;
}

/* The name of group gid through NSS, or NULL if it has none (or memory
 * ran out). The buffer grows for groups with many members (LDAP, SSSD). */
static char *group_name(gid_t gid)
{
	struct group grp, *result = NULL;
	char small[1024];
	_cleanup_free_ char *big = NULL;
	char *buf = small;
	size_t size = sizeof(small);

	for (;;) {
		int r = getgrgid_r(gid, &grp, buf, size, &result);

		if (r == 0)
			return result ? strdup(grp.gr_name) : NULL;
		if (r != ERANGE || size >= 1U << 20)
			return NULL;
		size *= 4;
		free(big);
		big = malloc(size);
		if (!big)
			return NULL;
		buf = big;
	}
}

/* The names of the user's groups, resolved once per evaluation (n_gids
 * lookups) instead of once per [Group NAME] section. names[i] is NULL for
 * a gid without a name. */
static char **group_names(const gid_t *gids, size_t n_gids)
{
	char **names = calloc(n_gids + 1, sizeof(char *));

	if (!names)
		return NULL;
	for (size_t i = 0; i < n_gids; i++)
		names[i] = group_name(gids[i]);
	return names;
}

static bool section_matches(const Section *s, const char *user, uid_t uid, const gid_t *gids,
			    char *const *names, size_t n_gids)
{
	switch (s->kind) {
	case SECTION_USER:
		return s->numeric ? s->id == uid : streq_ptr(s->name, user);
	case SECTION_GROUP:
		for (size_t i = 0; i < n_gids; i++)
			if (s->numeric ? gids[i] == s->id : streq_ptr(names[i], s->name))
				return true;
		return false;
	case SECTION_DAEMON:
	case SECTION_DEFAULT:
	case SECTION_IRQ:
	case _SECTION_KIND_MAX:
	case _SECTION_KIND_INVALID:
		break;
	}
	return false;
}

int policy_eval(const Policy *p, const char *user, uid_t uid, const gid_t *gids, size_t n_gids,
		PolicyGrant *ret)
{
	PolicyGrant result = p->sections[0]->values, groups = {}, users = {};
	char **names = group_names(gids, n_gids);

	if (!names)
		return -ENOMEM;
	result.covered = false;
	groups.compat_policy = users.compat_policy = POLICY_SCHED_RR;
	for (size_t i = 1; i < p->n_sections; i++) {
		const Section *s = p->sections[i];

		if (!section_matches(s, user, uid, gids, names, n_gids))
			continue;
		if (s->kind == SECTION_GROUP) {
			grant_merge_generous(&groups, &s->values);
			groups.covered = true;
		} else {
			grant_merge_generous(&users, &s->values);
			users.covered = true;
		}
	}
	for (size_t j = 0; j < n_gids; j++)
		free(names[j]);
	free(names);
	grant_overlay(&result, &groups);
	grant_overlay(&result, &users);
	/* CompatPolicy=fifo only holds where Policies= allows fifo. */
	if (result.compat_policy == POLICY_SCHED_FIFO && !(result.policies & POLICY_SCHED_FIFO))
		result.compat_policy = POLICY_SCHED_RR;
	*ret = result;
	return 0;
}

int policy_eval_user(const Policy *p, const char *user, PolicyGrant *ret)
{
	struct passwd pw, *result = NULL;
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ gid_t *gids = NULL;
	size_t size = 4096;
	int n = 64, r;

	for (;;) {
		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		r = getpwnam_r(user, &pw, buf, size, &result);
		if (r != ERANGE)
			break;
		if (size >= 1U << 20)
			return -ERANGE;
		size *= 4;
	}
	if (r != 0)
		return -r;
	if (!result)
		return -ESRCH;

	for (;;) {
		int want = n;
		gid_t *g = reallocarray(gids, n, sizeof(gid_t));

		if (!g)
			return -ENOMEM;
		gids = g;
		if (getgrouplist(pw.pw_name, pw.pw_gid, gids, &want) >= 0) {
			n = want;
			break;
		}
		if (want <= n || want > 65536)
			return -E2BIG;
		n = want;
	}
	return policy_eval(p, pw.pw_name, pw.pw_uid, gids, (size_t)n, ret);
}

int policy_eval_uid(const Policy *p, uid_t uid, PolicyGrant *ret)
{
	struct passwd pw, *result = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t size = 4096;
	int r;

	for (;;) {
		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		r = getpwuid_r(uid, &pw, buf, size, &result);
		if (r != ERANGE)
			break;
		if (size >= 1U << 20)
			return -ERANGE;
		size *= 4;
	}
	if (r != 0)
		return -r;
	if (!result)
		return -ESRCH;
	return policy_eval_user(p, pw.pw_name, ret);
}

static int format_scaled(char *buf, size_t size, uint64_t v, const uint64_t *factors,
			 const char *const *suffixes, size_t n)
{
	int l;

	if (v == POLICY_INFINITY)
		l = snprintf(buf, size, "infinity");
	else {
		size_t i = 0;

		while (i + 1 < n && v != 0 && v % factors[i + 1] == 0)
			i++;
		l = snprintf(buf, size, "%" PRIu64 "%s", v / factors[i], suffixes[i]);
	}
	return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
}

static int format_words(char *buf, size_t size, uint64_t mask, const uint64_t *bits,
			const char *const *words, size_t n)
{
	size_t used = 0;

	if (size == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int l;

		if (!(mask & bits[i]))
			continue;
		l = snprintf(buf + used, size - used, "%s%s", used ? " " : "", words[i]);
		if (l < 0 || (size_t)l >= size - used)
			return -ENOBUFS;
		used += l;
	}
	return 0;
}

int policy_grant_format(const PolicyGrant *g, PolicyKey k, char *buf, size_t size)
{
	static const uint64_t size_factors[] = { 1, 1ULL << 10, 1ULL << 20, 1ULL << 30 };
	static const char *const size_suffixes[] = { "", "K", "M", "G" };
	static const uint64_t time_factors[] = { 1, 1000, 1000000 };
	static const char *const time_suffixes[] = { "us", "ms", "s" };
	static const uint64_t policy_bits[] = { POLICY_SCHED_FIFO, POLICY_SCHED_RR };
	static const char *const policy_words[] = { "fifo", "rr" };
	static const uint64_t cap_bits[] = { 1ULL << CAP_SYS_NICE, 1ULL << CAP_IPC_LOCK };
	static const char *const cap_words[] = { "sys_nice", "ipc_lock" };
	int l;

	if (k < 0 || k >= _POLICY_KEY_MAX)
		return -EINVAL;
	switch (k) {
	case POLICY_KEY_REALTIME_PRIORITY:
		l = snprintf(buf, size, "%d", g->realtime_priority);
		return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
	case POLICY_KEY_NICE:
		l = snprintf(buf, size, "%d", g->nice);
		return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
	case POLICY_KEY_POLICIES:
		return format_words(buf, size, g->policies, policy_bits, policy_words, 2);
	case POLICY_KEY_COMPAT_POLICY:
		return format_words(buf, size, g->compat_policy, policy_bits, policy_words, 2);
	case POLICY_KEY_CAPABILITIES:
		return format_words(buf, size, g->capabilities, cap_bits, cap_words, 2);
	case POLICY_KEY_MEMLOCK:
		return format_scaled(buf, size, g->memlock, size_factors, size_suffixes, 4);
	case POLICY_KEY_RTTIME:
		return format_scaled(buf, size, g->rttime_usec, time_factors, time_suffixes, 3);
	case _POLICY_KEY_MAX:
	case _POLICY_KEY_INVALID:
		break;
	}
	return -EINVAL;
}

int policy_grant_rlimit(const PolicyGrant *g, int resource, uint64_t *ret)
{
	PolicyKey k;
	uint64_t v;

	switch (resource) {
	case RLIMIT_RTPRIO:
		k = POLICY_KEY_REALTIME_PRIORITY;
		v = (uint64_t)g->realtime_priority;
		break;
	case RLIMIT_NICE:
		k = POLICY_KEY_NICE;
		v = (uint64_t)(20 - g->nice);
		break;
	case RLIMIT_MEMLOCK:
		k = POLICY_KEY_MEMLOCK;
		v = g->memlock == POLICY_INFINITY ? (uint64_t)RLIM_INFINITY : g->memlock;
		break;
	case RLIMIT_RTTIME:
		k = POLICY_KEY_RTTIME;
		v = g->rttime_usec == POLICY_INFINITY ? (uint64_t)RLIM_INFINITY : g->rttime_usec;
		break;
	default:
		return -EINVAL;
	}
	if (!g->set[k])
		return -ENODATA;
	*ret = v;
	return 0;
}
