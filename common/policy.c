// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The policy library: loads realtime.conf(5) files and evaluates them for
 * a user. See policy.h for the contract.
 *
 * Each file is parsed on its own, in one pass over its buffer, into a list
 * of assignments; only a file without a single error is applied, so a typo
 * never half-applies. Applied assignments update per-section values in load
 * order, so a later file's key replaces an earlier one's for the same
 * section.
 *
 * The format is the small INI dialect realtime.conf(5) describes, parsed
 * here rather than with libinih: a login (pam_realtime) parses the whole
 * policy, and inih alone took about half as long as pam_limits takes for
 * a whole session with the same 1,000 rules (bench/RESULTS.md). Parsing
 * here also gives exact line numbers, and refuses what inih silently
 * truncated or read differently ("Key:value").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "config.h"
#include "macro.h"
#include "parse.h"
#include "policy-allow.h"
#include "policy.h"

#define POLICY_FILE_SIZE_MAX (4U * 1024U * 1024U)
#define POLICY_POOL_BLOCK (32U * 1024U)
/* The longest line, and the longest section or key name, without newline
 * or NUL (realtime.conf(5)). */
#define POLICY_LINE_MAX 198
#define POLICY_NAME_MAX 49

typedef enum SectionKind {
	SECTION_DAEMON,
	SECTION_DEFAULT,
	SECTION_GROUP,
	SECTION_USER,
	SECTION_IRQ,
	_SECTION_KIND_MAX,
	_SECTION_KIND_INVALID = -EINVAL,
} SectionKind;

/* A value as a key's parser gives it, typed by the key's table entry. */
typedef union PolicyValue {
	int i;
	unsigned u;
	uint64_t u64;
	bool b;
} PolicyValue;

typedef enum PolicyValueType {
	POLICY_VALUE_INT,
	POLICY_VALUE_UNSIGNED,
	POLICY_VALUE_U64,
	POLICY_VALUE_BOOL,
} PolicyValueType;

/* Which of two values of a key is the more generous, when several [Group]
 * sections (or a user's [User NAME] and [User #UID]) set it: realtime.conf(5),
 * EVALUATION. */
typedef enum PolicyMerge {
	POLICY_MERGE_HIGHEST, /* the higher number (infinity is the highest) */
	POLICY_MERGE_LOWEST,  /* the lower number: Nice= */
	POLICY_MERGE_UNION,   /* a set of bits: every section's bits together */
	POLICY_MERGE_FIFO,    /* fifo over rr */
} PolicyMerge;

/* One key of a section: everything the library knows about it, so that a
 * new key is one entry here (and its line in realtime.conf(5)). The idea
 * is systemd's ConfigTableItem: the parser, the loader, the evaluation and
 * the formatter walk the table instead of switching over keys. */
typedef struct PolicyItem {
	const char *name;
	PolicyValueType type; /* of the field at offset */
	size_t offset;	      /* in PolicyGrant, or PolicyDaemon for [Daemon] */
	int (*parse)(const char *s, PolicyValue *ret);
	const char *expect;  /* a valid value, for "invalid value ...: expected %s" */
	PolicyValue initial; /* before any file sets the key */
	/* PolicyGrant keys only: */
	PolicyMerge merge;
	int (*format)(const PolicyValue *v, char *buf, size_t size);
} PolicyItem;

static int parse_realtime_priority(const char *s, PolicyValue *ret)
{
	return parse_priority(s, true, &ret->i);
}

static int parse_policies_value(const char *s, PolicyValue *ret)
{
	return parse_policies(s, &ret->u);
}

static int parse_nice_value(const char *s, PolicyValue *ret)
{
	return parse_nice(s, &ret->i);
}

static int parse_size_value(const char *s, PolicyValue *ret)
{
	return parse_size(s, &ret->u64);
}

/* RTTime=: a bare number is microseconds, as in limits.conf */
static int parse_rttime(const char *s, PolicyValue *ret)
{
	return parse_duration(s, true, &ret->u64);
}

static int parse_capabilities_value(const char *s, PolicyValue *ret)
{
	return parse_capabilities(s, &ret->u64);
}

/* CompatPolicy=: exactly one of fifo and rr */
static int parse_compat_policy(const char *s, PolicyValue *ret)
{
	unsigned u;

	if (parse_policies(s, &u) < 0 || (u != POLICY_SCHED_FIFO && u != POLICY_SCHED_RR))
		return -EINVAL;
	ret->u = u;
	return 0;
}

static int parse_boolean_value(const char *s, PolicyValue *ret)
{
	return parse_boolean(s, &ret->b);
}

/* The [Daemon] counts: 0 would refuse everything, more than a million is
 * no limit at all. */
static int parse_count(const char *s, PolicyValue *ret)
{
	unsigned u;

	if (parse_unsigned(s, &u) < 0 || u < 1 || u > 1000000)
		return -EINVAL;
	ret->u = u;
	return 0;
}

/* The [Daemon] durations: a bare number is seconds, as the names say. */
static int parse_daemon_duration(const char *s, PolicyValue *ret)
{
	uint64_t v;

	if (parse_duration(s, false, &v) < 0 || v < 1000 || v > 3600ULL * 1000000ULL)
		return -EINVAL;
	ret->u64 = v;
	return 0;
}

static int format_int(const PolicyValue *v, char *buf, size_t size)
{
	int l = snprintf(buf, size, "%d", v->i);

	return l < 0 || (size_t)l >= size ? -ENOBUFS : 0;
}

/* v as a number of the largest unit that divides it exactly: "64M", "200ms". */
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

static int format_size(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t factors[] = { 1, 1ULL << 10, 1ULL << 20, 1ULL << 30 };
	static const char *const suffixes[] = { "", "K", "M", "G" };

	return format_scaled(buf, size, v->u64, factors, suffixes, ELEMENTSOF(factors));
}

