// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy.h: loading realtime.conf(5) files (order,
 * drop-in masking, rejection of broken files with file:line), evaluation
 * (user beats group beats default, the most generous group per key, numeric
 * ids, the covered flag), explain sources, [Daemon], [IRQ], and the grant
 * helpers. Every test writes its own files into a fresh mkdtemp() directory,
 * so tests can run in parallel with anyone else's, and evaluates with an
 * explicit user/uid/gids so that no NSS lookup is needed (except the tests
 * that are about NSS: [Group audio] by name and policy_eval_uid(0)).
 */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "parse.h"
#include "policy-internal.h"
#include "policy.h"

#define CAP(c) (UINT64_C(1) << (c))

static char tmpdir[256];
/* Paths handed out by tpath(); static so they outlive the Policy that points at them. */
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
static char basedir[128];

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

/* Absolute path of rel inside this test's directory. */
static const char *tpath(const char *rel)
{
	char *p;

	ck_assert(n_paths < ELEMENTSOF(path_pool));
	p = path_pool[n_paths++];
	snprintf(p, PATH_MAX, "%s/%s", tmpdir, rel);
	return p;
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
static const char *write_file(const char *rel, const char *content)
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

static Policy *load_files(const char *const *files, size_t n)
{
	Policy *p = NULL;

	ck_assert_int_eq(policy_load_files(files, n, &p), 0);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* Writes content to t.conf and loads it alone. */
static Policy *load_text(const char *content, const char **ret_path)
{
	const char *path = write_file("t.conf", content);

	if (ret_path)
		*ret_path = path;
	return load_files(&path, 1);
}

/* Evaluates for the identity given, with the group names NSS gives for the
 * gids, as policy_user_resolve() would ([Group audio] matches by name). */
static void eval(const Policy *p, const char *user, uid_t uid, const gid_t *gids, size_t n_gids,
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

static void assert_no_errors(const Policy *p)
{
	for (size_t i = 0; i < policy_n_errors(p); i++) {
		const PolicyError *e = policy_error(p, i);

		ck_abort_msg("unexpected error %s:%u: %s", e->file, e->line, e->message);
	}
}

static void assert_source(const PolicyGrant *g, PolicyKey k, const char *file, unsigned line,
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

static bool policy_has_file(const Policy *p, const char *path)
{
	for (size_t i = 0; i < policy_n_files(p); i++)
		if (streq(policy_file(p, i), path))
			return true;
	return false;
}

/* The file was rejected whole: one error for it at line, mentioning each of
 * the given words, and the file is not among the accepted ones. */
static void assert_rejected(const Policy *p, const char *path, unsigned line, ...)
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
static void assert_text_rejected(const char *text, unsigned line, const char *word)
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

static void assert_format(const PolicyGrant *g, PolicyKey k, const char *want)
{
	char buf[64];

	ck_assert_int_eq(policy_grant_format(g, k, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, want);
}

/* ------------------------------------------------------------------ eval */

static const char full_default[] = "# realtimed test policy\n" /* 1 */
				   "\n"			       /* 2 */
				   "[Default]\n"	       /* 3 */
				   "RealtimePriority=20\n"     /* 4 */
				   "Policies=rr\n"	       /* 5 */
				   "Nice=-15\n"		       /* 6 */
				   "MemLock=64M\n"	       /* 7 */
				   "RTTime=200ms\n"	       /* 8 */
				   "Capabilities=\n"	       /* 9 */
				   "CompatPolicy=rr\n";	       /* 10 */

START_TEST(test_default_only)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 4102 };
	PolicyGrant g;

	p = load_text(full_default, &path);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 1);
	ck_assert_str_eq(policy_file(p, 0), path);

	eval(p, "rtplain", 4102, gids, 1, &g);
	ck_assert(!g.covered);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -15);
	ck_assert_uint_eq(g.memlock, UINT64_C(64) << 20);
	ck_assert_uint_eq(g.rttime_usec, 200000);
	ck_assert_uint_eq(g.capabilities, 0);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		assert_source(&g, k, path, 4 + k, "Default");
}
END_TEST

START_TEST(test_unset_keys)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;

	p = load_text("[Default]\nRealtimePriority=10\n", NULL);
	assert_no_errors(p);
	eval(p, "rtplain", 4102, NULL, 0, &g);
	ck_assert(g.set[POLICY_KEY_REALTIME_PRIORITY]);
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		if (k == POLICY_KEY_REALTIME_PRIORITY)
			continue;
		ck_assert_msg(!g.set[k], "%s set by no file but set", policy_key_to_string(k));
		ck_assert_ptr_null(g.source[k].file);
	}
	/* CompatPolicy= that no file sets reads as rr. */
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
}
END_TEST

START_TEST(test_empty_policy)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;

	p = load_files(NULL, 0);
	ck_assert_uint_eq(policy_n_files(p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 0);
	ck_assert_uint_eq(policy_n_irq_rules(p), 0);
	ck_assert_ptr_null(policy_irq_match(p, "snd_hda_intel"));
	eval(p, "rtaudio", 4101, NULL, 0, &g);
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		ck_assert(!g.set[k]);
	ck_assert(!g.covered);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
	ck_assert_ptr_null(policy_free(NULL));
}
END_TEST

START_TEST(test_group_beats_default)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t audio[] = { 4101, 29 }, plain[] = { 4102 };
	PolicyGrant g;

	/* The group's priority is lower than the default's: precedence, not
	 * generosity, decides between a group and [Default]. */
	p = load_text("[Default]\n"
		      "RealtimePriority=20\n"
		      "Nice=-15\n"
		      "[Group #29]\n"
		      "RealtimePriority=10\n"
		      "MemLock=infinity\n",
		      &path);
	assert_no_errors(p);

	eval(p, "rtaudio", 4101, audio, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 10);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "Group #29");
	/* A key only [Default] sets still comes from [Default]. */
	ck_assert_int_eq(g.nice, -15);
	assert_source(&g, POLICY_KEY_NICE, path, 3, "Default");
	ck_assert_uint_eq(g.memlock, POLICY_INFINITY);
	assert_source(&g, POLICY_KEY_MEMLOCK, path, 6, "Group #29");
	ck_assert(!g.set[POLICY_KEY_RTTIME]);

	eval(p, "rtplain", 4102, plain, 1, &g);
	ck_assert(!g.covered);
	ck_assert_int_eq(g.realtime_priority, 20);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Default");
	ck_assert(!g.set[POLICY_KEY_MEMLOCK]);
}
END_TEST

START_TEST(test_user_beats_group)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 4103, 29 };
	PolicyGrant g;

	p = load_text("[Default]\n"	       /* 1 */
		      "RealtimePriority=20\n"  /* 2 */
		      "[Group #29]\n"	       /* 3 */
		      "RealtimePriority=95\n"  /* 4 */
		      "Nice=-19\n"	       /* 5 */
		      "[User rtalice]\n"       /* 6 */
		      "RealtimePriority=50\n"  /* 7 */
		      "[User rtother]\n"       /* 8 */
		      "RealtimePriority=99\n", /* 9 */
		      &path);
	assert_no_errors(p);

	eval(p, "rtalice", 4103, gids, 2, &g);
	ck_assert(g.covered);
	/* Lower than the group's 95, but [User] beats [Group]. */
	ck_assert_int_eq(g.realtime_priority, 50);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 7, "User rtalice");
	ck_assert_int_eq(g.nice, -19);
	assert_source(&g, POLICY_KEY_NICE, path, 5, "Group #29");

	/* The same groups, another name: only the group applies. */
	eval(p, "rtaudio", 4101, gids, 2, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 4, "Group #29");
}
END_TEST

START_TEST(test_user_without_groups)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	p = load_text("[Default]\nRealtimePriority=20\nNice=-5\n[User rtplain]\nNice=-10\n", &path);
	assert_no_errors(p);
	eval(p, "rtplain", 4102, NULL, 0, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.nice, -10);
	assert_source(&g, POLICY_KEY_NICE, path, 5, "User rtplain");
	ck_assert_int_eq(g.realtime_priority, 20);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Default");
}
END_TEST

START_TEST(test_numeric_ids)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 4102, 4242 };
	PolicyGrant g;

	p = load_text("[User #4102]\n"
		      "RealtimePriority=33\n"
		      "[Group #4242]\n"
		      "Nice=-7\n"
		      "[User #4103]\n"
		      "RealtimePriority=44\n"
		      "[Group #4243]\n"
		      "Nice=-20\n",
		      &path);
	assert_no_errors(p);

	/* The name plays no part for [User #UID]; the gid list decides [Group #GID]. */
	eval(p, "someone-else", 4102, gids, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 33);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "User #4102");
	ck_assert_int_eq(g.nice, -7);
	assert_source(&g, POLICY_KEY_NICE, path, 4, "Group #4242");

	eval(p, "rtplain", 4999, NULL, 0, &g);
	ck_assert(!g.covered);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert(!g.set[POLICY_KEY_NICE]);
}
END_TEST

START_TEST(test_user_by_name_and_number)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* Both [User rtalice] and [User #4103] describe the same user: the
	 * more generous value of each key wins, as between groups. */
	p = load_text("[User rtalice]\nRealtimePriority=60\nNice=-5\n"
		      "[User #4103]\nRealtimePriority=70\nNice=-2\n",
		      &path);
	assert_no_errors(p);
	eval(p, "rtalice", 4103, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 70);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "User #4103");
	ck_assert_int_eq(g.nice, -5);
	assert_source(&g, POLICY_KEY_NICE, path, 3, "User rtalice");
}
END_TEST

START_TEST(test_group_by_name)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	struct group *gr;
	gid_t gids[2] = { 4101 };
	PolicyGrant g;

	/* [Group NAME] resolves the name through NSS; Debian always has "audio". */
	gr = getgrnam("audio");
	ck_assert_msg(gr, "no group 'audio' on this system");
	gids[1] = gr->gr_gid;

	p = load_text("[Group audio]\nRealtimePriority=95\n[Group "
		      "no-such-group-rt]\nRealtimePriority=99\n",
		      &path);
	assert_no_errors(p);
	eval(p, "rtaudio", 4101, gids, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Group audio");

	eval(p, "rtaudio", 4101, gids, 1, &g);
	ck_assert(!g.covered);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
}
END_TEST

static const char generous_groups[] = "[Default]\n"		    /* 1 */
				      "RealtimePriority=99\n"	    /* 2 */
				      "[Group #5001]\n"		    /* 3 */
				      "RealtimePriority=50\n"	    /* 4 */
				      "Nice=-5\n"		    /* 5 */
				      "MemLock=1G\n"		    /* 6 */
				      "RTTime=100ms\n"		    /* 7 */
				      "Policies=rr\n"		    /* 8 */
				      "Capabilities=sys_nice\n"	    /* 9 */
				      "[Group #5002]\n"		    /* 10 */
				      "RealtimePriority=70\n"	    /* 11 */
				      "Nice=-10\n"		    /* 12 */
				      "MemLock=64M\n"		    /* 13 */
				      "RTTime=infinity\n"	    /* 14 */
				      "Policies=fifo\n"		    /* 15 */
				      "Capabilities=cap_ipc_lock\n" /* 16 */
				      "[Group #5003]\n"		    /* 17 */
				      "RealtimePriority=60\n"	    /* 18 */
				      "Nice=-19\n"		    /* 19 */
				      "MemLock=infinity\n"	    /* 20 */
				      "RTTime=1s\n"		    /* 21 */
				      "[Group #5004]\n"		    /* 22 */
				      "RealtimePriority=1\n"	    /* 23 */
				      "Nice=19\n"		    /* 24 */
				      "MemLock=0\n"		    /* 25 */
				      "RTTime=0\n";		    /* 26 */

