// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the policy library's unit tests (tests/unit/test-policy*.c) share:
 * a fresh directory per test, files written into it, loading and
 * evaluating with assertions, and the test case that sets it all up. See
 * policy-fixture.h.
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy-internal.h"
#include "policy.h"

char tmpdir[256];
/* Strings handed out by tformat(); static so they outlive the Policy that points at them. */
static char path_pool[64][PATH_MAX];
static size_t n_paths;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void rm_rf(char *dir)
{
	if (dir[0])
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	dir[0] = '\0';
}

/* Per test case, in the parent: Check ends a failed or timed-out forked
 * test without its checked teardown, so the parent removes what is left. */
char basedir[128];

static void case_setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(basedir, sizeof(basedir), "%s/realtimed-test-policy-XXXXXX",
		 isempty(t) ? "/tmp" : t);
	if (!mkdtemp(basedir)) {
		fprintf(stderr, "mkdtemp(%s): %m\n", basedir);
		abort();
	}
}

static void case_teardown(void)
{
	rm_rf(basedir);
}

/* Per test, in the forked child. */
static void setup(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/t-XXXXXX", basedir);
	ck_assert_msg(mkdtemp(tmpdir), "mkdtemp(%s): %m", tmpdir);
	n_paths = 0;
}

static void teardown(void)
{
	rm_rf(tmpdir);
}

_printf_(1, 2) const char *tformat(const char *fmt, ...)
{
	va_list ap;
	char *p;

	ck_assert(n_paths < ELEMENTSOF(path_pool));
	p = path_pool[n_paths++];
	va_start(ap, fmt);
	vsnprintf(p, PATH_MAX, fmt, ap);
	va_end(ap);
	return p;
}

const char *tpath(const char *rel)
{
	return tformat("%s/%s", tmpdir, rel);
}