static int format_duration(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t factors[] = { 1, 1000, 1000000 };
	static const char *const suffixes[] = { "us", "ms", "s" };

	return format_scaled(buf, size, v->u64, factors, suffixes, ELEMENTSOF(factors));
}

/* The words of the bits set in mask, space-separated, in table order. */
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

static int format_policies(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t bits[] = { POLICY_SCHED_FIFO, POLICY_SCHED_RR };
	static const char *const words[] = { "fifo", "rr" };

	return format_words(buf, size, v->u, bits, words, ELEMENTSOF(bits));
}

static int format_capabilities(const PolicyValue *v, char *buf, size_t size)
{
	static const uint64_t bits[] = { 1ULL << CAP_SYS_NICE, 1ULL << CAP_IPC_LOCK };
	static const char *const words[] = { "sys_nice", "ipc_lock" };

	return format_words(buf, size, v->u64, bits, words, ELEMENTSOF(bits));
}

#define GRANT_FIELD(field, t) .type = t, .offset = offsetof(PolicyGrant, field)
#define DAEMON_FIELD(field, t) .type = t, .offset = offsetof(PolicyDaemon, field)

/* The keys of [Default], [Group] and [User], in realtime.conf(5)'s order. */
static const PolicyItem policy_keys[_POLICY_KEY_MAX] = {
	[POLICY_KEY_REALTIME_PRIORITY] = {
		.name = "RealtimePriority",
		GRANT_FIELD(realtime_priority, POLICY_VALUE_INT),
		.parse = parse_realtime_priority,
		.expect = "a priority from 0 (no realtime) to 99",
		.merge = POLICY_MERGE_HIGHEST,
		.format = format_int,
	},
	[POLICY_KEY_POLICIES] = {
		.name = "Policies",
		GRANT_FIELD(policies, POLICY_VALUE_UNSIGNED),
		.parse = parse_policies_value,
		.expect = "scheduling policies: fifo, rr, or both",
		.merge = POLICY_MERGE_UNION,
		.format = format_policies,
	},
	[POLICY_KEY_NICE] = {
		.name = "Nice",
		GRANT_FIELD(nice, POLICY_VALUE_INT),
		.parse = parse_nice_value,
		.expect = "a nice level from -20 to 19",
		.merge = POLICY_MERGE_LOWEST,
		.format = format_int,
	},
	[POLICY_KEY_MEMLOCK] = {
		.name = "MemLock",
		GRANT_FIELD(memlock, POLICY_VALUE_U64),
		.parse = parse_size_value,
		.expect = "a size such as 65536, 64K, 64M, 1G, or infinity",
		.merge = POLICY_MERGE_HIGHEST,
		.format = format_size,
	},
	[POLICY_KEY_RTTIME] = {
		.name = "RTTime",
		GRANT_FIELD(rttime_usec, POLICY_VALUE_U64),
		.parse = parse_rttime,
		.expect = "a duration such as 200000 (microseconds), 500us, 200ms, 2s, or infinity",
		.merge = POLICY_MERGE_HIGHEST,
		.format = format_duration,
	},
	[POLICY_KEY_CAPABILITIES] = {
		.name = "Capabilities",
		GRANT_FIELD(capabilities, POLICY_VALUE_U64),
		.parse = parse_capabilities_value,
		.expect = "capability names: sys_nice, ipc_lock (or nothing)",
		.merge = POLICY_MERGE_UNION,
		.format = format_capabilities,
	},
	[POLICY_KEY_COMPAT_POLICY] = {
		.name = "CompatPolicy",
		GRANT_FIELD(compat_policy, POLICY_VALUE_UNSIGNED),
		.parse = parse_compat_policy,
		.expect = "fifo or rr",
		.initial = { .u = POLICY_SCHED_RR },
		.merge = POLICY_MERGE_FIFO,
		.format = format_policies,
	},
};

