/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of the policy library share and nobody else sees: the
 * Policy object, the key tables' types, the parser's state, and the
 * functions one file gives another. policy.h is the contract; this header
 * is not installed and no other part includes it (the library's own tests
 * and the fuzz target do, to walk the key tables).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"
#include "parse.h"
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
	const char *s; /* into the file's text, until it is applied */
} PolicyValue;

typedef enum PolicyValueType {
	POLICY_VALUE_INT,
	POLICY_VALUE_UNSIGNED,
	POLICY_VALUE_U64,
	POLICY_VALUE_BOOL,
	POLICY_VALUE_TEXT, /* a char[POLICY_TEXT_MAX]; [Daemon] keys only */
} PolicyValueType;

_Static_assert(POLICY_LINE_MAX < POLICY_TEXT_MAX, "a [Daemon] text value fits its field");

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

/* A [Default], [Group X] or [User X] section, merged over all files. */
typedef struct Section {
	SectionKind kind;
	const char *name;    /* group or user name; NULL for numeric or Default */
	bool numeric;	     /* [Group #GID] / [User #UID] */
	uint32_t id;	     /* the GID or UID when numeric */
	const char *display; /* "Group audio", as written */
	uint64_t hash;	     /* section_hash() of kind, id or name */
	bool name_checked;   /* check only: its name was looked up in NSS */
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
	size_t pool_used, pool_size;  /* of blocks[n_blocks - 1] */
	const PolicyUser *only;	      /* while loading for one user */
	bool check;		      /* policy_load_check(): all errors, and warnings */
	bool rejected;		      /* policy_warn_rejected()'s scratch: a file not in force */
	PolicySource *daemon_sources; /* where each [Daemon] key was set; NULL: none was */
};

/* One parsed "Key=value" line of a file that is still being checked. */
typedef struct Assignment {
	SectionKind kind;
	char *section;		/* "Group audio" etc. as normalized */
	char *target;		/* group/user name or "#N"; IRQ pattern for [IRQ] */
	const PolicyItem *item; /* the key; NULL in [IRQ] */
	unsigned line;
	unsigned header_line; /* of the section header above it */
	PolicyValue v;
} Assignment;

/* One problem of a file, at its line. */
typedef struct FileParseError {
	unsigned line;
	char *message;
} FileParseError;

/* In a check (realtimectl policy check), at most this many errors of one
 * file are kept: a binary file must not fill the memory with them. */
#define POLICY_FILE_ERRORS_MAX 64

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
	unsigned header_line; /* of the section header last read */
	bool bad_header;      /* that header was an error: its keys are checked loosely */
	/* The problems found: the first only, where parsing stops, or with
	 * all_errors every one (up to POLICY_FILE_ERRORS_MAX), for a person
	 * who fixes a file in one go. The file is rejected whole either way. */
	bool all_errors;
	FileParseError *errors;
	size_t n_errors;
	bool errors_truncated;
	bool oom;
} FileParse;

/* policy-keys.c: the tables of keys and what walks them */
extern const PolicyItem policy_keys[_POLICY_KEY_MAX];
extern const PolicyItem policy_daemon_keys[];
extern const size_t policy_n_daemon_keys;
void policy_value_load(const PolicyItem *it, const void *base, PolicyValue *ret);
void policy_value_store(const PolicyItem *it, void *base, const PolicyValue *v);
/* Every key of table at its initial value. */
void policy_values_init(const PolicyItem *table, size_t n, void *base);
/* Sets key k of g to v, from src. */
void policy_grant_set(PolicyGrant *g, PolicyKey k, const PolicyValue *v, PolicySource src);
/* "RealtimePriority, Policies, ... or CompatPolicy", for an error. */
void policy_key_names_format(char *buf, size_t size);

/* policy-parse.c: one file's text into assignments */
/* Parses the file in data[0..size) (data[size] is writable), stopping at
 * the first problem (fp->errors), unless fp->all_errors, or fp->oom. */
void policy_file_parse(FileParse *fp, char *data, size_t size);
void policy_file_parse_done(FileParse *fp);

/* policy-index.c: sections, their pool and their hash index */
Section *policy_section_new(Policy *p, SectionKind kind, const char *section, const char *target);
int policy_reserve_sections(Policy *p, size_t n);
int policy_get_section(Policy *p, const Assignment *a, Section **ret);

/* policy.c: the Policy object */
int policy_new(Policy **ret);
/* Records path once more; *ret is the copy sources and errors point at. */
int policy_add_path(Policy *p, const char *path, const char **ret);
_printf_(4, 5) int policy_add_error(Policy *p, const char *path, unsigned line, const char *fmt,
				    ...);
_printf_(4, 5) int policy_add_warning(Policy *p, const char *path, unsigned line, const char *fmt,
				      ...);
/* Applies a file that parsed without error. */
int policy_apply(Policy *p, const char *file, const FileParse *fp);

/* policy-warn.c: the warnings of policy_load_check(); each does nothing
 * unless p->check. */
/* a sets key, which prev (file NULL: nothing) set before. */
int policy_warn_override(Policy *p, const char *file, const Assignment *a, const char *key,
			 const PolicySource *prev);
/* a sets a [Daemon] key: records where (policy_daemon_source()), and in a
 * check policy_warn_override() with its last source. */
int policy_warn_daemon_key(Policy *p, const char *file, const Assignment *a);
/* a is the first key of its header in file, and s its section: is the user
 * or group name known to NSS? Looked up once per section. */
int policy_warn_name(Policy *p, const char *file, const Assignment *a, Section *s);
/* The warnings of a file rejected for its errors (fp, parsed with every
 * error): those it would have on its own (unknown names, keys set twice in
 * it), so an error does not hide them. Nothing of it is applied to p. */
int policy_warn_rejected(Policy *p, const char *path, const FileParse *fp);

/* Small predicates of the parser's inner loop, inline: they run for every
 * line of every file at each login (bench/RESULTS.md). */

/* The entry named s in table, or NULL. */
static inline const PolicyItem *policy_item_lookup(const PolicyItem *table, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		/* first characters first: most names differ there */
		if (s[0] == table[i].name[0] && streq(s, table[i].name))
			return &table[i];
	return NULL;
}

/* Is the target of a [User] or [Group] header "#N", a uid or gid? Sets
 * *ret_id to N (0 otherwise); section_parse() has validated the number. */
static inline bool section_target_id(const char *target, uint32_t *ret_id)
{
	unsigned id = 0;
	bool numeric = target && target[0] == '#';

	if (numeric)
		(void)parse_unsigned(target + 1, &id);
	*ret_id = id;
	return numeric;
}

/* Does a [User] or [Group] section (by id or by name) match the user? One
 * predicate for loading for a user and for evaluating. */
static inline bool policy_section_matches(SectionKind kind, bool numeric, uint32_t id,
					  const char *name, const char *user, uid_t uid,
					  const gid_t *gids, char *const *names, size_t n_gids)
{
	switch (kind) {
	case SECTION_USER:
		return numeric ? id == uid : streq_ptr(name, user);
	case SECTION_GROUP:
		for (size_t i = 0; i < n_gids; i++)
			if (numeric ? gids[i] == id : names && streq_ptr(names[i], name))
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