static void check_generous(const PolicyGrant *g, const char *path)
{
	ck_assert(g->covered);
	ck_assert_int_eq(g->realtime_priority, 70);
	assert_source(g, POLICY_KEY_REALTIME_PRIORITY, path, 11, "Group #5002");
	/* Nice: the lowest is the most generous. */
	ck_assert_int_eq(g->nice, -19);
	assert_source(g, POLICY_KEY_NICE, path, 19, "Group #5003");
	/* Sizes and durations: the largest, infinity above all. */
	ck_assert_uint_eq(g->memlock, POLICY_INFINITY);
	assert_source(g, POLICY_KEY_MEMLOCK, path, 20, "Group #5003");
	ck_assert_uint_eq(g->rttime_usec, POLICY_INFINITY);
	assert_source(g, POLICY_KEY_RTTIME, path, 14, "Group #5002");
	/* Policies and Capabilities: the union. */
	ck_assert_uint_eq(g->policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_uint_eq(g->capabilities, CAP(CAP_SYS_NICE) | CAP(CAP_IPC_LOCK));
	ck_assert(g->set[POLICY_KEY_POLICIES]);
	ck_assert(g->set[POLICY_KEY_CAPABILITIES]);
}

START_TEST(test_most_generous_group)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 5000, 5001, 5002, 5003, 5004 };
	const gid_t reversed[] = { 5004, 5003, 5002, 5001, 5000 };
	PolicyGrant g;

	p = load_text(generous_groups, &path);
	assert_no_errors(p);
	eval(p, "rtaudio", 5000, gids, ELEMENTSOF(gids), &g);
	check_generous(&g, path);
	/* The order of the gid list does not matter. */
	eval(p, "rtaudio", 5000, reversed, ELEMENTSOF(reversed), &g);
	check_generous(&g, path);
}
END_TEST

START_TEST(test_most_generous_group_order)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 5001, 5002, 5003, 5004 };
	PolicyGrant g;
	char text[sizeof(generous_groups)];
	const char *g4 = strstr(generous_groups, "[Group #5004]");

	/* The least generous group written first instead of last: same answer. */
	snprintf(text, sizeof(text), "%s%.*s", g4, (int)(g4 - generous_groups), generous_groups);
	p = load_text(text, &path);
	assert_no_errors(p);
	eval(p, "rtaudio", 5000, gids, ELEMENTSOF(gids), &g);
	ck_assert_int_eq(g.realtime_priority, 70);
	ck_assert_int_eq(g.nice, -19);
	ck_assert_uint_eq(g.memlock, POLICY_INFINITY);
	ck_assert_uint_eq(g.rttime_usec, POLICY_INFINITY);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
}
END_TEST

START_TEST(test_least_generous_group_alone)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 5004 };
	PolicyGrant g;

	/* A single group less generous than [Default] still beats it. */
	p = load_text(generous_groups, &path);
	eval(p, "rtplain", 4102, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 1);
	ck_assert_int_eq(g.nice, 19);
	ck_assert_uint_eq(g.memlock, 0);
	ck_assert_uint_eq(g.rttime_usec, 0);
	assert_source(&g, POLICY_KEY_RTTIME, path, 26, "Group #5004");
}
END_TEST

START_TEST(test_compat_policy)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const gid_t fifo_group[] = { 6001 }, rr_group[] = { 6002 }, both[] = { 6001, 6002 },
		    plain[] = { 6003 };
	PolicyGrant g;

	p = load_text("[Default]\n"
		      "Policies=rr\n"
		      "[Group #6001]\n"
		      "Policies=fifo rr\n"
		      "CompatPolicy=fifo\n"
		      "[Group #6002]\n"
		      "Policies=rr\n"
		      "CompatPolicy=rr\n"
		      "[Group #6003]\n"
		      "CompatPolicy=fifo\n",
		      NULL);
	assert_no_errors(p);

	eval(p, "a", 4101, fifo_group, 1, &g);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);
	eval(p, "a", 4101, rr_group, 1, &g);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
	/* Across groups fifo is the more generous answer. */
	eval(p, "a", 4101, both, 2, &g);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	/* CompatPolicy=fifo is only honoured where Policies= allows fifo. */
	eval(p, "a", 4101, plain, 1, &g);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_RR);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);
}
END_TEST

START_TEST(test_section_reopened)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	/* A section may appear more than once; its keys add up. */
	p = load_text("[Default]\nRealtimePriority=20\n[Group #29]\nNice=-19\n"
		      "[Default]\nNice=-15\n[Group #29]\nRealtimePriority=95\n",
		      &path);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_int_eq(g.nice, -15);
	assert_source(&g, POLICY_KEY_NICE, path, 6, "Default");
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 8, "Group #29");
	ck_assert_int_eq(g.nice, -19);
	assert_source(&g, POLICY_KEY_NICE, path, 4, "Group #29");
}
END_TEST

START_TEST(test_repeated_key)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* A key repeated in one section of one file: the last line counts, as
	 * it would across files (realtime.conf(5) says so). */
	p = load_text("[Default]\nRealtimePriority=20\nNice=-5\nRealtimePriority=10\n", &path);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 10);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 4, "Default");
}
END_TEST

START_TEST(test_syntax_details)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	/* Comments (# and ;, whole-line and after a value), blank lines,
	 * spaces around '=' and inside the section header, CRLF line ends. */
	p = load_text("; a comment\r\n"			    /* 1 */
		      "   # an indented comment\n"	    /* 2 */
		      "\n"				    /* 3 */
		      "[Default]   # trailing comment\n"    /* 4 */
		      "RealtimePriority = 20   # the max\n" /* 5 */
		      "Nice=-15 ; semicolon comment\n"	    /* 6 */
		      "MemLock=64M\r\n"			    /* 7 */
		      "[Group  #29]\n"			    /* 8 */
		      "Policies=fifo   rr\n",		    /* 9 */
		      &path);
	assert_no_errors(p);
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 20);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "Default");
	ck_assert_int_eq(g.nice, -15);
	assert_source(&g, POLICY_KEY_NICE, path, 6, "Default");
	ck_assert_uint_eq(g.memlock, UINT64_C(64) << 20);
	assert_source(&g, POLICY_KEY_MEMLOCK, path, 7, "Default");
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_uint_eq(g.source[POLICY_KEY_POLICIES].line, 9);
	ck_assert(g.covered);
}
END_TEST

START_TEST(test_section_header_spaces)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	/* Spaces just inside the brackets: either harmless, as around '=', or
	 * an error at the header line that names the section; never an error
	 * blamed on the key line below it. */
	p = load_text("[Default]\nNice=-1\n[ Group #29 ]\nNice=-2\n", &path);
	if (policy_n_errors(p) > 0) {
		assert_rejected(p, path, 3, "Group #29", NULL);
		return;
	}
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -1);
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.nice, -2);
	ck_assert_uint_eq(g.source[POLICY_KEY_NICE].line, 4);
}
END_TEST

START_TEST(test_no_trailing_newline)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	p = load_text("[Default]\nRealtimePriority=42", &path);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 42);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 2, "Default");
}
END_TEST

START_TEST(test_eval_uid_root)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* Through NSS: root (uid 0, group root gid 0) exists everywhere. */
	p = load_text("[Default]\nRealtimePriority=20\nNice=-1\n"
		      "[User root]\nRealtimePriority=77\n"
		      "[Group #0]\nNice=-11\n",
		      &path);
	assert_no_errors(p);
	ck_assert_int_eq(policy_eval_uid(p, 0, &g), 0);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 77);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, path, 5, "User root");
	ck_assert_int_eq(g.nice, -11);
	assert_source(&g, POLICY_KEY_NICE, path, 7, "Group #0");

	memset(&g, 0, sizeof(g));
	ck_assert_int_eq(policy_user_resolve("root", &u), 0);
	ck_assert_str_eq(u->name, "root");
	ck_assert_int_eq(policy_eval_for_user(p, u, &g), 0);
	ck_assert_int_eq(g.realtime_priority, 77);
}
END_TEST

START_TEST(test_eval_unknown_user)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g = { .realtime_priority = 12345 };

	p = load_text("[Default]\nRealtimePriority=20\n", NULL);
	/* A uid no passwd source knows (not (uid_t)-1, which some NSS modules map). */
	ck_assert_int_eq(policy_eval_uid(p, 3999999999u, &g), -ESRCH);
	ck_assert_int_eq(policy_user_resolve("no-such-user-realtimed-test", &u), -ESRCH);
	ck_assert_ptr_null(u);
	ck_assert_int_eq(g.realtime_priority, 12345);
}
END_TEST

/* ------------------------------------------------------------ load order */

START_TEST(test_files_in_order)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[3];
	PolicyGrant g;

	f[0] = write_file("1.conf", "[Default]\nRealtimePriority=10\nNice=-5\nMemLock=1G\n");
	f[1] = write_file("2.conf", "[Default]\n\nRealtimePriority=30\n");
	/* A later file overrides even with a less generous value. */
	f[2] = write_file("3.conf", "[Default]\nMemLock=1M\n");
	p = load_files(f, 3);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_str_eq(policy_file(p, i), f[i]);
	ck_assert_ptr_null(policy_file(p, 3));

	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 30);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, f[1], 3, "Default");
	ck_assert_int_eq(g.nice, -5);
	assert_source(&g, POLICY_KEY_NICE, f[0], 3, "Default");
	ck_assert_uint_eq(g.memlock, 1 << 20);
	assert_source(&g, POLICY_KEY_MEMLOCK, f[2], 2, "Default");
}
END_TEST

START_TEST(test_later_file_group_section)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2];
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	f[0] = write_file("1.conf", "[Group #29]\nRealtimePriority=95\nNice=-19\n");
	f[1] = write_file("2.conf", "[Group #29]\nRealtimePriority=80\n");
	p = load_files(f, 2);
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 80);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, f[1], 2, "Group #29");
	ck_assert_int_eq(g.nice, -19);
	assert_source(&g, POLICY_KEY_NICE, f[0], 3, "Group #29");
}
END_TEST

static PolicyPaths tree_paths(void)
{
	return (PolicyPaths){
		.vendor_file = tpath("usr/realtime.conf"),
		.admin_file = tpath("etc/realtime.conf"),
		.vendor_dropin_dir = tpath("usr/realtime.conf.d"),
		.admin_dropin_dir = tpath("etc/realtime.conf.d"),
	};
}

START_TEST(test_load_tree_order)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *want[7];
	PolicyGrant g;

	want[0] = write_file("usr/realtime.conf",
			     "[Default]\nRealtimePriority=1\nNice=-1\nMemLock=1K\nRTTime=1ms\n");
	want[1] = write_file("etc/realtime.conf", "[Default]\nRealtimePriority=2\nNice=-2\n");
	want[2] = write_file("usr/realtime.conf.d/10-a.conf", "[Default]\nRealtimePriority=3\n");
	want[3] = write_file("etc/realtime.conf.d/20-b.conf", "[Default]\nRealtimePriority=4\n");
	want[4] = write_file("usr/realtime.conf.d/30-c.conf",
			     "[Default]\nRealtimePriority=5\nMemLock=5K\n");
	/* The /etc drop-in masks the vendor one of the same name, wholly. */
	write_file("usr/realtime.conf.d/50-m.conf", "[Default]\nRealtimePriority=98\nRTTime=9s\n");
	want[5] = write_file("etc/realtime.conf.d/50-m.conf", "[Default]\nRealtimePriority=6\n");
	want[6] = NULL;

	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 6);
	for (size_t i = 0; i < 6; i++)
		ck_assert_str_eq(policy_file(p, i), want[i]);

	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 6);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, want[5], 2, "Default");
	ck_assert_int_eq(g.nice, -2);
	assert_source(&g, POLICY_KEY_NICE, want[1], 3, "Default");
	ck_assert_uint_eq(g.memlock, 5 * 1024);
	assert_source(&g, POLICY_KEY_MEMLOCK, want[4], 3, "Default");
	/* The masked vendor drop-in's RTTime=9s is not in force. */
	ck_assert_uint_eq(g.rttime_usec, 1000);
	assert_source(&g, POLICY_KEY_RTTIME, want[0], 5, "Default");
}
END_TEST