static void mkdir_parents(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s = buf + strlen(tmpdir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		ck_assert_msg(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir(%s): %m", buf);
		*s = '/';
	}
}

/* Writes content (exactly, no newline added) to rel; returns its path. */
const char *write_file(const char *rel, const char *content)
{
	const char *path = tpath(rel);
	FILE *f;

	mkdir_parents(path);
	f = fopen(path, "we");
	ck_assert_msg(f, "fopen(%s): %m", path);
	ck_assert_int_eq(fwrite(content, 1, strlen(content), f), strlen(content));
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

gid_t audio_gid(void)
{
	const struct group *gr = getgrnam("audio");

	ck_assert_msg(gr, "no group 'audio' on this system");
	return gr->gr_gid;
}

Policy *load_files(const char *const *files, size_t n)
{
	Policy *p = NULL;

	ck_assert_int_eq(policy_load_files(files, n, &p), 0);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* Writes content to t.conf and loads it alone. */
Policy *load_text(const char *content, const char **ret_path)
{
	const char *path = write_file("t.conf", content);

	if (ret_path)
		*ret_path = path;
	return load_files(&path, 1);
}

/* Evaluates for the identity given, with the group names NSS gives for the
 * gids, as policy_user_resolve() would ([Group audio] matches by name). */
void eval(const Policy *p, const char *user, uid_t uid, const gid_t *gids, size_t n_gids,
	  PolicyGrant *g)
{
	char *names[8] = {};
	PolicyUser u = {
		.name = (char *)user,
		.uid = uid,
		.gids = (gid_t *)gids,
		.group_names = names,
		.n_gids = n_gids,
	};

	ck_assert_uint_le(n_gids, ELEMENTSOF(names));
	for (size_t i = 0; i < n_gids; i++) {
		const struct group *gr = getgrgid(gids[i]);

		names[i] = gr ? strdup(gr->gr_name) : NULL;
	}
	memset(g, 0x5a, sizeof(*g));
	ck_assert_int_eq(policy_eval_for_user(p, &u, g), 0);
	for (size_t i = 0; i < n_gids; i++)
		free(names[i]);
}

void assert_no_errors(const Policy *p)
{
	for (size_t i = 0; i < policy_n_errors(p); i++) {
		const PolicyError *e = policy_error(p, i);

		ck_abort_msg("unexpected error %s:%u: %s", e->file, e->line, e->message);
	}
}

void assert_source(const PolicyGrant *g, PolicyKey k, const char *file, unsigned line,
		   const char *section)
{
	const char *name = policy_key_to_string(k);

	ck_assert_msg(g->set[k], "%s not set", name);
	ck_assert_msg(streq_ptr(g->source[k].file, file), "%s from file %s, want %s", name,
		      g->source[k].file, file);
	ck_assert_msg(g->source[k].line == line, "%s from line %u, want %u", name,
		      g->source[k].line, line);
	ck_assert_msg(streq_ptr(g->source[k].section, section), "%s from [%s], want [%s]", name,
		      g->source[k].section, section);
}

/* The value of key k of g, whatever the type of its field. */
static int64_t grant_value(const PolicyGrant *g, PolicyKey k)
{
	PolicyValue v;

	policy_value_load(&policy_keys[k], g, &v);
	if (policy_keys[k].type == POLICY_VALUE_INT)
		return v.i;
	if (policy_keys[k].type == POLICY_VALUE_UNSIGNED)
		return v.u;
	return (int64_t)v.u64;
}

static void assert_keys(const PolicyGrant *g, const char *path, const EvalCase *c)
{
	for (const KeyWant *w = c->want; w < c->want + ELEMENTSOF(c->want) && w->section; w++) {
		const char *name = policy_key_to_string(w->key);

		if (streq(w->section, KEY_UNSET)) {
			ck_assert_msg(!g->set[w->key], "%s: %s set, want unset", c->user, name);
			continue;
		}
		ck_assert_msg(grant_value(g, w->key) == w->value,
			      "%s: %s is %" PRIi64 ", want %" PRIi64, c->user, name,
			      grant_value(g, w->key), w->value);
		if (w->line)
			assert_source(g, w->key, w->file ? tpath(w->file) : path, w->line,
				      isempty(w->section) ? g->source[w->key].section : w->section);
	}
}

void assert_eval(const Policy *p, const char *path, const EvalCase *c)
{
	PolicyGrant g;

	eval(p, c->user, c->uid, c->gids, c->n_gids, &g);
	if (c->covered >= 0)
		ck_assert_msg(g.covered == (bool)c->covered, "%s: covered %d, want %d", c->user,
			      g.covered, c->covered);
	assert_keys(&g, path, c);
}

void assert_evals(const char *text, const EvalCase *cases, size_t n)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;

	p = load_text(text, &path);
	assert_no_errors(p);
	for (const EvalCase *c = cases; c < cases + n && c->user; c++)
		assert_eval(p, path, c);
}

static bool policy_has_file(const Policy *p, const char *path)
{
	for (size_t i = 0; i < policy_n_files(p); i++)
		if (streq(policy_file(p, i), path))
			return true;
	return false;
}

/* The file was rejected whole: one error for it at line, mentioning each of
 * the given words, and the file is not among the accepted ones. */
void assert_rejected(const Policy *p, const char *path, unsigned line, ...)
{
	const PolicyError *e = NULL;
	const char *word;
	va_list ap;

	for (size_t i = 0; i < policy_n_errors(p); i++)
		if (streq(policy_error(p, i)->file, path)) {
			ck_assert_msg(!e, "two errors for %s", path);
			e = policy_error(p, i);
		}
	ck_assert_msg(e, "%s was not rejected", path);
	ck_assert_msg(e->line == line, "%s rejected at line %u (%s), want line %u", path, e->line,
		      e->message, line);
	ck_assert_msg(!isempty(e->message), "empty message");
	va_start(ap, line);
	while ((word = va_arg(ap, const char *)))
		ck_assert_msg(strstr(e->message, word), "message \"%s\" lacks \"%s\"", e->message,
			      word);
	va_end(ap);
	ck_assert_msg(!policy_has_file(p, path), "rejected %s is listed as accepted", path);
}

/* Loads text alone and checks it is rejected at line, with nothing applied. */
void assert_text_rejected(const char *text, unsigned line, const char *word)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;
	const gid_t gids[] = { 29 };

	p = load_text(text, &path);
	assert_rejected(p, path, line, word, NULL);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	ck_assert_uint_eq(policy_n_files(p), 0);
	ck_assert_uint_eq(policy_n_irq_rules(p), 0);
	eval(p, "rtaudio", 4101, gids, 1, &g);
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		ck_assert_msg(!g.set[k], "%s applied from a rejected file",
			      policy_key_to_string(k));
	ck_assert(!g.covered);
}

void assert_format(const PolicyGrant *g, PolicyKey k, const char *want)
{
	char buf[64];

	ck_assert_int_eq(policy_grant_format(g, k, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
}

PolicyPaths tree_paths(void)
{
	return (PolicyPaths){
		.vendor_file = tpath("usr/realtime.conf"),
		.admin_file = tpath("etc/realtime.conf"),
		.vendor_dropin_dir = tpath("usr/realtime.conf.d"),
		.admin_dropin_dir = tpath("etc/realtime.conf.d"),
	};
}

const char full_default[] = "# realtimed test policy\n" /* 1 */
			    "\n"			/* 2 */
			    "[Default]\n"		/* 3 */
			    "RealtimePriority=20\n"	/* 4 */
			    "Policies=rr\n"		/* 5 */
			    "Nice=-15\n"		/* 6 */
			    "MemLock=64M\n"		/* 7 */
			    "RTTime=200ms\n"		/* 8 */
			    "Capabilities=\n"		/* 9 */
			    "CompatPolicy=rr\n";	/* 10 */

const char full_audio[] = "[Group #29]\n"
			  "RealtimePriority=95\n"
			  "Policies=fifo rr\n"
			  "Nice=-19\n"
			  "MemLock=infinity\n"
			  "RTTime=infinity\n"
			  "Capabilities=sys_nice ipc_lock\n"
			  "CompatPolicy=fifo\n";

TCase *policy_test_case(Suite *s, const char *name, const TTest *const *tests)
{
	TCase *tc = check_add_case(s, name, tests);

	tcase_add_unchecked_fixture(tc, case_setup, case_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	return tc;
}

int policy_test_run(Suite *s)
{
	/* The files the tests write must pass the trust rule whatever umask
	 * the caller has (002 is common for users with a group of their own). */
	umask(022);
	return check_run(s);
}