/* The keys of [Daemon], with DESIGN.md's defaults. */
static const PolicyItem daemon_keys[] = {
	{
		.name = "RtkitCompat",
		DAEMON_FIELD(rtkit_compat, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "Polkit",
		DAEMON_FIELD(polkit, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "UsersMax",
		DAEMON_FIELD(users_max, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 2048 },
	},
	{
		.name = "ThreadsPerUserMax",
		DAEMON_FIELD(threads_per_user_max, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 64 },
	},
	{
		.name = "ProcessesPerUserMax",
		DAEMON_FIELD(processes_per_user_max, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 32 },
	},
	{
		.name = "BurstSec",
		DAEMON_FIELD(burst_usec, POLICY_VALUE_U64),
		.parse = parse_daemon_duration,
		.expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from 1ms "
			  "to 1h",
		.initial = { .u64 = 20ULL * 1000000ULL },
	},
	{
		.name = "ActionsPerBurst",
		DAEMON_FIELD(actions_per_burst, POLICY_VALUE_UNSIGNED),
		.parse = parse_count,
		.expect = "a whole number from 1 to 1000000",
		.initial = { .u = 100 },
	},
	{
		.name = "Canary",
		DAEMON_FIELD(canary, POLICY_VALUE_BOOL),
		.parse = parse_boolean_value,
		.expect = "yes or no",
		.initial = { .b = true },
	},
	{
		.name = "CanaryWatchdogSec",
		DAEMON_FIELD(canary_watchdog_usec, POLICY_VALUE_U64),
		.parse = parse_daemon_duration,
		.expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from 1ms "
			  "to 1h",
		.initial = { .u64 = 2ULL * 1000000ULL },
	},
	{
		.name = "CanaryRefuseSec",
		DAEMON_FIELD(canary_refuse_usec, POLICY_VALUE_U64),
		.parse = parse_daemon_duration,
		.expect = "a duration such as 2, 500ms or 1s (a bare number is seconds), from 1ms "
			  "to 1h",
		.initial = { .u64 = 60ULL * 1000000ULL },
	},
};

/* The entry named s in table, or NULL. */
static const PolicyItem *item_lookup(const PolicyItem *table, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		/* first characters first: most names differ there */
		if (s[0] == table[i].name[0] && streq(s, table[i].name))
			return &table[i];
	return NULL;
}

static void value_load(const PolicyItem *it, const void *base, PolicyValue *ret)
{
	const void *field = (const char *)base + it->offset;

	switch (it->type) {
	case POLICY_VALUE_INT:
		ret->i = *(const int *)field;
		break;
	case POLICY_VALUE_UNSIGNED:
		ret->u = *(const unsigned *)field;
		break;
	case POLICY_VALUE_U64:
		ret->u64 = *(const uint64_t *)field;
		break;
	case POLICY_VALUE_BOOL:
		ret->b = *(const bool *)field;
		break;
	}
}

static void value_store(const PolicyItem *it, void *base, const PolicyValue *v)
{
	void *field = (char *)base + it->offset;

	switch (it->type) {
	case POLICY_VALUE_INT:
		*(int *)field = v->i;
		break;
	case POLICY_VALUE_UNSIGNED:
		*(unsigned *)field = v->u;
		break;
	case POLICY_VALUE_U64:
		*(uint64_t *)field = v->u64;
		break;
	case POLICY_VALUE_BOOL:
		*(bool *)field = v->b;
		break;
	}
}

/* Every key of table at its initial value. */
static void values_init(const PolicyItem *table, size_t n, void *base)
{
	for (size_t i = 0; i < n; i++)
		value_store(&table[i], base, &table[i].initial);
}

/* -1, 0 or 1 as a is below, equal to or above b. */
static int value_compare(PolicyValueType type, const PolicyValue *a, const PolicyValue *b)
{
	switch (type) {
	case POLICY_VALUE_INT:
		return (a->i > b->i) - (a->i < b->i);
	case POLICY_VALUE_UNSIGNED:
		return (a->u > b->u) - (a->u < b->u);
	case POLICY_VALUE_U64:
		return (a->u64 > b->u64) - (a->u64 < b->u64);
	case POLICY_VALUE_BOOL:
		return (int)a->b - (int)b->b;
	}
	return 0;
}

static uint64_t value_bits(PolicyValueType type, const PolicyValue *v)
{
	return type == POLICY_VALUE_U64 ? v->u64 : v->u;
}

/* Adds the bits of b to a. */
static void value_union(PolicyValueType type, PolicyValue *a, const PolicyValue *b)
{
	if (type == POLICY_VALUE_U64)
		a->u64 |= b->u64;
	else
		a->u |= b->u;
}

/* Is a more generous than b under the key's merge rule? */
static bool value_more_generous(const PolicyItem *it, const PolicyValue *a, const PolicyValue *b)
{
	switch (it->merge) {
	case POLICY_MERGE_HIGHEST:
		return value_compare(it->type, a, b) > 0;
	case POLICY_MERGE_LOWEST:
		return value_compare(it->type, a, b) < 0;
	case POLICY_MERGE_UNION:
		return (value_bits(it->type, a) | value_bits(it->type, b)) !=
		       value_bits(it->type, b);
	case POLICY_MERGE_FIFO:
		return a->u == POLICY_SCHED_FIFO && b->u != POLICY_SCHED_FIFO;
	}
	return false;
}

/* Sets key k of g to v, from src. */
static void grant_set(PolicyGrant *g, PolicyKey k, const PolicyValue *v, PolicySource src)
{
	value_store(&policy_keys[k], g, v);
	g->set[k] = true;
	g->source[k] = src;
}

const char *policy_key_to_string(PolicyKey k)
{
	if (k < 0 || k >= _POLICY_KEY_MAX)
		return NULL;
	return policy_keys[k].name;
}

PolicyKey policy_key_from_string(const char *s)
{
	const PolicyItem *it = item_lookup(policy_keys, _POLICY_KEY_MAX, s);

	return it ? (PolicyKey)(it - policy_keys) : _POLICY_KEY_INVALID;
}

/* "RealtimePriority, Policies, ... or CompatPolicy", for an error. */
static void key_names_format(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < _POLICY_KEY_MAX; k++) {
		const char *sep = k == 0 ? "" : k + 1 < _POLICY_KEY_MAX ? ", " : " or ";
		int l = snprintf(buf + used, size - used, "%s%s", sep, policy_keys[k].name);

		if (l < 0 || (size_t)l >= size - used)
			return;
		used += l;
	}
}

/* A [Default], [Group X] or [User X] section, merged over all files. */
typedef struct Section {
	SectionKind kind;
	const char *name;    /* group or user name; NULL for numeric or Default */
	bool numeric;	     /* [Group #GID] / [User #UID] */
	uint32_t id;	     /* the GID or UID when numeric */
	const char *display; /* "Group audio", as written */
	uint64_t hash;	     /* section_hash() of kind, id or name */
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
	PolicyError *warnings; /* files read only because the caller owns them */
	size_t n_warnings;
	uid_t euid;	    /* the caller's effective uid, trusted besides root */
	Section **sections; /* sections[0] is [Default] */
	size_t n_sections, n_sections_allocated;
	Section **index; /* open addressing over sections[1..]; n_index is 0 or a power of 2 */
	size_t n_index;
	IrqRule *irq;
	size_t n_irq;
	PolicyDaemon daemon;
	/* Sections and their names live in blocks freed with the policy: one
	 * allocation per POLICY_POOL_BLOCK bytes instead of one per section. */
	char **blocks;
	size_t n_blocks;
	size_t pool_used, pool_size; /* of blocks[n_blocks - 1] */
	const PolicyUser *only;	     /* while loading for one user */
};

struct PolicyUser {
	char *name;
	uid_t uid;
	gid_t *gids;
	char **group_names; /* group_names[i] is NULL for a gid without a name */
	size_t n_gids;
};

/* One parsed "Key=value" line of a file that is still being checked. */
typedef struct Assignment {
	SectionKind kind;
	char *section;		/* "Group audio" etc. as normalized */
	char *target;		/* group/user name or "#N"; IRQ pattern for [IRQ] */
	const PolicyItem *item; /* the key; NULL in [IRQ] */
	unsigned line;
	PolicyValue v;
} Assignment;

/* The state of one file being parsed. Names are cut out of the file's
 * buffer in place (NUL-terminated there), so the assignments point into it
 * until they are applied. */
typedef struct FileParse {
	unsigned line;
	SectionKind kind;	/* of the section header last read */
	char *section;		/* its name; NULL before the first header */
	char *target;		/* the user or group name in it, or NULL */
	size_t n_headers;	/* section headers read (and kept) */
	const PolicyUser *only; /* keep only the sections that match this user */
	bool keep;		/* the keys of the current section */
	Assignment *assignments;
	size_t n_assignments, n_allocated;
	unsigned error_line;
	char *error; /* the first problem; parsing stops there */
	bool oom;
} FileParse;

static void file_parse_done(FileParse *fp)
{
	free(fp->assignments);
	free(fp->error);
}

/* Records the problem with the current line; returns false, for
 * "return file_parse_fail(...)" in the parsers below. */
_printf_(2, 3) static bool file_parse_fail(FileParse *fp, const char *fmt, ...)
{
	va_list ap;

	if (fp->error || fp->oom)
		return false; /* the first problem is the one reported */
	va_start(ap, fmt);
	if (vasprintf(&fp->error, fmt, ap) < 0) {
		fp->error = NULL;
		fp->oom = true;
	}
	va_end(ap);
	fp->error_line = fp->line;
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

/* Does a [User] or [Group] section (by id or by name) match the user? One
 * predicate for loading for a user and for evaluating. */
static bool user_matches(SectionKind kind, bool numeric, uint32_t id, const char *name,
			 const char *user, uid_t uid, const gid_t *gids, char *const *names,
			 size_t n_gids)
{
	switch (kind) {
	case SECTION_USER:
		return numeric ? id == uid : streq_ptr(name, user);
	case SECTION_GROUP:
		for (size_t i = 0; i < n_gids; i++)
			if (numeric ? gids[i] == id : streq_ptr(names[i], name))
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

/* Is the target of a [User] or [Group] header "#N", a uid or gid? Sets
 * *ret_id to N (0 otherwise); section_parse() has validated the number. */
static bool target_id(const char *target, uint32_t *ret_id)
{
	unsigned id = 0;
	bool numeric = target && target[0] == '#';

	if (numeric)
		(void)parse_unsigned(target + 1, &id);
	*ret_id = id;
	return numeric;
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
	numeric = target_id(target, &id);
	return user_matches(kind, numeric, id, numeric ? NULL : target, u->name, u->uid, u->gids,
			    u->group_names, u->n_gids);
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

/* "Key=value", the stripped line s..e. */
static bool file_parse_key(FileParse *fp, char *s, char *e)
{
	Assignment a = { .line = fp->line, .kind = fp->kind };
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
	/* "Key:value": the inih-based parser read it as a key; say what is wrong */
	if (eq == e && colon && fp->kind != SECTION_IRQ && !comment)
		return file_parse_fail(fp, "expected 'Key=value', found ':' instead of '='");
	if (eq == e || comment)
		return file_parse_fail(
			fp, "syntax error: expected 'Key=value', '[Section]' or a '#' comment");
	if (!fp->section) {
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

	switch (a.kind) {
	case SECTION_DAEMON:
		a.item = item_lookup(daemon_keys, ELEMENTSOF(daemon_keys), s);
		if (!a.item)
			return file_parse_fail(fp, "unknown key '%s' in section [Daemon]", s);
		break;
	case SECTION_DEFAULT:
	case SECTION_GROUP:
	case SECTION_USER:
		a.item = item_lookup(policy_keys, _POLICY_KEY_MAX, s);
		if (!a.item) {
			char names[256];

			key_names_format(names, sizeof(names));
			return file_parse_fail(fp, "unknown key '%s' in section [%s]; expected %s",
					       s, fp->section, names);
		}
		break;
	case SECTION_IRQ:
		if (*s == '\0')
			return file_parse_fail(fp, "missing IRQ name pattern before '='");
		break;
	case _SECTION_KIND_MAX:
	case _SECTION_KIND_INVALID:
	default:
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
	if (*s == '[')
		return file_parse_header(fp, s, e);
	return file_parse_key(fp, s, e);
}

/* Parses the file in data[0..size) (data[size] is writable), stopping at
 * the first problem. */
static void file_parse(FileParse *fp, char *data, size_t size)
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
		if (!file_parse_line(fp, s, len))
			return;
	}
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

/* Adds "path:line: message" to *list (the errors or the warnings). */
static int policy_add_note(Policy *p, PolicyError **list, size_t *n_list, const char *path,
			   unsigned line, const char *fmt, va_list ap)
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

_printf_(4, 5) static int policy_add_error(Policy *p, const char *path, unsigned line,
					   const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = policy_add_note(p, &p->errors, &p->n_errors, path, line, fmt, ap);
	va_end(ap);
	return r;
}

_printf_(3, 4) static int policy_add_warning(Policy *p, const char *path, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = policy_add_note(p, &p->warnings, &p->n_warnings, path, 0, fmt, ap);
	va_end(ap);
	return r;
}

static uint64_t section_hash(SectionKind kind, bool numeric, uint32_t id, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)kind ^ ((uint64_t)numeric << 8);

	if (numeric)
		return (h ^ id) * 0x100000001b3ULL;
	for (; name && *name; name++) /* NULL: [Default] */
		h = (h ^ (unsigned char)*name) * 0x100000001b3ULL;
	return h;
}

/* Zeroed memory that lives as long as the policy. */
static void *policy_pool_alloc(Policy *p, size_t size)
{
	const size_t align = _Alignof(max_align_t);
	char **blocks, *b;

	size = (size + align - 1) & ~(align - 1);
	if (p->n_blocks == 0 || size > p->pool_size - p->pool_used) {
		size_t block = size > POLICY_POOL_BLOCK ? size : POLICY_POOL_BLOCK;

		blocks = reallocarray(p->blocks, p->n_blocks + 1, sizeof(char *));
		if (!blocks)
			return NULL;
		p->blocks = blocks;
		b = calloc(1, block);
		if (!b)
			return NULL;
		blocks[p->n_blocks++] = b;
		p->pool_used = 0;
		p->pool_size = block;
	}
	b = p->blocks[p->n_blocks - 1] + p->pool_used;
	p->pool_used += size;
	return b;
}

/* A new section, from the pool; its names live behind the struct. */
static Section *section_new(Policy *p, SectionKind kind, const char *section, const char *target)
{
	uint32_t id;
	bool numeric = target_id(target, &id);
	size_t ld = strlen(section) + 1, ln = target && !numeric ? strlen(target) + 1 : 0;
	Section *s;
	char *names;

	s = policy_pool_alloc(p, sizeof(Section) + ld + ln);
	if (!s)
		return NULL;
	names = (char *)(s + 1);
	s->kind = kind;
	values_init(policy_keys, _POLICY_KEY_MAX, &s->values);
	s->display = memcpy(names, section, ld);
	s->numeric = numeric;
	s->id = id;
	if (target && !numeric)
		s->name = memcpy(names + ld, target, ln);
	s->hash = section_hash(kind, s->numeric, s->id, s->name);
	return s;
}

static bool section_is(const Section *s, uint64_t hash, SectionKind kind, bool numeric, uint32_t id,
		       const char *name)
{
	return s->hash == hash && s->kind == kind && s->numeric == numeric &&
	       (numeric ? s->id == id : streq(s->name, name));
}

static void index_put(Section **index, size_t n_index, Section *s)
{
	size_t i = s->hash & (n_index - 1);

	while (index[i])
		i = (i + 1) & (n_index - 1);
	index[i] = s;
}

/* Makes room for n sections, the index at most half full. */
static int policy_reserve_sections(Policy *p, size_t n)
{
	if (n > p->n_sections_allocated) {
		size_t want = n > 2 * p->n_sections_allocated ? n : 2 * p->n_sections_allocated;
		Section **sections = reallocarray(p->sections, want, sizeof(Section *));

		if (!sections)
			return -ENOMEM;
		p->sections = sections;
		p->n_sections_allocated = want;
	}
	if (2 * n > p->n_index) {
		size_t size = p->n_index ? p->n_index : 64;
		Section **index;

		while (2 * n > size)
			size *= 2;
		index = calloc(size, sizeof(Section *));
		if (!index)
			return -ENOMEM;
		for (size_t i = 1; i < p->n_sections; i++)
			index_put(index, size, p->sections[i]);
		free(p->index);
		p->index = index;
		p->n_index = size;
	}
	return 0;
}

static int policy_get_section(Policy *p, const Assignment *a, Section **ret)
{
	Section *s;
	bool numeric;
	uint32_t id;
	uint64_t hash;
	int r;

	if (a->kind == SECTION_DEFAULT) {
		*ret = p->sections[0];
		return 0;
	}
	numeric = target_id(a->target, &id);
	hash = section_hash(a->kind, numeric, id, a->target);
	if (p->n_index > 0)
		for (size_t i = hash & (p->n_index - 1); p->index[i];
		     i = (i + 1) & (p->n_index - 1))
			if (section_is(p->index[i], hash, a->kind, numeric, id, a->target)) {
				*ret = p->index[i];
				return 0;
			}
	r = policy_reserve_sections(p, p->n_sections + 1);
	if (r < 0)
		return r;
	s = section_new(p, a->kind, a->section, a->target);
	if (!s)
		return -ENOMEM;
	p->sections[p->n_sections++] = s;
	index_put(p->index, p->n_index, s);
	*ret = s;
	return 0;
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
	const char *last_header = NULL;
	Section *s = NULL;
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
			value_store(a->item, &p->daemon, &a->v);
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
				if (r < 0)
					return r;
				last_header = a->section;
			}
			src.section = s->display;
			grant_set(&s->values, (PolicyKey)(a->item - policy_keys), &a->v, src);
			break;
		case _SECTION_KIND_MAX:
		case _SECTION_KIND_INVALID:
			break;
		}
	}
	return 0;
}

/* Who may have written what st describes: see "Trust" in policy.h. */
typedef enum Trust {
	TRUST_ROOT,   /* root's, and only root can write it (or the null device) */
	TRUST_CALLER, /* the calling process's own, not root's: read, with a warning */
	TRUST_NONE,   /* another user's, or the group or others can write it */
} Trust;

static Trust stat_trust(const struct stat *st, uid_t euid)
{
	/* 1:3 is the null device on every Linux system: always empty */
	if (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3))
		return TRUST_ROOT;
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return TRUST_NONE;
	if (st->st_uid == 0)
		return TRUST_ROOT;
	return st->st_uid == euid ? TRUST_CALLER : TRUST_NONE;
}

/* Records why path, which st describes, is not root's alone, and the
 * commands that make it so: an error when t is TRUST_NONE, a warning when
 * it is TRUST_CALLER. unread: for a drop-in directory, what is not read
 * because of it; NULL for a file. */
static int policy_add_untrusted(Policy *p, const char *path, const struct stat *st, Trust t,
				const char *unread)
{
	static const char *const writers[] = { "", "group", "others", "group and others" };
	unsigned w = (st->st_mode & S_IWGRP ? 1 : 0) | (st->st_mode & S_IWOTH ? 2 : 0);
	bool owner = st->st_uid != 0;
	const char *what = unread ? "drop-in directory " : "";
	const char *things = unread ? "drop-in directories" : "policy files";
	char problem[128];

	if (t == TRUST_CALLER)
		return policy_add_warning(
			p, path,
			"%sowned by uid %u, not root: read because it is yours, but realtimed and "
			"pam_realtime (running as root) trust only %s that root owns and only root "
			"can write: chown root:root %s",
			what, (unsigned)st->st_uid, things, path);

	if (owner && w)
		snprintf(problem, sizeof(problem),
			 "owned by uid %u, not root, and writable by %s (mode %04o)",
			 (unsigned)st->st_uid, writers[w], (unsigned)(st->st_mode & 07777));
	else if (owner)
		snprintf(problem, sizeof(problem), "owned by uid %u, not root",
			 (unsigned)st->st_uid);
	else
		snprintf(problem, sizeof(problem), "writable by %s (mode %04o)", writers[w],
			 (unsigned)(st->st_mode & 07777));
	return policy_add_error(
		p, path, 0,
		"%s%s%s%s; %s are trusted only when root owns them and only root can write "
		"them: %s%s%s%s%s",
		what, problem, unread ? ", so " : "", unread ?: "", things,
		owner ? "chown root:root " : "", owner ? path : "", owner && w ? " && " : "",
		w ? "chmod go-w " : "", w ? path : "");
}

/* Opens a policy file: the fd, and its fstat() in ret_st. -EISDIR for a
 * directory, -EBADFD for what is neither a regular file nor a character
 * device. */
static int file_open(const char *path, struct stat *ret_st)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	/* O_NONBLOCK: a FIFO named like a drop-in must not hang a login.
	 * No O_NOFOLLOW: a symlink to a root-owned file, or to /dev/null, is
	 * fine; fstat() of this fd is what the trust check looks at. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
		return -EBADFD;
	*ret_st = st;
	return TAKE_FD(fd);
}

static int fd_read_all(int fd, const struct stat *st, char **ret, size_t *ret_size)
{
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, allocated;

	/* Sized by fstat() for a regular file (one byte more, to see the end
	 * or a file that grew); grown as needed for anything else. */
	if (S_ISREG(st->st_mode) && st->st_size > POLICY_FILE_SIZE_MAX)
		return -EFBIG;
	allocated = S_ISREG(st->st_mode) ? (size_t)st->st_size + 1 : 4096;
	buf = malloc(allocated);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (size == allocated) {
			char *b;

			if (allocated > POLICY_FILE_SIZE_MAX)
				return -EFBIG;
			allocated = 2 * allocated > POLICY_FILE_SIZE_MAX ? POLICY_FILE_SIZE_MAX + 1
									 : 2 * allocated;
			b = realloc(buf, allocated);
			if (!b)
				return -ENOMEM;
			buf = b;
		}
		n = read(fd, buf + size, allocated - size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		size += n;
	}
	if (size > POLICY_FILE_SIZE_MAX)
		return -EFBIG;
	/* the loop above grows the buffer before it is full, so there is room
	 * for the NUL the parser writes after a last line without newline */
	buf[size] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_size = size;
	return 0;
}