START_TEST(test_dropin_c_locale_order)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	/* strcmp() order: digits < upper case < '_' < lower case, "10" < "9". */
	static const char *const names[] = { "10.conf", "9.conf", "A.conf",  "B.conf",
					     "_x.conf", "a.conf", "b-2.conf" };
	char rel[PATH_MAX], text[64];
	PolicyGrant g;

	/* Written in scrambled order, alternating vendor and admin dirs. */
	for (size_t j = 0; j < ELEMENTSOF(names); j++) {
		size_t i = (j * 3) % ELEMENTSOF(names);

		snprintf(rel, sizeof(rel), "%s/realtime.conf.d/%s", i % 2 ? "etc" : "usr",
			 names[i]);
		snprintf(text, sizeof(text), "[Default]\nRealtimePriority=%zu\n", i + 1);
		write_file(rel, text);
	}
	/* Not drop-ins: no .conf suffix, or hidden. They would be rejected if read. */
	write_file("etc/realtime.conf.d/zz.conf.dpkg-old", "garbage\n");
	write_file("etc/realtime.conf.d/zz.conf~", "garbage\n");
	write_file("usr/realtime.conf.d/README", "garbage\n");
	write_file("etc/realtime.conf.d/.hidden.conf", "garbage\n");

	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), ELEMENTSOF(names));
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		const char *f = policy_file(p, i), *slash = strrchr(f, '/');

		ck_assert_str_eq(slash + 1, names[i]);
		ck_assert_ptr_nonnull(strstr(f, i % 2 ? "/etc/" : "/usr/"));
	}
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, ELEMENTSOF(names));
}
END_TEST

START_TEST(test_dropins_after_main_files)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *dropin;
	PolicyGrant g;

	/* Even a vendor drop-in comes after the admin file. */
	write_file("etc/realtime.conf", "[Default]\nRealtimePriority=50\n");
	dropin = write_file("usr/realtime.conf.d/00-vendor.conf",
			    "[Default]\nRealtimePriority=40\n");
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 40);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, dropin, 2, "Default");
}
END_TEST

START_TEST(test_mask_with_empty_file)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	PolicyGrant g;

	/* An empty /etc drop-in masks a vendor drop-in, even a broken one. */
	write_file("usr/realtime.conf.d/60-x.conf", "[Default]\nRealtimePriority=60\n");
	write_file("usr/realtime.conf.d/70-broken.conf", "[Default]\nNoSuchKey=1\n");
	write_file("etc/realtime.conf.d/60-x.conf", "");
	write_file("etc/realtime.conf.d/70-broken.conf", "# fixed locally\n");
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 2);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
}
END_TEST

START_TEST(test_mask_with_dev_null)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	PolicyGrant g;

	/* The systemd idiom: a symlink to /dev/null masks a vendor drop-in. */
	write_file("usr/realtime.conf.d/60-x.conf", "[Default]\nRealtimePriority=60\n");
	write_file("etc/realtime.conf.d/keep", "");
	ck_assert_int_eq(symlink("/dev/null", tpath("etc/realtime.conf.d/60-x.conf")), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
}
END_TEST

START_TEST(test_missing_files_are_fine)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	PolicyGrant g;

	ck_assert_int_eq(policy_load(&paths, &p), 0);
	ck_assert_uint_eq(policy_n_files(p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 0);
	eval(p, "x", 1, NULL, 0, &g);
	for (int k = 0; k < _POLICY_KEY_MAX; k++)
		ck_assert(!g.set[k]);
}
END_TEST

START_TEST(test_empty_path_disables)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	PolicyGrant g;

	write_file("usr/realtime.conf", "[Default]\nRealtimePriority=1\n");
	write_file("etc/realtime.conf", "[Default]\nNice=-2\n");
	write_file("usr/realtime.conf.d/a.conf", "[Default]\nMemLock=3K\n");
	write_file("etc/realtime.conf.d/b.conf", "[Default]\nRTTime=4ms\n");
	paths.vendor_file = "";
	paths.admin_dropin_dir = "";
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 2);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert_int_eq(g.nice, -2);
	ck_assert_uint_eq(g.memlock, 3072);
	ck_assert(!g.set[POLICY_KEY_RTTIME]);
}
END_TEST

START_TEST(test_broken_admin_file_vendor_stays)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *vendor, *admin, *dropin;
	const gid_t gids[] = { 29 };
	PolicyGrant g;

	vendor = write_file("usr/realtime.conf", "[Default]\nRealtimePriority=20\n"
						 "[Group #29]\nRealtimePriority=95\n");
	admin = write_file("etc/realtime.conf", "[Default]\n"
						"RealtimePriority=1\n"
						"[Group #29]\n"
						"RealtimePriority=5\n"
						"Nicee=-19\n");
	dropin = write_file("etc/realtime.conf.d/x.conf", "[Default]\nNice=-7\n");
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, admin, 5, "Nicee", NULL);
	ck_assert_uint_eq(policy_n_files(p), 2);
	ck_assert_str_eq(policy_file(p, 0), vendor);
	ck_assert_str_eq(policy_file(p, 1), dropin);

	/* Nothing of the admin file, not even the lines before the error. */
	eval(p, "x", 1, gids, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, vendor, 4, "Group #29");
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_int_eq(g.nice, -7);
}
END_TEST

START_TEST(test_broken_file_among_files)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[4];
	PolicyGrant g;

	f[0] = write_file("1.conf", "[Default]\nRealtimePriority=10\n");
	f[1] = write_file("2.conf", "[Default]\nRealtimePriority=99\nNice=-20\n[Bogus]\n");
	f[2] = write_file("3.conf", "[Default]\nNice=-3\n");
	f[3] = write_file("4.conf", "[IRQ]\nsnd*=90\n[Default]\nMemLock=lots\n");
	p = load_files(f, 4);
	ck_assert_uint_eq(policy_n_errors(p), 2);
	assert_rejected(p, f[1], 4, "Bogus", NULL);
	assert_rejected(p, f[3], 4, "lots", "MemLock", NULL);
	/* Errors come in load order. */
	ck_assert_str_eq(policy_error(p, 0)->file, f[1]);
	ck_assert_str_eq(policy_error(p, 1)->file, f[3]);
	ck_assert_ptr_null(policy_error(p, 2));
	ck_assert_uint_eq(policy_n_files(p), 2);
	ck_assert_str_eq(policy_file(p, 0), f[0]);
	ck_assert_str_eq(policy_file(p, 1), f[2]);
	ck_assert_uint_eq(policy_n_irq_rules(p), 0);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 10);
	ck_assert_int_eq(g.nice, -3);
	ck_assert(!g.set[POLICY_KEY_MEMLOCK]);
}
END_TEST

START_TEST(test_files_missing)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2];
	PolicyGrant g;

	/* policy_load_files(): a file the caller named must exist. */
	f[0] = tpath("nonexistent.conf");
	f[1] = write_file("ok.conf", "[Default]\nNice=-4\n");
	p = load_files(f, 2);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, f[0], 0, NULL);
	ck_assert_uint_eq(policy_n_files(p), 1);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -4);
}
END_TEST

START_TEST(test_directory_as_file)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f;

	write_file("d.conf/inner", "");
	f = tpath("d.conf");
	p = load_files(&f, 1);
	assert_rejected(p, f, 0, NULL);
}
END_TEST

START_TEST(test_unreadable_file)
{
	const char *f[2];
	pid_t pid;
	int status;

	f[0] = write_file("secret.conf", "[Default]\nRealtimePriority=99\n");
	f[1] = write_file("ok.conf", "[Default]\nNice=-4\n");
	ck_assert_int_eq(chmod(f[0], 0), 0);
	ck_assert_int_eq(chmod(basedir, 0755), 0);
	ck_assert_int_eq(chmod(tmpdir, 0755), 0);

	/* Root reads anything, so read as nobody, in a child of our own. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		Policy *p = NULL;
		PolicyGrant g;
		bool ok;

		if (geteuid() == 0 &&
		    (setresgid(65534, 65534, 65534) < 0 || setgroups(0, NULL) < 0 ||
		     setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		if (policy_load_files(f, 2, &p) < 0)
			_exit(3);
		policy_eval_for_user(p, &(PolicyUser){ .name = "x", .uid = 1 }, &g);
		ok = policy_n_errors(p) == 1 && streq(policy_error(p, 0)->file, f[0]) &&
		     policy_error(p, 0)->line == 0 &&
		     strstr(policy_error(p, 0)->message, "denied") && policy_n_files(p) == 1 &&
		     !g.set[POLICY_KEY_REALTIME_PRIORITY] && g.nice == -4;
		policy_free(p);
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 2,
		      "could not drop privileges to uid 65534");
	ck_assert_msg(
		WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"unreadable file not rejected with \"Permission denied\" at line 0 (status %d)",
		status);
}
END_TEST

START_TEST(test_directory_as_dropin)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *ok;
	PolicyGrant g;

	/* A directory named like a drop-in cannot be read: it is reported, the others load. */
	write_file("etc/realtime.conf.d/10-dir.conf/inner", "");
	ok = write_file("etc/realtime.conf.d/20-ok.conf", "[Default]\nNice=-6\n");
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_rejected(p, tpath("etc/realtime.conf.d/10-dir.conf"), 0, NULL);
	ck_assert_uint_eq(policy_n_files(p), 1);
	ck_assert_str_eq(policy_file(p, 0), ok);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -6);
}
END_TEST

/* ----------------------------------------------------------------- trust */

/* Loads path and a good file after it: path is rejected at line 0 with the
 * given words in its message, the good file stays in force. */
static void assert_untrusted(const char *path, ...)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2] = { path, NULL };
	const PolicyError *e;
	const char *word;
	PolicyGrant g;
	va_list ap;

	f[1] = write_file("good.conf", "[Default]\nNice=-4\n");
	p = load_files(f, 2);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, path, 0, "only root can write", NULL);
	e = policy_error(p, 0);
	va_start(ap, path);
	while ((word = va_arg(ap, const char *)))
		ck_assert_msg(strstr(e->message, word), "message \"%s\" lacks \"%s\"", e->message,
			      word);
	va_end(ap);
	ck_assert_uint_eq(policy_n_files(p), 1);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert_int_eq(g.nice, -4);
}

/* "chmod go-w PATH" / "chown root:root PATH" as the message spells them. */
static const char *fix(const char *cmd, const char *path)
{
	char *s = path_pool[n_paths++];

	ck_assert(n_paths <= ELEMENTSOF(path_pool));
	snprintf(s, PATH_MAX, "%s %s", cmd, path);
	return s;
}

START_TEST(test_trust_writable_file)
{
	static const struct {
		mode_t mode;
		const char *what;
	} cases[] = {
		{ 0664, "writable by group (mode 0664)" },
		{ 0646, "writable by others (mode 0646)" },
		{ 0666, "writable by group and others (mode 0666)" },
		{ 0622, "writable by group and others (mode 0622)" },
	};

	/* Whoever owns it: a file that the group or others can write is not
	 * policy, even a well-formed one. Tested by anyone, with chmod. */
	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		char name[32];
		const char *path;

		snprintf(name, sizeof(name), "w%zu.conf", i);
		path = write_file(name, "[Default]\nRealtimePriority=99\n");
		ck_assert_int_eq(chmod(path, cases[i].mode), 0);
		assert_untrusted(path, cases[i].what, fix("chmod go-w", path), NULL);
	}
}
END_TEST

