/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fixture of the policy library's unit tests. Every test writes its own
 * files into a fresh mkdtemp() directory (tmpdir), inside one directory per
 * test case (basedir) that the parent removes even when a forked test
 * failed, so tests run in parallel with anyone else's. Evaluation takes an
 * explicit user, uid and gids, not a user NSS knows; the gids' names come
 * from NSS, as policy_user_resolve() gives them, for [Group NAME].
 */
#pragma once

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"
#include "policy.h"

#define CAP(c) (UINT64_C(1) << (c))

/* This test's directory, and its test case's. */
extern char tmpdir[256];
extern char basedir[128];

/* Adds a test case of tests to s with the fixture (the directories). */
TCase *policy_test_case(Suite *s, const char *name, const TTest *const *tests);
/* check_run() under umask 022, so that the files written pass the trust rule. */
int policy_test_run(Suite *s);

/* A formatted string (a path, a message) that lives as long as the test,
 * longer than any Policy that points at it. */
_printf_(1, 2) const char *tformat(const char *fmt, ...);
/* The absolute path of rel inside this test's directory (tformat()). */
const char *tpath(const char *rel);
/* Writes content (exactly, no newline added) to rel, making its parent
 * directories; returns its path. */
const char *write_file(const char *rel, const char *content);
/* The vendor and admin files and drop-in directories under usr/ and etc/. */
PolicyPaths tree_paths(void);

/* The gid of group "audio", which Debian always has. */
gid_t audio_gid(void);

/* policy_load_files() that must succeed. */
Policy *load_files(const char *const *files, size_t n);
/* Writes content to t.conf and loads it alone; *ret_path (if not NULL) is
 * its path. */
Policy *load_text(const char *content, const char **ret_path);
/* What p grants user (uid, in gids), with the names NSS gives the gids. */
void eval(const Policy *p, const char *user, uid_t uid, const gid_t *gids, size_t n_gids,
	  PolicyGrant *g);

void assert_no_errors(const Policy *p);
/* Key k of g is set, from file:line in section. */
void assert_source(const PolicyGrant *g, PolicyKey k, const char *file, unsigned line,
		   const char *section);
/* path was rejected whole: one error at line, its message holding each of
 * the words (a NULL-terminated list), and path is not among the accepted. */
void assert_rejected(const Policy *p, const char *path, unsigned line, ...);
/* text alone is rejected at line, naming word, with nothing applied. */
void assert_text_rejected(const char *text, unsigned line, const char *word);
/* policy_grant_format() of key k of g is want. */
void assert_format(const PolicyGrant *g, PolicyKey k, const char *want);

/* One key of a grant as a test wants it: set to value (compared as the
 * key's field would hold it), from line (unless 0) of file (a path inside
 * the test's directory; NULL: the file evaluated), in section (unless "");
 * or, with section KEY_UNSET, not set at all. A list of them ends at the
 * first with no section. */
typedef struct KeyWant {
	const char *section;
	PolicyKey key;
	int64_t value;
	unsigned line;
	const char *file;
} KeyWant;
#define KEY_UNSET "(unset)"

/* One evaluation of a policy text: the user (uid, gids) it is for, whether
 * the grant must be covered (1, 0; -1: either) and the keys it must hold. */
typedef struct EvalCase {
	const char *user;
	uid_t uid;
	gid_t gids[5];
	size_t n_gids;
	int covered;
	KeyWant want[8];
} EvalCase;

/* Evaluates p for c, path being the file that KeyWant's file NULL means. */
void assert_eval(const Policy *p, const char *path, const EvalCase *c);
/* Loads text alone, which must have no errors, and evaluates each of the n
 * cases on it (up to the first with no user). */
void assert_evals(const char *text, const EvalCase *cases, size_t n);

/* [Default] with every key, one per line (comments give the line numbers). */
extern const char full_default[];
/* [Group #29] with every key at its most generous. */
extern const char full_audio[];