/* Marks the last path added as accepted. */
static int policy_accept_last(Policy *p)
{
	size_t *n;

	n = reallocarray(p->accepted, p->n_accepted + 1, sizeof(size_t));
	if (!n)
		return -ENOMEM;
	p->accepted = n;
	n[p->n_accepted++] = p->n_paths - 1;
	return 0;
}

/* Loads one file. missing_ok: ENOENT is silently skipped. */
static int policy_load_one(Policy *p, const char *path, bool missing_ok)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *data = NULL;
	FileParse fp = { .kind = _SECTION_KIND_INVALID, .only = p->only };
	const char *file;
	struct stat st;
	Trust trust = TRUST_NONE;
	size_t size = 0;
	int r;

	r = file_open(path, &st);
	if (r >= 0) {
		fd = r;
		/* checked before a byte is read: what is not trusted is not parsed */
		trust = stat_trust(&st, p->euid);
		if (trust == TRUST_NONE)
			return policy_add_untrusted(p, path, &st, trust, NULL);
		r = fd_read_all(fd, &st, &data, &size);
	}
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

	file_parse(&fp, data, size);
	if (fp.oom) {
		file_parse_done(&fp);
		return -ENOMEM;
	}
	if (fp.error)
		r = policy_add_error(p, path, fp.error_line, "%s", fp.error);
	else {
		r = policy_add_path(p, path, &file);
		if (r >= 0)
			r = policy_apply(p, file, &fp);
		if (r >= 0)
			r = policy_accept_last(p);
		/* only for a file that is in force: a rejected one has its error */
		if (r >= 0 && trust == TRUST_CALLER)
			r = policy_add_untrusted(p, path, &st, trust, NULL);
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
	p->euid = geteuid();
	values_init(daemon_keys, ELEMENTSOF(daemon_keys), &p->daemon);
	r = policy_reserve_sections(p, 1);
	if (r >= 0) {
		p->sections[0] = section_new(p, SECTION_DEFAULT, "Default", NULL);
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
	free(p);
	return NULL;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the *.conf names of dir to names (deduplicated later). A missing or
 * unreadable directory holds no policy. One that breaks the trust rule is
 * recorded as an error (unread: what is not read because of it) and
 * returns 1, adding nothing. */
static int dropins_collect(Policy *p, const char *dir, const char *unread, char ***names, size_t *n)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	Trust trust;
	int r = 0;

	if (isempty(dir))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;
	/* the directory that was opened, not the path, whatever it is by now */
	if (fstat(dirfd(d), &st) < 0) {
		closedir(d);
		return 0;
	}
	trust = stat_trust(&st, p->euid);
	if (trust != TRUST_ROOT) {
		r = policy_add_untrusted(p, dir, &st, trust, unread);
		if (r >= 0 && trust == TRUST_NONE)
			r = 1;
	}
	while (r == 0 && (de = readdir(d))) {
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

	/* The admin directory first: if it cannot be trusted, neither can the
	 * masks in it (anyone could have removed one), so no drop-in is read. */
	r = dropins_collect(p, admin_dir,
			    "none of its files are read, nor the vendor drop-ins it may mask",
			    &names, &n);
	if (r == 0)
		r = dropins_collect(p, vendor_dir, "none of its files are read", &names, &n);
	if (r > 0)
		r = 0; /* a rejected directory added no names; the other's are read */
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

static const PolicyPaths default_paths = {};

/* Loads the files of paths, or with paths NULL exactly files, for everyone
 * or only for u. */
static int policy_load_internal(const PolicyPaths *paths, const char *const *files, size_t n_files,
				const PolicyUser *u, Policy **ret)
{
	Policy *p;
	int r;

	r = policy_new(&p);
	if (r < 0)
		return r;
	p->only = u;
	if (!paths) {
		for (size_t i = 0; r >= 0 && i < n_files; i++)
			r = policy_load_one(p, files[i], false);
	} else {
		const char *vendor_file, *admin_file;

		vendor_file = path_or(paths->vendor_file, POLICY_VENDOR_FILE);
		admin_file = path_or(paths->admin_file, POLICY_ADMIN_FILE);
		if (!isempty(vendor_file))
			r = policy_load_one(p, vendor_file, true);
		if (r >= 0 && !isempty(admin_file))
			r = policy_load_one(p, admin_file, true);
		if (r >= 0)
			r = policy_load_dropins(
				p, path_or(paths->vendor_dropin_dir, POLICY_VENDOR_DROPIN_DIR),
				path_or(paths->admin_dropin_dir, POLICY_ADMIN_DROPIN_DIR));
	}
	p->only = NULL; /* u need not outlive the policy */
	if (r < 0) {
		policy_free(p);
		return r;
	}
	*ret = p;
	return 0;
}

int policy_load(const PolicyPaths *paths, Policy **ret)
{
	return policy_load_internal(paths ? paths : &default_paths, NULL, 0, NULL, ret);
}

int policy_load_files(const char *const *files, size_t n_files, Policy **ret)
{
	return policy_load_internal(NULL, files, n_files, NULL, ret);
}

int policy_load_for_user(const PolicyPaths *paths, const PolicyUser *u, Policy **ret)
{
	return policy_load_internal(paths ? paths : &default_paths, NULL, 0, u, ret);
}

int policy_load_files_for_user(const char *const *files, size_t n_files, const PolicyUser *u,
			       Policy **ret)
{
	return policy_load_internal(NULL, files, n_files, u, ret);
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

/* Merges section values s into acc, keeping the most generous value of each
 * key. Policies and Capabilities are sets: their union is the most generous,
 * and the source named is the section that added the most. */
static void grant_merge_generous(PolicyGrant *acc, const PolicyGrant *s)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		const PolicyItem *it = &policy_keys[k];
		PolicyValue mine, theirs;

		if (!s->set[k])
			continue;
		value_load(it, s, &theirs);
		if (acc->set[k]) {
			value_load(it, acc, &mine);
			if (!value_more_generous(it, &theirs, &mine))
				continue;
			if (it->merge == POLICY_MERGE_UNION)
				value_union(it->type, &theirs, &mine);
		}
		grant_set(acc, k, &theirs, s->source[k]);
	}
}

/* Overlays every key set in over onto base. */
static void grant_overlay(PolicyGrant *base, const PolicyGrant *over)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		PolicyValue v;

		if (!over->set[k])
			continue;
		value_load(&policy_keys[k], over, &v);
		grant_set(base, k, &v, over->source[k]);
	}
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

static void eval_names(const Policy *p, const char *user, uid_t uid, const gid_t *gids,
		       char *const *names, size_t n_gids, PolicyGrant *ret)
{
	PolicyGrant result = p->sections[0]->values, groups = {}, users = {};

	result.covered = false;
	values_init(policy_keys, _POLICY_KEY_MAX, &groups);
	values_init(policy_keys, _POLICY_KEY_MAX, &users);
	for (size_t i = 1; i < p->n_sections; i++) {
		const Section *s = p->sections[i];

		if (!user_matches(s->kind, s->numeric, s->id, s->name, user, uid, gids, names,
				  n_gids))
			continue;
		if (s->kind == SECTION_GROUP) {
			grant_merge_generous(&groups, &s->values);
			groups.covered = true;
		} else {
			grant_merge_generous(&users, &s->values);
			users.covered = true;
		}
	}
	grant_overlay(&result, &groups);
	grant_overlay(&result, &users);
	/* CompatPolicy=fifo only holds where Policies= allows fifo. */
	if (result.compat_policy == POLICY_SCHED_FIFO && !(result.policies & POLICY_SCHED_FIFO))
		result.compat_policy = POLICY_SCHED_RR;
	*ret = result;
}

static void group_names_free(char **names, size_t n_gids)
{
	for (size_t i = 0; names && i < n_gids; i++)
		free(names[i]);
	free(names);
}

int policy_eval(const Policy *p, const char *user, uid_t uid, const gid_t *gids, size_t n_gids,
		PolicyGrant *ret)
{
	char **names = group_names(gids, n_gids);

	if (!names)
		return -ENOMEM;
	eval_names(p, user, uid, gids, names, n_gids, ret);
	group_names_free(names, n_gids);
	return 0;
}

int policy_eval_for_user(const Policy *p, const PolicyUser *u, PolicyGrant *ret)
{
	eval_names(p, u->name, u->uid, u->gids, u->group_names, u->n_gids, ret);
	return 0;
}

PolicyUser *policy_user_free(PolicyUser *u)
{
	if (!u)
		return NULL;
	group_names_free(u->group_names, u->n_gids);
	free(u->gids);
	free(u->name);
	free(u);
	return NULL;
}

/* getpwnam_r() for name, or getpwuid_r() for uid when name is NULL, with a
 * buffer that grows; *ret_buf holds the strings of pw. -ESRCH: no such
 * user. */
static int passwd_get(const char *name, uid_t uid, struct passwd *pw, char **ret_buf)
{
	struct passwd *result = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t size = 4096;
	int r;

	for (;;) {
		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		r = name ? getpwnam_r(name, pw, buf, size, &result)
			 : getpwuid_r(uid, pw, buf, size, &result);
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
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

/* The user of a passwd entry, with their groups (getgrouplist) and the
 * groups' names. */
static int user_from_passwd(const struct passwd *pw, PolicyUser **ret)
{
	PolicyUser *u;
	int n = 64;

	u = calloc(1, sizeof(PolicyUser));
	if (!u)
		return -ENOMEM;
	u->uid = pw->pw_uid;
	u->name = strdup(pw->pw_name);
	if (!u->name) {
		policy_user_free(u);
		return -ENOMEM;
	}
	for (;;) {
		int want = n;
		gid_t *g = reallocarray(u->gids, n, sizeof(gid_t));

		if (!g) {
			policy_user_free(u);
			return -ENOMEM;
		}
		u->gids = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, u->gids, &want) >= 0) {
			n = want;
			break;
		}
		if (want <= n || want > 65536) {
			policy_user_free(u);
			return -E2BIG;
		}
		n = want;
	}
	u->n_gids = (size_t)n;
	u->group_names = group_names(u->gids, u->n_gids);
	if (!u->group_names) {
		u->n_gids = 0; /* nothing to free in it */
		policy_user_free(u);
		return -ENOMEM;
	}
	*ret = u;
	return 0;
}

int policy_user_resolve(const char *name, PolicyUser **ret)
{
	_cleanup_free_ char *buf = NULL;
	struct passwd pw;
	int r;

	r = passwd_get(name, 0, &pw, &buf);
	if (r < 0)
		return r;
	return user_from_passwd(&pw, ret);
}

int policy_eval_user(const Policy *p, const char *user, PolicyGrant *ret)
{
	PolicyUser *u;
	int r;

	r = policy_user_resolve(user, &u);
	if (r < 0)
		return r;
	r = policy_eval_for_user(p, u, ret);
	policy_user_free(u);
	return r;
}

int policy_eval_uid(const Policy *p, uid_t uid, PolicyGrant *ret)
{
	_cleanup_free_ char *buf = NULL;
	struct passwd pw;
	PolicyUser *u;
	int r;

	/* the entry getpwuid_r() gives, not a second lookup by its name */
	r = passwd_get(NULL, uid, &pw, &buf);
	if (r < 0)
		return r;
	r = user_from_passwd(&pw, &u);
	if (r < 0)
		return r;
	r = policy_eval_for_user(p, u, ret);
	policy_user_free(u);
	return r;
}

int policy_grant_format(const PolicyGrant *g, PolicyKey k, char *buf, size_t size)
{
	PolicyValue v;

	if (k < 0 || k >= _POLICY_KEY_MAX)
		return -EINVAL;
	value_load(&policy_keys[k], g, &v);
	return policy_keys[k].format(&v, buf, size);
}

/* RLIMIT_RTPRIO opens SCHED_FIFO (and SCHED_RR) up to its value: the same
 * decision as a grant of fifo at RealtimePriority=, or none. */
static uint64_t rlimit_rtprio(const PolicyGrant *g)
{
	return policy_grant_allows(g, POLICY_GRANT_FIFO, g->realtime_priority, NULL) >= 0
		       ? (uint64_t)g->realtime_priority
		       : 0;
}

/* The kernel's encoding of a nice level: RLIMIT_NICE = 20 - nice. */
static uint64_t rlimit_nice(const PolicyGrant *g)
{
	return (uint64_t)(20 - g->nice);
}

static uint64_t rlimit_from_value(uint64_t v)
{
	return v == POLICY_INFINITY ? (uint64_t)RLIM_INFINITY : v;
}

static uint64_t rlimit_memlock(const PolicyGrant *g)
{
	return rlimit_from_value(g->memlock);
}

static uint64_t rlimit_rttime(const PolicyGrant *g)
{
	return rlimit_from_value(g->rttime_usec);
}

/* The rlimits policy sets, the one mapping between rlimits, keys and names
 * for every part. RLIMIT_RTTIME comes first: it bounds realtime, so a
 * process that is given its limits in this order never holds a raised
 * RLIMIT_RTPRIO without its ceiling. */
static const struct {
	PolicyRlimit rlimit;
	uint64_t (*value)(const PolicyGrant *g);
} rlimits[POLICY_RLIMIT_MAX] = {
	{ { RLIMIT_RTTIME, "RLIMIT_RTTIME", "Max realtime timeout", POLICY_KEY_RTTIME, true },
	  rlimit_rttime },
	{ { RLIMIT_RTPRIO, "RLIMIT_RTPRIO", "Max realtime priority", POLICY_KEY_REALTIME_PRIORITY,
	    false },
	  rlimit_rtprio },
	{ { RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", "Max locked memory", POLICY_KEY_MEMLOCK, false },
	  rlimit_memlock },
	{ { RLIMIT_NICE, "RLIMIT_NICE", "Max nice priority", POLICY_KEY_NICE, false },
	  rlimit_nice },
};

const PolicyRlimit *policy_rlimit(size_t i)
{
	return i < ELEMENTSOF(rlimits) ? &rlimits[i].rlimit : NULL;
}

const PolicyRlimit *policy_rlimit_from_resource(int resource)
{
	for (size_t i = 0; i < ELEMENTSOF(rlimits); i++)
		if (rlimits[i].rlimit.resource == resource)
			return &rlimits[i].rlimit;
	return NULL;
}

int policy_grant_rlimit(const PolicyGrant *g, int resource, uint64_t *ret)
{
	for (size_t i = 0; i < ELEMENTSOF(rlimits); i++) {
		if (rlimits[i].rlimit.resource != resource)
			continue;
		if (!g->set[rlimits[i].rlimit.key])
			return -ENODATA;
		*ret = rlimits[i].value(g);
		return 0;
	}
	return -EINVAL;
}