START_TEST(test_trust_writable_dropin_dir)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *vendor, *admin;
	PolicyGrant g;

	/* An /etc drop-in directory that others can write: none of its files
	 * are read, and neither are the vendor drop-ins, since anyone could
	 * have removed the file that masked one of them. The main files stay. */
	vendor = write_file("usr/realtime.conf", "[Default]\nNice=-2\n");
	admin = write_file("etc/realtime.conf", "[Default]\nMemLock=1M\n");
	write_file("usr/realtime.conf.d/50-v.conf", "[Default]\nRealtimePriority=60\n");
	write_file("etc/realtime.conf.d/60-a.conf", "[Default]\nRTTime=5ms\n");
	ck_assert_int_eq(chmod(tpath("etc/realtime.conf.d"), 0757), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, tpath("etc/realtime.conf.d"), 0, "drop-in directory",
			"writable by others (mode 0757)", "only root can write", "vendor drop-ins",
			fix("chmod go-w", tpath("etc/realtime.conf.d")), NULL);
	ck_assert_uint_eq(policy_n_files(p), 2);
	ck_assert_str_eq(policy_file(p, 0), vendor);
	ck_assert_str_eq(policy_file(p, 1), admin);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -2);
	ck_assert_uint_eq(g.memlock, 1 << 20);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert(!g.set[POLICY_KEY_RTTIME]);
	policy_free(TAKE_PTR(p));

	/* A vendor drop-in directory the group can write: its files are not
	 * read; the /etc drop-ins are. */
	ck_assert_int_eq(chmod(tpath("etc/realtime.conf.d"), 0755), 0);
	ck_assert_int_eq(chmod(tpath("usr/realtime.conf.d"), 0775), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, tpath("usr/realtime.conf.d"), 0, "drop-in directory",
			"writable by group (mode 0775)", NULL);
	ck_assert_uint_eq(policy_n_files(p), 3);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
	ck_assert_uint_eq(g.rttime_usec, 5000);
}
END_TEST

START_TEST(test_trust_foreign_owner)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *path, *dir;
	PolicyGrant g;

	if (geteuid() != 0) {
		printf("test_trust_foreign_owner: not root, cannot chown a file to another uid; "
		       "not run\n");
		return;
	}
	/* Root's own file is trusted without a word. */
	path = write_file("root.conf", "[Default]\nNice=-1\n");
	p = load_files(&path, 1);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 1);
	ck_assert_uint_eq(policy_n_warnings(p), 0);
	policy_free(TAKE_PTR(p));

	/* Any other owner, even with a safe mode, is rejected with the fix. */
	path = write_file("user.conf", "[Default]\nRealtimePriority=99\n");
	ck_assert_int_eq(chown(path, 4242, 4242), 0);
	assert_untrusted(path, "owned by uid 4242, not root", fix("chown root:root", path), NULL);
	ck_assert_int_eq(chmod(path, 0664), 0);
	assert_untrusted(path, "owned by uid 4242, not root, and writable by group (mode 0664)",
			 "chown root:root", fix("chmod go-w", path), NULL);

	/* A drop-in directory owned by someone else. */
	write_file("etc/realtime.conf.d/10-a.conf", "[Default]\nRealtimePriority=50\n");
	dir = tpath("etc/realtime.conf.d");
	ck_assert_int_eq(chown(dir, 4242, 4242), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_rejected(p, dir, 0, "owned by uid 4242, not root", fix("chown root:root", dir),
			NULL);
	ck_assert_uint_eq(policy_n_files(p), 0);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert(!g.set[POLICY_KEY_REALTIME_PRIORITY]);
}
END_TEST

START_TEST(test_trust_symlink)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *target, *link, *bad;
	PolicyGrant g;

	/* A symlink is followed: what counts is the file it points to, seen
	 * through the opened fd (a symlink itself is always mode 0777). */
	target = write_file("elsewhere/studio.conf", "[Default]\nRealtimePriority=70\n");
	write_file("etc/realtime.conf.d/keep", "");
	link = tpath("etc/realtime.conf.d/50-studio.conf");
	ck_assert_int_eq(symlink(target, link), 0);
	if (geteuid() == 0)
		/* who owns the link does not matter, only its target */
		ck_assert_int_eq(lchown(link, 4242, 4242), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 1);
	ck_assert_str_eq(policy_file(p, 0), link);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 70);
	policy_free(TAKE_PTR(p));

	/* A link to a file that others may write is rejected, by the link's name. */
	bad = write_file("elsewhere/shared.conf", "[Default]\nNice=-20\n");
	ck_assert_int_eq(chmod(bad, 0666), 0);
	ck_assert_int_eq(symlink(bad, tpath("etc/realtime.conf.d/60-shared.conf")), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_rejected(p, tpath("etc/realtime.conf.d/60-shared.conf"), 0,
			"writable by group and others (mode 0666)", NULL);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 70);
	ck_assert(!g.set[POLICY_KEY_NICE]);
	policy_free(TAKE_PTR(p));

	/* A link to another user's file (as root, who can make one). */
	if (geteuid() == 0) {
		ck_assert_int_eq(chmod(bad, 0644), 0);
		ck_assert_int_eq(chown(bad, 4242, 4242), 0);
		ck_assert_int_eq(policy_load(&paths, &p), 0);
		assert_rejected(p, tpath("etc/realtime.conf.d/60-shared.conf"), 0,
				"owned by uid 4242, not root", NULL);
	}
}
END_TEST

START_TEST(test_trust_dev_null)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[3] = { "/dev/null", NULL, NULL };

	/* /dev/null is writable by everyone, yet reads as an empty file: it is
	 * accepted (a masked drop-in), named directly or through a symlink,
	 * and even a non-root caller gets no warning for it. */
	f[1] = tpath("masked.conf");
	ck_assert_int_eq(symlink("/dev/null", f[1]), 0);
	p = load_files(f, 2);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 2);
	ck_assert_uint_eq(policy_n_warnings(p), 0);
	policy_free(TAKE_PTR(p));

	/* Another character device that everyone can write is not. */
	f[2] = tpath("zero.conf");
	ck_assert_int_eq(symlink("/dev/zero", f[2]), 0);
	p = load_files(f + 2, 1);
	assert_rejected(p, f[2], 0, "writable by group and others", NULL);
}
END_TEST

/* In a child of our own (as nobody when we are root, else as ourselves):
 * the caller's own files are read, with a warning that realtimed would
 * not; /dev/null is read without one; a file of ours that the group can
 * write, and (when root can make one) another user's file, are rejected. */
START_TEST(test_trust_own_file_warns)
{
	bool root = geteuid() == 0;
	uid_t me = root ? 65534 : geteuid();
	const char *f[4];
	size_t n = 0;
	pid_t pid;
	int status;

	f[n++] = write_file("own.conf", "[Default]\nNice=-3\n");
	f[n++] = write_file("own-writable.conf", "[Default]\nRealtimePriority=99\n");
	ck_assert_int_eq(chmod(f[1], 0664), 0);
	f[n++] = "/dev/null";
	if (root) {
		f[n++] = write_file("theirs.conf", "[Default]\nMemLock=1G\n");
		ck_assert_int_eq(chown(f[3], 4242, 4242), 0);
		ck_assert_int_eq(chown(f[0], me, me), 0);
		ck_assert_int_eq(chown(f[1], me, me), 0);
		ck_assert_int_eq(chmod(basedir, 0755), 0);
		ck_assert_int_eq(chmod(tmpdir, 0755), 0);
	}

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char want[64];
		Policy *p = NULL;
		const PolicyError *w;
		PolicyGrant g;
		bool ok;

		if (root && (setresgid(65534, 65534, 65534) < 0 || setgroups(0, NULL) < 0 ||
			     setresuid(65534, 65534, 65534) < 0))
			_exit(2);
		if (policy_load_files(f, n, &p) < 0)
			_exit(3);
		policy_eval_for_user(p, &(PolicyUser){ .name = "x", .uid = 1 }, &g);
		w = policy_warning(p, 0);
		snprintf(want, sizeof(want), "owned by uid %u, not root", (unsigned)me);
		ok = policy_n_files(p) == 2 && g.nice == -3 &&
		     !g.set[POLICY_KEY_REALTIME_PRIORITY] && !g.set[POLICY_KEY_MEMLOCK] &&
		     policy_n_errors(p) == (root ? 2 : 1) &&
		     streq(policy_error(p, 0)->file, f[1]) &&
		     strstr(policy_error(p, 0)->message, "writable by group") &&
		     (!root ||
		      strstr(policy_error(p, 1)->message, "owned by uid 4242, not root")) &&
		     policy_n_warnings(p) == 1 && streq(w->file, f[0]) && w->line == 0 &&
		     strstr(w->message, want) && strstr(w->message, "realtimed") &&
		     strstr(w->message, "chown root:root") && !policy_warning(p, 1);
		if (!ok)
			fprintf(stderr, "own files: %zu files, %zu errors, %zu warnings: %s\n",
				policy_n_files(p), policy_n_errors(p), policy_n_warnings(p),
				w ? w->message : "(none)");
		policy_free(p);
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 2,
		      "could not drop privileges to uid 65534");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "as uid %u: own file not read with one warning, or a bad file read "
		      "(status %d)",
		      (unsigned)me, status);
}
END_TEST

/* ---------------------------------------------------------------- errors */

START_TEST(test_error_unknown_section)
{
	assert_text_rejected("[Default]\nRealtimePriority=20\n\n[Gruop audio]\nNice=-5\n", 4,
			     "Gruop audio");
	/* Even with no keys under it. */
	assert_text_rejected("[Default]\nRealtimePriority=20\n[Users alice]\n", 3, "Users alice");
	/* Section names are case-sensitive. */
	assert_text_rejected("[default]\nRealtimePriority=20\n", 1, "default");
	assert_text_rejected("[Default]\nNice=-1\n[Default extra]\nNice=-2\n", 3, "Default extra");
	assert_text_rejected("[Default]\nNice=-1\n[Group]\nNice=-2\n", 3, "Group");
	assert_text_rejected("[Default]\nNice=-1\n[User ]\nNice=-2\n", 3, "User");
	assert_text_rejected("[Default]\nNice=-1\n[Group two words]\nNice=-2\n", 3, NULL);
}
END_TEST

START_TEST(test_error_bad_numeric_id)
{
	assert_text_rejected("[Default]\nNice=-1\n[User #abc]\nNice=-2\n", 3, NULL);
	assert_text_rejected("[Default]\nNice=-1\n[User #]\nNice=-2\n", 3, NULL);
	assert_text_rejected("[Default]\nNice=-1\n[Group #-5]\nNice=-2\n", 3, NULL);
	assert_text_rejected("[Default]\nNice=-1\n[Group #4294967296]\nNice=-2\n", 3, NULL);
	/* (uid_t)-1 is no user. */
	assert_text_rejected("[Default]\nNice=-1\n[User #4294967295]\nNice=-2\n", 3, NULL);
}
END_TEST

START_TEST(test_error_unknown_key)
{
	assert_text_rejected("# policy\n[Default]\nRealtimePriority=20\nRealtimePriorty=5\n", 4,
			     "RealtimePriorty");
	/* Keys are case-sensitive. */
	assert_text_rejected("[Default]\nnice=-5\n", 2, "nice");
	/* A [Daemon] key where policy keys belong and the other way round. */
	assert_text_rejected("[Default]\nRealtimePriority=20\nCanary=no\n", 3, "Canary");
	assert_text_rejected("[Daemon]\nCanary=no\nRealtimePriority=20\n", 3, "RealtimePriority");
	assert_text_rejected("[Group #29]\nRealtimePriority=20\nBurstSec=3\n", 3, "BurstSec");
	assert_text_rejected("[Default]\n=5\n", 2, NULL);
}
END_TEST

START_TEST(test_error_bad_value)
{
	assert_text_rejected("[Default]\nNice=-25\n", 2, "-25");
	assert_text_rejected("[Default]\nNice=20\n", 2, "Nice");
	assert_text_rejected("[Default]\nRealtimePriority=100\n", 2, "RealtimePriority");
	assert_text_rejected("[Default]\nRealtimePriority=-1\n", 2, "RealtimePriority");
	assert_text_rejected("[Default]\nRealtimePriority=\n", 2, "RealtimePriority");
	assert_text_rejected("[Default]\nRealtimePriority=high\n", 2, "high");
	assert_text_rejected("[Group #29]\nPolicies=batch\n", 2, "batch");
	assert_text_rejected("[User #1]\nMemLock=64MB\n", 2, "64MB");
	assert_text_rejected("[Default]\nMemLock=17179869184G\n", 2, "MemLock");
	assert_text_rejected("[Default]\nRTTime=5min\n", 2, "5min");
	assert_text_rejected("[Default]\nRTTime=-1\n", 2, "RTTime");
	assert_text_rejected("[Default]\nCapabilities=sys_admin\n", 2, "sys_admin");
	assert_text_rejected("[Default]\nCompatPolicy=fifo rr\n", 2, "CompatPolicy");
	assert_text_rejected("[Default]\nCompatPolicy=other\n", 2, "CompatPolicy");
	assert_text_rejected("[Default]\nCompatPolicy=\n", 2, "CompatPolicy");
	/* "#" starts a comment only after whitespace: this is a bad value. */
	assert_text_rejected("[Default]\nNice=-5#comment\n", 2, "Nice");
}
END_TEST

START_TEST(test_error_later_line)
{
	/* The line of the first problem, also deep in a file, counting
	 * comments and blank lines. */
	assert_text_rejected("# 1\n"
			     "\n"
			     "[Default]\n"
			     "RealtimePriority=20\n"
			     "; 5\n"
			     "\n"
			     "[Group #29]\n"
			     "RealtimePriority=95\n"
			     "\n"
			     "Nice=-30\n"
			     "MemLock=whatever\n"
			     "Bogus=1\n",
			     10, "-30");
}
END_TEST

START_TEST(test_error_key_outside_section)
{
	assert_text_rejected("RealtimePriority=20\n[Default]\nNice=-5\n", 1, "RealtimePriority");
	assert_text_rejected("# comment\n\nNice=-5\n[Default]\n", 3, "Nice");
}
END_TEST

START_TEST(test_error_syntax)
{
	/* A line that is neither a section, a key nor a comment. */
	assert_text_rejected("[Default]\nRealtimePriority=20\n\ngarbage\nNice=-5\n", 4, NULL);
	/* An unterminated section header. */
	assert_text_rejected("[Default]\nNice=-5\n[Group #29\nNice=-19\n", 3, NULL);
	/* Text after a section header. */
	assert_text_rejected("[Default] Nice=-5\n", 1, NULL);
	/* Only '=' separates: "Key:value" is a mistake, with or without an
	 * '=' later on the line (inih used to read the first as Key=value). */
	assert_text_rejected("[Default]\nRealtimePriority:50\n", 2, "':' instead of '='");
	assert_text_rejected("[Default]\nNice:x=-5\n", 2, "':'");
	/* A ';' after a blank starts a comment, so the name is not closed. */
	assert_text_rejected("[Default]\nNice ;x=-5\n", 2, "syntax error");
	assert_text_rejected("[User ;alice]\nNice=-5\n", 1, "closing");
}
END_TEST

START_TEST(test_blanks)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;

	/* Blanks around names and values are ignored: spaces, tabs, CR, and
	 * vertical tab and form feed. A key name is measured without them. */
	p = load_text("\f[ Default ]\v\r\n"
		      "\tNice\v=\f-5\r\n"
		      "RealtimePriority                                        = 7\n"
		      "MemLock=1M\f# comment after a form feed\n",
		      NULL);
	assert_no_errors(p);
	eval(p, "nobody", 4242, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -5);
	ck_assert_int_eq(g.realtime_priority, 7);
	ck_assert_uint_eq(g.memlock, 1024 * 1024);
}
END_TEST

START_TEST(test_error_long_line)
{
	char text[512];

	/* A longer line is refused whole: the rest of it must never be read as
	 * a line of its own, so a comment can never turn into a key. */
	snprintf(text, sizeof(text), "[Default]\nRealtimePriority=20\n# %0*dNice=-20\n", 197, 0);
	assert_text_rejected(text, 3, NULL);
	snprintf(text, sizeof(text), "[Default]\nRealtimePriority=20\n# %0*d[User #4101]\n", 197,
		 0);
	assert_text_rejected(text, 3, NULL);
}
END_TEST

START_TEST(test_long_line_limit)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	char text[512];

	/* Lines up to 198 characters (plus the newline) are fine. */
	snprintf(text, sizeof(text), "[Default]\n#%0*d\nNice=-3\n", 197, 0);
	ck_assert_uint_eq(strlen(strchr(text, '#')), 198 + 1 + 8);
	p = load_text(text, NULL);
	assert_no_errors(p);
}
END_TEST

START_TEST(test_error_long_last_line)
{
	char text[512];

	/* The last line has no newline: past the limit it is refused whole, as
	 * the same line with a newline would be. */
	snprintf(text, sizeof(text), "[Default]\nNice=-3\n#%0*d", 198, 0);
	assert_text_rejected(text, 3, "too long");
	snprintf(text, sizeof(text), "[Default]\nNice=-3%*s#", 191, "");
	assert_text_rejected(text, 2, "too long");
}
END_TEST

START_TEST(test_error_nul_byte)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path = tpath("nul.conf");
	static const char data[] = "[Default]\nNice=-5\0RealtimePriority=99\nMemLock=1K\n";
	FILE *f;

	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(data, 1, sizeof(data) - 1, f), sizeof(data) - 1);
	ck_assert_int_eq(fclose(f), 0);
	p = load_files(&path, 1);
	assert_rejected(p, path, 2, NULL);
}
END_TEST

START_TEST(test_error_indented_continuation)
{
	/* INI parsers such as inih read an indented line as the continuation
	 * of the previous value. Values do not continue here: such a line must be rejected
	 * rather than silently replace the value before it (Policies=rr
	 * alone, RealtimePriority=95). */
	assert_text_rejected("[Default]\nPolicies=fifo\n  rr\n", 3, NULL);
	assert_text_rejected("[Default]\nRealtimePriority=20\n  95\n", 3, NULL);
	assert_text_rejected("[IRQ]\nsnd*=90\n\t80\n", 3, NULL);
}
END_TEST

START_TEST(test_error_file_too_large)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path = tpath("big.conf");
	FILE *f;

	/* 4 MiB of comments and one byte more. */
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	for (size_t i = 0; i < 4 * 1024 * 1024 / 64; i++)
		fprintf(f, "#%062d\n", 0);
	fputc('\n', f);
	ck_assert_int_eq(fclose(f), 0);
	p = load_files(&path, 1);
	assert_rejected(p, path, 0, NULL);
}
END_TEST

START_TEST(test_error_fifo_dropin)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *fifo;
	PolicyGrant g;

	/* A FIFO named like a drop-in must not hang the loader (and with it
	 * every login through pam_realtime): it is rejected, the rest loads.
	 * The test's timeout catches a hang. */
	write_file("etc/realtime.conf.d/20-ok.conf", "[Default]\nNice=-6\n");
	fifo = tpath("etc/realtime.conf.d/10-fifo.conf");
	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_rejected(p, fifo, 0, NULL);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -6);
}
END_TEST

START_TEST(test_bom)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	PolicyGrant g;

	/* A UTF-8 byte order mark from a Windows editor is tolerated. */
	p = load_text("\xef\xbb\xbf[Default]\nNice=-8\n", &path);
	assert_no_errors(p);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -8);
	assert_source(&g, POLICY_KEY_NICE, path, 2, "Default");
}
END_TEST

START_TEST(test_error_bom_unknown_section)
{
	/* ... and does not hide a bad section header behind it. */
	assert_text_rejected("\xef\xbb\xbf[Gruop audio]\nNice=-8\n", 1, "Gruop audio");
	assert_text_rejected("\xef\xbb\xbf[Bogus]\n", 1, "Bogus");
}
END_TEST

START_TEST(test_error_first_of_many)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;

	/* Several problems: exactly one error, the first. */
	p = load_text("[Default]\nNice=-99\n[Nope]\nFoo=bar\nbaz\n", &path);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	assert_rejected(p, path, 2, "Nice", NULL);
}
END_TEST

/* ---------------------------------------------------------------- daemon */

START_TEST(test_daemon_defaults)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const PolicyDaemon *d;

	p = load_text("[Default]\nNice=-1\n", NULL);
	d = policy_daemon(p);
	ck_assert(d->rtkit_compat);
	ck_assert(d->polkit);
	ck_assert_uint_eq(d->users_max, 2048);
	ck_assert_uint_eq(d->threads_per_user_max, 64);
	ck_assert_uint_eq(d->processes_per_user_max, 32);
	ck_assert_uint_eq(d->burst_usec, 20000000);
	ck_assert_uint_eq(d->actions_per_burst, 100);
	ck_assert(d->canary);
	ck_assert_uint_eq(d->canary_watchdog_usec, 2000000);
	ck_assert_uint_eq(d->canary_refuse_usec, 60000000);
	ck_assert(d->canary_demote_unknown);
}
END_TEST

START_TEST(test_daemon_keys)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2];
	const PolicyDaemon *d;

	f[0] = write_file("1.conf", "[Daemon]\n"
				    "RtkitCompat=no\n"
				    "Polkit=false\n"
				    "UsersMax=10\n"
				    "ThreadsPerUserMax=5\n"
				    "ProcessesPerUserMax=3\n"
				    "BurstSec=30\n"
				    "ActionsPerBurst=7\n"
				    "Canary=off\n"
				    "CanaryWatchdogSec=500ms\n"
				    "CanaryRefuseSec=2s\n"
				    "CanaryDemoteUnknown=no\n");
	/* A later file overrides single keys. */
	f[1] = write_file("2.conf", "[Daemon]\nCanary=yes\nUsersMax=11\n");
	p = load_files(f, 2);
	assert_no_errors(p);
	d = policy_daemon(p);
	ck_assert(!d->rtkit_compat);
	ck_assert(!d->polkit);
	ck_assert_uint_eq(d->users_max, 11);
	ck_assert_uint_eq(d->threads_per_user_max, 5);
	ck_assert_uint_eq(d->processes_per_user_max, 3);
	/* A bare number of a *Sec= key is seconds. */
	ck_assert_uint_eq(d->burst_usec, 30000000);
	ck_assert_uint_eq(d->actions_per_burst, 7);
	ck_assert(d->canary);
	ck_assert_uint_eq(d->canary_watchdog_usec, 500000);
	ck_assert_uint_eq(d->canary_refuse_usec, 2000000);
	ck_assert(!d->canary_demote_unknown);
}
END_TEST

START_TEST(test_daemon_bad_values)
{
	assert_text_rejected("[Daemon]\nCanary=maybe\n", 2, "Canary");
	assert_text_rejected("[Daemon]\nCanaryDemoteUnknown=some\n", 2, "CanaryDemoteUnknown");
	assert_text_rejected("[Daemon]\nUsersMax=-1\n", 2, "UsersMax");
	assert_text_rejected("[Daemon]\nUsersMax=0\n", 2, "UsersMax");
	assert_text_rejected("[Daemon]\nThreadsPerUserMax=many\n", 2, "ThreadsPerUserMax");
	assert_text_rejected("[Daemon]\nBurstSec=0\n", 2, "BurstSec");
	assert_text_rejected("[Daemon]\nBurstSec=infinity\n", 2, "BurstSec");
	assert_text_rejected("[Daemon]\nCanaryWatchdogSec=10ns\n", 2, "CanaryWatchdogSec");
	assert_text_rejected("[Daemon]\nRtkitCompat=yes\nBogus=1\n", 3, "Bogus");
}
END_TEST

START_TEST(test_daemon_broken_file_keeps_defaults)
{
	_cleanup_(policy_freep) Policy *p = NULL;

	p = load_text("[Daemon]\nCanary=no\nUsersMax=zero\n", NULL);
	ck_assert_uint_eq(policy_n_errors(p), 1);
	ck_assert(policy_daemon(p)->canary);
	ck_assert_uint_eq(policy_daemon(p)->users_max, 2048);
}
END_TEST

/* ------------------------------------------------------------------- IRQ */

START_TEST(test_irq_rules)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const PolicyIrqRule *r;

	p = load_text("[IRQ]\n"
		      "snd*=90\n"
		      "snd_hda*=70\n"
		      "xhci_hcd=85\n"
		      "i8042 = 80\n"
		      "eth?=60\n",
		      &path);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_irq_rules(p), 5);
	r = policy_irq_rule(p, 0);
	ck_assert_str_eq(r->pattern, "snd*");
	ck_assert_int_eq(r->priority, 90);
	ck_assert_str_eq(r->source.file, path);
	ck_assert_uint_eq(r->source.line, 2);
	ck_assert_str_eq(r->source.section, "IRQ");
	ck_assert_str_eq(policy_irq_rule(p, 3)->pattern, "i8042");
	ck_assert_uint_eq(policy_irq_rule(p, 3)->source.line, 5);
	ck_assert_ptr_null(policy_irq_rule(p, 5));

	/* The first match in order wins, not the most specific one. */
	r = policy_irq_match(p, "snd_hda_intel");
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(r->pattern, "snd*");
	ck_assert_int_eq(r->priority, 90);
	ck_assert_int_eq(policy_irq_match(p, "xhci_hcd")->priority, 85);
	ck_assert_int_eq(policy_irq_match(p, "i8042")->priority, 80);
	ck_assert_int_eq(policy_irq_match(p, "eth0")->priority, 60);
	/* Whole-name match, case-sensitive. */
	ck_assert_ptr_null(policy_irq_match(p, "xhci_hcd:usb1"));
	ck_assert_ptr_null(policy_irq_match(p, "i8042x"));
	ck_assert_ptr_null(policy_irq_match(p, "SND_hda"));
	ck_assert_ptr_null(policy_irq_match(p, "eth10"));
	ck_assert_ptr_null(policy_irq_match(p, "nvme0q1"));
	ck_assert_ptr_null(policy_irq_match(p, ""));
}
END_TEST

START_TEST(test_irq_later_file_replaces_in_place)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *f[2];
	const PolicyIrqRule *r;

	f[0] = write_file("1.conf", "[IRQ]\nsnd*=90\nxhci_hcd=85\n");
	f[1] = write_file("2.conf", "# override\n[IRQ]\nsnd_usb*=95\nsnd*=60\n");
	p = load_files(f, 2);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_irq_rules(p), 3);
	/* snd* keeps its place (first), with the later file's priority and source. */
	r = policy_irq_rule(p, 0);
	ck_assert_str_eq(r->pattern, "snd*");
	ck_assert_int_eq(r->priority, 60);
	ck_assert_str_eq(r->source.file, f[1]);
	ck_assert_uint_eq(r->source.line, 4);
	ck_assert_str_eq(policy_irq_rule(p, 1)->pattern, "xhci_hcd");
	ck_assert_str_eq(policy_irq_rule(p, 2)->pattern, "snd_usb*");
	ck_assert_int_eq(policy_irq_rule(p, 2)->priority, 95);
	/* So snd_usb_audio still matches snd* first. */
	ck_assert_int_eq(policy_irq_match(p, "snd_usb_audio")->priority, 60);
	ck_assert_ptr_eq(policy_irq_match(p, "snd_usb_audio"), policy_irq_rule(p, 0));
}
END_TEST

START_TEST(test_irq_pattern_with_colon)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *path;
	const PolicyIrqRule *r;

	/* The kernel names HDA interrupts "snd_hda_intel:card0": a pattern
	 * must be able to say which card: ':' is part of an [IRQ] pattern. */
	p = load_text("[IRQ]\nsnd_hda_intel:card1=70\nsnd_hda_intel:*=60\n", &path);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_irq_rules(p), 2);
	ck_assert_str_eq(policy_irq_rule(p, 0)->pattern, "snd_hda_intel:card1");
	r = policy_irq_match(p, "snd_hda_intel:card1");
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->priority, 70);
	ck_assert_int_eq(policy_irq_match(p, "snd_hda_intel:card0")->priority, 60);
}
END_TEST

START_TEST(test_irq_bad_values)
{
	assert_text_rejected("[IRQ]\nsnd*=90\nxhci_hcd=100\n", 3, "xhci_hcd");
	assert_text_rejected("[IRQ]\nsnd*=0\n", 2, "snd*");
	assert_text_rejected("[IRQ]\nsnd*=\n", 2, "snd*");
	assert_text_rejected("[IRQ]\nsnd*=high\n", 2, "high");
	assert_text_rejected("[IRQ]\nsnd*=-5\n", 2, NULL);
	/* An empty pattern matches no IRQ; it is a mistake, not a rule. */
	assert_text_rejected("[IRQ]\n=90\n", 2, NULL);
	/* The message names the pattern as written, ':' included. */
	assert_text_rejected("[IRQ]\nsnd_hda_intel:card0=0\n", 2, "snd_hda_intel:card0");
}
END_TEST

/* ----------------------------------------------------------------- grant */

static const char full_audio[] = "[Group #29]\n"
				 "RealtimePriority=95\n"
				 "Policies=fifo rr\n"
				 "Nice=-19\n"
				 "MemLock=infinity\n"
				 "RTTime=infinity\n"
				 "Capabilities=sys_nice ipc_lock\n"
				 "CompatPolicy=fifo\n";

START_TEST(test_grant_format)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const gid_t audio[] = { 29 };
	PolicyGrant g;

	p = load_text(full_default, NULL);
	eval(p, "x", 1, NULL, 0, &g);
	assert_format(&g, POLICY_KEY_REALTIME_PRIORITY, "20");
	assert_format(&g, POLICY_KEY_POLICIES, "rr");
	assert_format(&g, POLICY_KEY_NICE, "-15");
	assert_format(&g, POLICY_KEY_MEMLOCK, "64M");
	assert_format(&g, POLICY_KEY_RTTIME, "200ms");
	assert_format(&g, POLICY_KEY_CAPABILITIES, "");
	assert_format(&g, POLICY_KEY_COMPAT_POLICY, "rr");
	p = policy_free(p);

	p = load_text(full_audio, NULL);
	eval(p, "x", 1, audio, 1, &g);
	assert_format(&g, POLICY_KEY_REALTIME_PRIORITY, "95");
	assert_format(&g, POLICY_KEY_POLICIES, "fifo rr");
	assert_format(&g, POLICY_KEY_NICE, "-19");
	assert_format(&g, POLICY_KEY_MEMLOCK, "infinity");
	assert_format(&g, POLICY_KEY_RTTIME, "infinity");
	assert_format(&g, POLICY_KEY_CAPABILITIES, "sys_nice ipc_lock");
	assert_format(&g, POLICY_KEY_COMPAT_POLICY, "fifo");
}
END_TEST

START_TEST(test_grant_format_units)
{
	PolicyGrant g = {};

	g.memlock = 0;
	assert_format(&g, POLICY_KEY_MEMLOCK, "0");
	g.memlock = 1024;
	assert_format(&g, POLICY_KEY_MEMLOCK, "1K");
	g.memlock = UINT64_C(3) << 30;
	assert_format(&g, POLICY_KEY_MEMLOCK, "3G");
	g.memlock = UINT64_C(1) << 40;
	assert_format(&g, POLICY_KEY_MEMLOCK, "1024G");
	g.rttime_usec = 2000000;
	assert_format(&g, POLICY_KEY_RTTIME, "2s");
	g.rttime_usec = 500;
	assert_format(&g, POLICY_KEY_RTTIME, "500us");
	g.rttime_usec = 1500000;
	assert_format(&g, POLICY_KEY_RTTIME, "1500ms");
	g.policies = POLICY_SCHED_FIFO;
	assert_format(&g, POLICY_KEY_POLICIES, "fifo");
	g.capabilities = CAP(CAP_IPC_LOCK);
	assert_format(&g, POLICY_KEY_CAPABILITIES, "ipc_lock");
}
END_TEST

START_TEST(test_grant_format_roundtrip)
{
	static const uint64_t sizes[] = { 0,
					  1,
					  1023,
					  1024,
					  1025,
					  1536,
					  4096,
					  UINT64_C(1) << 20,
					  (UINT64_C(1) << 20) + 1,
					  UINT64_C(7) << 30,
					  UINT64_MAX - 1,
					  POLICY_INFINITY };
	static const uint64_t durations[] = { 0,
					      1,
					      999,
					      1000,
					      1001,
					      200000,
					      999999,
					      1000000,
					      1000001,
					      UINT64_C(86400) * 1000000,
					      UINT64_MAX - 1,
					      POLICY_INFINITY };
	PolicyGrant g = {};
	char buf[64];
	uint64_t v;

	/* What format prints, parse reads back to the same value. */
	for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
		g.memlock = sizes[i];
		ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_MEMLOCK, buf, sizeof(buf)), 0);
		ck_assert_msg(parse_size(buf, &v) == 0 && v == sizes[i], "%ju -> \"%s\"",
			      (uintmax_t)sizes[i], buf);
	}
	for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
		g.rttime_usec = durations[i];
		ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_RTTIME, buf, sizeof(buf)), 0);
		ck_assert_msg(parse_duration(buf, true, &v) == 0 && v == durations[i],
			      "%ju -> \"%s\"", (uintmax_t)durations[i], buf);
	}
	for (int n = -20; n <= 19; n++) {
		int i;

		g.nice = n;
		ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_NICE, buf, sizeof(buf)), 0);
		ck_assert_int_eq(parse_nice(buf, &i), 0);
		ck_assert_int_eq(i, n);
	}
}
END_TEST

START_TEST(test_grant_format_nobufs)
{
	PolicyGrant g = { .realtime_priority = 95,
			  .policies = POLICY_SCHED_FIFO | POLICY_SCHED_RR,
			  .memlock = POLICY_INFINITY };
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_REALTIME_PRIORITY, buf, 2), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_REALTIME_PRIORITY, buf, 0), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_REALTIME_PRIORITY, buf, 3), 0);
	ck_assert_str_eq(buf, "95");
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_POLICIES, buf, 7), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_POLICIES, buf, 8), 0);
	ck_assert_int_eq(policy_grant_format(&g, POLICY_KEY_MEMLOCK, buf, 8), -ENOBUFS);
	ck_assert_int_eq(policy_grant_format(&g, _POLICY_KEY_MAX, buf, sizeof(buf)), -EINVAL);
	ck_assert_int_eq(policy_grant_format(&g, _POLICY_KEY_INVALID, buf, sizeof(buf)), -EINVAL);
}
END_TEST

START_TEST(test_grant_rlimit)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	const gid_t audio[] = { 29 };
	PolicyGrant g;
	uint64_t v;

	p = load_text(full_default, NULL);
	eval(p, "x", 1, NULL, 0, &g);
	/* Policies=rr: RLIMIT_RTPRIO would open SCHED_FIFO too, so none */
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), 0);
	ck_assert_uint_eq(v, 0);
	/* The kernel's encoding: RLIMIT_NICE = 20 - nice. */
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 35);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_MEMLOCK, &v), 0);
	ck_assert_uint_eq(v, UINT64_C(64) << 20);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTTIME, &v), 0);
	ck_assert_uint_eq(v, 200000);
	p = policy_free(p);

	p = load_text(full_audio, NULL);
	eval(p, "x", 1, audio, 1, &g);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), 0);
	ck_assert_uint_eq(v, 95);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 39);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_MEMLOCK, &v), 0);
	ck_assert(v == RLIM_INFINITY);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTTIME, &v), 0);
	ck_assert(v == RLIM_INFINITY);

	g.nice = -20;
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 40);
	g.nice = 19;
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 1);
}
END_TEST

START_TEST(test_grant_rlimit_unset)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyGrant g;
	uint64_t v = 4242;

	p = load_text("[Default]\nNice=-5\n", NULL);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTPRIO, &v), -ENODATA);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_MEMLOCK, &v), -ENODATA);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_RTTIME, &v), -ENODATA);
	ck_assert_uint_eq(v, 4242);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NICE, &v), 0);
	ck_assert_uint_eq(v, 25);
	/* Resources policy has nothing to say about. */
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_NOFILE, &v), -EINVAL);
	ck_assert_int_eq(policy_grant_rlimit(&g, RLIMIT_CPU, &v), -EINVAL);
	ck_assert_uint_eq(v, 25);
}
END_TEST

/* The one rlimit table: each rlimit behind its key, named as the kernel's
 * /proc/PID/limits names it, and the ceiling before the rights. */
START_TEST(test_rlimit_table)
{
	char limits[4096];
	FILE *f;
	size_t n;

	f = fopen("/proc/self/limits", "re");
	ck_assert_ptr_nonnull(f);
	n = fread(limits, 1, sizeof(limits) - 1, f);
	limits[n] = '\0';
	fclose(f);

	static const struct {
		int resource;
		PolicyKey key;
	} want[POLICY_RLIMIT_MAX] = {
		{ RLIMIT_RTTIME, POLICY_KEY_RTTIME },
		{ RLIMIT_RTPRIO, POLICY_KEY_REALTIME_PRIORITY },
		{ RLIMIT_MEMLOCK, POLICY_KEY_MEMLOCK },
		{ RLIMIT_NICE, POLICY_KEY_NICE },
	};

	for (size_t i = 0; i < POLICY_RLIMIT_MAX; i++) {
		const PolicyRlimit *l = policy_rlimit(i);

		ck_assert_ptr_nonnull(l);
		ck_assert_int_eq(l->resource, want[i].resource);
		ck_assert_int_eq(l->key, want[i].key);
		ck_assert_msg(startswith(l->name, "RLIMIT_"), "%s", l->name);
		ck_assert_msg(strstr(limits, l->proc_name), "no \"%s\" in /proc/self/limits",
			      l->proc_name);
		ck_assert_ptr_nonnull(policy_key_to_string(l->key));
		/* only RLIMIT_RTTIME is a ceiling, and it comes first */
		ck_assert(l->ceiling == (l->resource == RLIMIT_RTTIME));
		ck_assert(l->ceiling == (i == 0));
	}
	ck_assert_ptr_null(policy_rlimit(POLICY_RLIMIT_MAX));
}
END_TEST

/* Two values of each key as a policy file writes them, the second the more
 * generous by the key's merge rule. A key added to the table without an
 * entry here fails test_key_table. */
static const struct {
	const char *less, *more;
} key_examples[_POLICY_KEY_MAX] = {
	[POLICY_KEY_REALTIME_PRIORITY] = { "20", "95" },
	[POLICY_KEY_POLICIES] = { "rr", "fifo rr" },
	[POLICY_KEY_NICE] = { "-5", "-19" },
	[POLICY_KEY_MEMLOCK] = { "64M", "infinity" },
	[POLICY_KEY_RTTIME] = { "200ms", "infinity" },
	[POLICY_KEY_CAPABILITIES] = { "sys_nice", "sys_nice ipc_lock" },
	[POLICY_KEY_COMPAT_POLICY] = { "rr", "fifo" },
};

/* Evaluates uid 7 with gids and checks key k's value and its line. */
static void assert_key_eval(const Policy *p, PolicyKey k, const gid_t *gids, size_t n_gids,
			    const char *want, unsigned line)
{
	PolicyGrant g;
	char buf[64];

	eval(p, "u", 7, gids, n_gids, &g);
	ck_assert_msg(g.set[k], "%s unset", policy_key_to_string(k));
	ck_assert_int_eq(policy_grant_format(&g, k, buf, sizeof(buf)), 0);
	ck_assert_msg(streq(buf, want), "%s=%s, want %s", policy_key_to_string(k), buf, want);
	ck_assert_uint_eq(g.source[k].line, line);
}

/* Walks the library's table of keys: every key is found by its name,
 * parses, formats back to what was written, merges by its rule, is beaten
 * by a [User] section, and says what it expects when a value is wrong. */
START_TEST(test_key_table)
{
	for (int k = 0; k < _POLICY_KEY_MAX; k++) {
		const PolicyItem *it = &policy_keys[k];
		const char *less = key_examples[k].less, *more = key_examples[k].more;
		_cleanup_(policy_freep) Policy *p = NULL;
		const gid_t one[] = { 1 }, two[] = { 2 }, both[] = { 2, 1 };
		char text[512], buf[64];
		const char *path;
		PolicyValue v;
		PolicyGrant g = {};

		ck_assert_msg(less && more, "no examples for key %d (%s)", k, it->name);
		for (int j = 0; j < k; j++)
			ck_assert_msg(policy_keys[j].offset != it->offset,
				      "%s and %s share a field", policy_keys[j].name, it->name);
		ck_assert_str_eq(policy_key_to_string(k), it->name);
		ck_assert_int_eq(policy_key_from_string(it->name), k);

		/* parse and format are each other's inverse */
		ck_assert_int_eq(it->parse(more, &v), 0);
		policy_value_store(it, &g, &v);
		ck_assert_int_eq(policy_grant_format(&g, k, buf, sizeof(buf)), 0);
		ck_assert_str_eq(buf, more);

		/* CompatPolicy=fifo holds only where Policies= allows fifo */
		snprintf(text, sizeof(text),
			 "[Group #1]\n%s=%s\n" /* 1, 2 */
			 "[Group #2]\n%s=%s\n" /* 3, 4 */
			 "[Default]\n%s\n",    /* 5, 6 */
			 it->name, more, it->name, less,
			 k == POLICY_KEY_POLICIES ? "" : "Policies=fifo");
		p = load_text(text, &path);
		assert_no_errors(p);
		/* the group alone, the more generous of two in either order */
		assert_key_eval(p, k, two, 1, less, 4);
		assert_key_eval(p, k, both, 2, more, 2);
		assert_key_eval(p, k, both + 1, 1, more, 2);
		p = policy_free(p);

		snprintf(text, sizeof(text), "[Group #2]\n%s=%s\n[Group #1]\n%s=%s\n%s\n", it->name,
			 less, it->name, more, k == POLICY_KEY_POLICIES ? "" : "Policies=fifo");
		p = load_text(text, NULL);
		assert_key_eval(p, k, both, 2, more, 4);
		p = policy_free(p);

		/* [User] beats [Group], even when less generous */
		snprintf(text, sizeof(text), "[Group #1]\n%s=%s\n[User #7]\n%s=%s\n", it->name,
			 more, it->name, less);
		p = load_text(text, NULL);
		assert_key_eval(p, k, one, 1, less, 4);
		p = policy_free(p);

		snprintf(text, sizeof(text), "[Default]\n%s=x!\n", it->name);
		assert_text_rejected(text, 2, it->expect);
	}
}
END_TEST

/* [Daemon]'s values, by key name; each differs from the key's default. */
static const struct {
	const char *name, *value;
} daemon_examples[] = {
	{ "RtkitCompat", "no" },
	{ "Polkit", "no" },
	{ "UsersMax", "10" },
	{ "ThreadsPerUserMax", "5" },
	{ "ProcessesPerUserMax", "3" },
	{ "BurstSec", "5" },
	{ "ActionsPerBurst", "7" },
	{ "Canary", "no" },
	{ "CanaryWatchdogSec", "500ms" },
	{ "CanaryRefuseSec", "1s" },
	{ "CanaryDemoteUnknown", "no" },
};

/* Walks the [Daemon] table: a policy without files has every key at its
 * initial value, and each key's value lands in its field. */
START_TEST(test_daemon_key_table)
{
	_cleanup_(policy_freep) Policy *empty = NULL;
	const char *none[] = {};

	empty = load_files(none, 0);
	ck_assert_uint_eq(policy_n_daemon_keys, ELEMENTSOF(daemon_examples));
	for (size_t i = 0; i < policy_n_daemon_keys; i++) {
		const PolicyItem *it = &policy_daemon_keys[i];
		_cleanup_(policy_freep) Policy *p = NULL;
		PolicyDaemon want = *policy_daemon(empty), start;
		PolicyValue v;
		const char *value = NULL;
		char text[256];

		for (size_t j = 0; j < ELEMENTSOF(daemon_examples); j++)
			if (streq(daemon_examples[j].name, it->name))
				value = daemon_examples[j].value;
		ck_assert_msg(value, "no example for [Daemon] %s", it->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(policy_daemon_keys[j].offset != it->offset,
				      "%s and %s share a field", policy_daemon_keys[j].name,
				      it->name);

		start = want;
		policy_value_store(it, &start, &it->initial);
		ck_assert_msg(memcmp(&start, &want, sizeof(want)) == 0,
			      "%s does not start at its initial value", it->name);

		snprintf(text, sizeof(text), "[Daemon]\n%s=%s\n", it->name, value);
		p = load_text(text, NULL);
		assert_no_errors(p);
		ck_assert_int_eq(it->parse(value, &v), 0);
		policy_value_store(it, &want, &v);
		ck_assert_msg(memcmp(&want, policy_daemon(p), sizeof(want)) == 0,
			      "%s=%s did not set its field, or set another", it->name, value);
		ck_assert_msg(memcmp(&want, policy_daemon(empty), sizeof(want)) != 0,
			      "%s=%s is its default", it->name, value);

		snprintf(text, sizeof(text), "[Daemon]\n%s=x!\n", it->name);
		assert_text_rejected(text, 2, it->expect);
	}
}
END_TEST

START_TEST(test_key_names)
{
	ck_assert_ptr_null(policy_key_to_string(_POLICY_KEY_MAX));
	ck_assert_ptr_null(policy_key_to_string(_POLICY_KEY_INVALID));
	ck_assert_int_eq(policy_key_from_string("realtimepriority"), _POLICY_KEY_INVALID);
	ck_assert_int_eq(policy_key_from_string("Canary"), _POLICY_KEY_INVALID);
	ck_assert_int_eq(policy_key_from_string(""), _POLICY_KEY_INVALID);
}
END_TEST

/* The shipped default policy must load cleanly and say what DESIGN.md says. */
START_TEST(test_shipped_policy)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	_cleanup_free_ char *text = NULL;
	const char *top = getenv("TOP_SRCDIR");
	char path[PATH_MAX];
	const char *f;
	const gid_t audio[] = { 4101, 29 }, plain[] = { 4102 };
	PolicyGrant g;
	FILE *in;
	size_t n;

	ck_assert_msg(top, "TOP_SRCDIR not set (run through meson test)");
	snprintf(path, sizeof(path), "%s/policy/realtime.conf", top);
	/* A copy of our own: the source tree may belong to another user than
	 * the one running the tests (root), or be group-writable. */
	in = fopen(path, "re");
	ck_assert_msg(in, "fopen(%s): %m", path);
	text = calloc(1, 1 << 16);
	ck_assert_ptr_nonnull(text);
	n = fread(text, 1, (1 << 16) - 1, in);
	ck_assert(feof(in) && n > 0);
	fclose(in);
	f = write_file("realtime.conf", text);
	p = load_files(&f, 1);
	assert_no_errors(p);

	eval(p, "rtplain", 4102, plain, 1, &g);
	ck_assert(!g.covered);
	ck_assert_int_eq(g.realtime_priority, 20);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -15);
	ck_assert_uint_eq(g.rttime_usec, 200000);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_RR);

	eval(p, "rtaudio", 4101, audio, 2, &g);
	ck_assert(g.covered);
	ck_assert_int_eq(g.realtime_priority, 95);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -19);
	ck_assert_uint_eq(g.memlock, POLICY_INFINITY);
	ck_assert_uint_eq(g.rttime_usec, POLICY_INFINITY);
	ck_assert_uint_eq(g.capabilities, 0);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);
	ck_assert_int_eq(policy_irq_match(p, "snd_hda_intel:card0")->priority, 90);
}
END_TEST

/* The EXAMPLES of realtime.conf(5), so the manual cannot drift from the code. */
/* Loading for one user keeps only their [User] and [Group] sections, and
 * must answer exactly as the full policy does: values, sources, files,
 * errors, [Daemon] and [IRQ]. Real NSS users: root, daemon, nobody. */
START_TEST(test_load_for_user)
{
	static const char *const users[] = { "root", "daemon", "nobody" };
	const char *files[2];

	files[0] =
		write_file("a.conf", "[Default]\nNice=-2\n"
				     "[User root]\nRealtimePriority=40\n"
				     "[Group #0]\nMemLock=1M\nPolicies=fifo\n"
				     "[Group root]\nMemLock=2M\n"
				     "[User #1]\nRTTime=5ms\n"
				     "[Group daemon]\nRealtimePriority=30\nCapabilities=sys_nice\n"
				     "[Group nogroup]\nNice=-9\n"
				     "[User nobody]\nCompatPolicy=fifo\nPolicies=fifo rr\n"
				     "[User someoneelse]\nRealtimePriority=99\n"
				     "[Daemon]\nUsersMax=7\n[IRQ]\nsnd*=80\n");
	files[1] = write_file("b.conf", "[User root]\nNice=-11\n[Group root]\nBogus=1\n");
	for (size_t i = 0; i < ELEMENTSOF(users); i++) {
		_cleanup_(policy_freep) Policy *full = NULL, *mine = NULL;
		PolicyUser *u = NULL;
		PolicyGrant a, b;

		if (policy_user_resolve(users[i], &u) == -ESRCH)
			continue; /* not every system has every user */
		ck_assert_ptr_nonnull(u);
		full = load_files(files, 2);
		ck_assert_int_eq(policy_load_files_for_user(files, 2, u, &mine), 0);
		ck_assert_int_eq(policy_eval_for_user(full, u, &a), 0);
		ck_assert_int_eq(policy_eval_for_user(mine, u, &b), 0);
		for (int k = 0; k < _POLICY_KEY_MAX; k++) {
			char va[64] = "", vb[64] = "";

			ck_assert_int_eq(a.set[k], b.set[k]);
			if (!a.set[k])
				continue;
			ck_assert_int_eq(policy_grant_format(&a, k, va, sizeof(va)), 0);
			ck_assert_int_eq(policy_grant_format(&b, k, vb, sizeof(vb)), 0);
			ck_assert_str_eq(va, vb);
			assert_source(&b, k, a.source[k].file, a.source[k].line,
				      a.source[k].section);
		}
		ck_assert_int_eq(a.covered, b.covered);
		ck_assert_uint_eq(policy_n_files(mine), 1);
		ck_assert_uint_eq(policy_n_errors(mine), 1);
		ck_assert_str_eq(policy_error(mine, 0)->message, policy_error(full, 0)->message);
		ck_assert_uint_eq(policy_daemon(mine)->users_max, 7);
		ck_assert_int_eq(policy_irq_match(mine, "snd_hda_intel:card0")->priority, 80);
		policy_user_free(u);
	}
	/* root's own rules hold: [User root] beats the groups */
	{
		_cleanup_(policy_freep) Policy *mine = NULL;
		PolicyUser *u = NULL;
		PolicyGrant g;

		ck_assert_int_eq(policy_user_resolve("root", &u), 0);
		ck_assert_int_eq(policy_load_files_for_user(files, 1, u, &mine), 0);
		ck_assert_int_eq(policy_eval_for_user(mine, u, &g), 0);
		ck_assert_int_eq(g.realtime_priority, 40);
		ck_assert_uint_eq(g.memlock, 2 * 1024 * 1024);
		ck_assert_int_eq(g.nice, -2);
		policy_user_free(u);
	}
	ck_assert_int_eq(policy_user_resolve("no-such-user-realtimed", &(PolicyUser *){ NULL }),
			 -ESRCH);
}
END_TEST

START_TEST(test_man_examples)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *alice;
	struct group *gr;
	gid_t gids[3] = { 4103 };
	PolicyGrant g;

	gr = getgrnam("audio");
	ck_assert_msg(gr, "no group 'audio' on this system");
	gids[1] = gr->gr_gid;
	gids[2] = 5000;

	write_file("usr/realtime.conf", "[Default]\n"
					"RealtimePriority=20\n"
					"Policies=rr\n"
					"Nice=-15\n"
					"MemLock=64M\n"
					"RTTime=200ms\n"
					"\n"
					"[Group audio]\n"
					"RealtimePriority=95\n"
					"Policies=fifo rr\n"
					"CompatPolicy=fifo\n"
					"Nice=-19\n"
					"MemLock=infinity\n"
					"RTTime=infinity\n"
					"\n"
					"[IRQ]\n"
					"snd*=90\n"
					"xhci_hcd=85\n");
	alice = write_file("etc/realtime.conf.d/50-alice.conf",
			   "[User alice]\nRealtimePriority=99\nMemLock=4G\n");
	write_file("etc/realtime.conf.d/60-ldap.conf", "[Group #5000]\n"
						       "RealtimePriority=90\n"
						       "Policies=fifo\n"
						       "\n"
						       "[Default]\n"
						       "RealtimePriority=0\n");
	write_file("etc/realtime.conf.d/70-irq.conf", "[IRQ]\nsnd*=80\nsnd_usb_audio=95\n");
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);

	/* alice, in audio: 99 and 4G from her file, the rest from [Group audio]. */
	eval(p, "alice", 4103, gids, 2, &g);
	ck_assert_int_eq(g.realtime_priority, 99);
	assert_source(&g, POLICY_KEY_REALTIME_PRIORITY, alice, 2, "User alice");
	ck_assert_uint_eq(g.memlock, UINT64_C(4) << 30);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	ck_assert_int_eq(g.nice, -19);
	ck_assert_uint_eq(g.rttime_usec, POLICY_INFINITY);
	ck_assert_uint_eq(g.compat_policy, POLICY_SCHED_FIFO);

	/* A member of audio and of group 5000: 95, fifo rr. */
	eval(p, "rtaudio", 4101, gids + 1, 2, &g);
	ck_assert_int_eq(g.realtime_priority, 95);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO | POLICY_SCHED_RR);
	/* Only group 5000: 90, fifo; the default RTTime still applies. */
	eval(p, "x", 4102, gids + 2, 1, &g);
	ck_assert_int_eq(g.realtime_priority, 90);
	ck_assert_uint_eq(g.policies, POLICY_SCHED_FIFO);
	ck_assert_uint_eq(g.rttime_usec, 200000);
	/* Anyone else: no realtime. */
	eval(p, "x", 4102, NULL, 0, &g);
	ck_assert_int_eq(g.realtime_priority, 0);

	/* snd*=80 replaced the vendor line in place; snd_usb_audio=95 never matches. */
	ck_assert_int_eq(policy_irq_match(p, "snd_hda_intel:card0")->priority, 80);
	ck_assert_int_eq(policy_irq_match(p, "snd_usb_audio")->priority, 80);
	ck_assert_int_eq(policy_irq_match(p, "xhci_hcd")->priority, 85);
}
END_TEST

static Suite *policy_suite(void)
{
	Suite *s = suite_create("policy");
	TCase *tc;

#define TC(name)                                                    \
	tc = tcase_create(name);                                    \
	tcase_add_unchecked_fixture(tc, case_setup, case_teardown); \
	tcase_add_checked_fixture(tc, setup, teardown);             \
	suite_add_tcase(s, tc)

	TC("eval");
	tcase_add_test(tc, test_default_only);
	tcase_add_test(tc, test_unset_keys);
	tcase_add_test(tc, test_empty_policy);
	tcase_add_test(tc, test_group_beats_default);
	tcase_add_test(tc, test_user_beats_group);
	tcase_add_test(tc, test_user_without_groups);
	tcase_add_test(tc, test_numeric_ids);
	tcase_add_test(tc, test_user_by_name_and_number);
	tcase_add_test(tc, test_group_by_name);
	tcase_add_test(tc, test_most_generous_group);
	tcase_add_test(tc, test_most_generous_group_order);
	tcase_add_test(tc, test_least_generous_group_alone);
	tcase_add_test(tc, test_compat_policy);
	tcase_add_test(tc, test_section_reopened);
	tcase_add_test(tc, test_repeated_key);
	tcase_add_test(tc, test_syntax_details);
	tcase_add_test(tc, test_section_header_spaces);
	tcase_add_test(tc, test_no_trailing_newline);
	tcase_add_test(tc, test_bom);
	tcase_add_test(tc, test_eval_uid_root);
	tcase_add_test(tc, test_eval_unknown_user);
	tcase_add_test(tc, test_shipped_policy);
	tcase_add_test(tc, test_man_examples);
	tcase_add_test(tc, test_load_for_user);

	TC("load");
	tcase_add_test(tc, test_files_in_order);
	tcase_add_test(tc, test_later_file_group_section);
	tcase_add_test(tc, test_load_tree_order);
	tcase_add_test(tc, test_dropin_c_locale_order);
	tcase_add_test(tc, test_dropins_after_main_files);
	tcase_add_test(tc, test_mask_with_empty_file);
	tcase_add_test(tc, test_mask_with_dev_null);
	tcase_add_test(tc, test_missing_files_are_fine);
	tcase_add_test(tc, test_empty_path_disables);
	tcase_add_test(tc, test_broken_admin_file_vendor_stays);
	tcase_add_test(tc, test_broken_file_among_files);
	tcase_add_test(tc, test_files_missing);
	tcase_add_test(tc, test_directory_as_file);
	tcase_add_test(tc, test_unreadable_file);
	tcase_add_test(tc, test_directory_as_dropin);

	TC("trust");
	tcase_add_test(tc, test_trust_writable_file);
	tcase_add_test(tc, test_trust_writable_dropin_dir);
	tcase_add_test(tc, test_trust_foreign_owner);
	tcase_add_test(tc, test_trust_symlink);
	tcase_add_test(tc, test_trust_dev_null);
	tcase_add_test(tc, test_trust_own_file_warns);

	TC("errors");
	tcase_add_test(tc, test_error_unknown_section);
	tcase_add_test(tc, test_error_bad_numeric_id);
	tcase_add_test(tc, test_error_unknown_key);
	tcase_add_test(tc, test_error_bad_value);
	tcase_add_test(tc, test_error_later_line);
	tcase_add_test(tc, test_error_key_outside_section);
	tcase_add_test(tc, test_error_syntax);
	tcase_add_test(tc, test_error_long_line);
	tcase_add_test(tc, test_long_line_limit);
	tcase_add_test(tc, test_error_long_last_line);
	tcase_add_test(tc, test_error_nul_byte);
	tcase_add_test(tc, test_error_indented_continuation);
	tcase_add_test(tc, test_error_bom_unknown_section);
	tcase_add_test(tc, test_error_file_too_large);
	tcase_add_test(tc, test_error_fifo_dropin);
	tcase_add_test(tc, test_error_first_of_many);

	TC("daemon");
	tcase_add_test(tc, test_daemon_defaults);
	tcase_add_test(tc, test_daemon_keys);
	tcase_add_test(tc, test_daemon_bad_values);
	tcase_add_test(tc, test_daemon_broken_file_keeps_defaults);

	TC("irq");
	tcase_add_test(tc, test_irq_rules);
	tcase_add_test(tc, test_irq_later_file_replaces_in_place);
	tcase_add_test(tc, test_irq_pattern_with_colon);
	tcase_add_test(tc, test_blanks);
	tcase_add_test(tc, test_irq_bad_values);

	TC("grant");
	tcase_add_test(tc, test_grant_format);
	tcase_add_test(tc, test_grant_format_units);
	tcase_add_test(tc, test_grant_format_roundtrip);
	tcase_add_test(tc, test_grant_format_nobufs);
	tcase_add_test(tc, test_grant_rlimit);
	tcase_add_test(tc, test_grant_rlimit_unset);
	tcase_add_test(tc, test_rlimit_table);
	tcase_add_test(tc, test_key_names);
	tcase_add_test(tc, test_key_table);
	tcase_add_test(tc, test_daemon_key_table);
#undef TC

	return s;
}

int main(void)
{
	/* The files the tests write must pass the trust rule whatever umask
	 * the caller has (002 is common for users with a group of their own). */
	umask(022);
	return check_run(policy_suite());
}
