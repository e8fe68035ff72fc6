// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for common/policy-load.c: which files are read and in which
 * order (vendor file, admin file, drop-ins in C-locale order, an admin
 * drop-in masking the vendor one), what a missing, empty, unreadable or
 * broken file does to the others, and "" disabling a path. The trust rule
 * has its own file, test-policy-load-trust.c.
 */
#include <check.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-main.h"
#include "macro.h"
#include "policy-fixture.h"
#include "policy.h"

/* Writes texts[i] to "i+1.conf" (ret_paths[i] its path) and loads them,
 * in that order, with policy_load_files(). */
static Policy *load_numbered(const char *const *texts, size_t n, const char **ret_paths)
{
	char name[32];

	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%zu.conf", i + 1);
		ret_paths[i] = write_file(name, texts[i]);
	}
	return load_files(ret_paths, n);
}

START_TEST(test_files_in_order)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	/* A later file overrides even with a less generous value. */
	static const char *const texts[] = {
		"[Default]\nRealtimePriority=10\nNice=-5\nMemLock=1G\n",
		"[Default]\n\nRealtimePriority=30\n", "[Default]\nMemLock=1M\n"
	};
	static const EvalCase want = {
		"x", 1, .covered = -1,
		.want = { { "Default", POLICY_KEY_REALTIME_PRIORITY, 30, 3, "2.conf" },
			  { "Default", POLICY_KEY_NICE, -5, 3, "1.conf" },
			  { "Default", POLICY_KEY_MEMLOCK, 1 << 20, 2, "3.conf" } }
	};
	const char *f[3];

	p = load_numbered(texts, 3, f);
	assert_no_errors(p);
	ck_assert_uint_eq(policy_n_files(p), 3);
	for (size_t i = 0; i < 3; i++)
		ck_assert_str_eq(policy_file(p, i), f[i]);
	ck_assert_ptr_null(policy_file(p, 3));
	assert_eval(p, NULL, &want);
}
END_TEST

START_TEST(test_later_file_group_section)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	static const char *const texts[] = { "[Group #29]\nRealtimePriority=95\nNice=-19\n",
					     "[Group #29]\nRealtimePriority=80\n" };
	static const EvalCase want = { "x",
				       1,
				       { 29 },
				       1,
				       -1,
				       { { "Group #29", POLICY_KEY_REALTIME_PRIORITY, 80, 2,
					   "2.conf" },
					 { "Group #29", POLICY_KEY_NICE, -19, 3, "1.conf" } } };
	const char *f[2];

	p = load_numbered(texts, 2, f);
	assert_eval(p, NULL, &want);
}
END_TEST

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

#define PRIO POLICY_KEY_REALTIME_PRIORITY
#define UNSET(k)             \
	{                    \
		KEY_UNSET, k \
	}

/* A tree of files under tree_paths() (a NULL content: a symlink to
 * /dev/null), perhaps with the vendor file or the admin drop-in directory
 * disabled by "", that loads with no error: how many files it accepts
 * (-1: not checked), and what it grants user "x". */
static const struct {
	const char *files[4][2];
	bool no_vendor_file, no_admin_dropins;
	int n_files;
	KeyWant want[8];
} trees[] = {
	/* Even a vendor drop-in comes after the admin file. */
	{ .files = { { "etc/realtime.conf", "[Default]\nRealtimePriority=50\n" },
		     { "usr/realtime.conf.d/00-vendor.conf", "[Default]\nRealtimePriority=40\n" } },
	  .n_files = 2,
	  .want = { { "Default", PRIO, 40, 2, "usr/realtime.conf.d/00-vendor.conf" } } },
	/* An empty /etc drop-in masks a vendor drop-in, even a broken one. */
	{ .files = { { "usr/realtime.conf.d/60-x.conf", "[Default]\nRealtimePriority=60\n" },
		     { "usr/realtime.conf.d/70-broken.conf", "[Default]\nNoSuchKey=1\n" },
		     { "etc/realtime.conf.d/60-x.conf", "" },
		     { "etc/realtime.conf.d/70-broken.conf", "# fixed locally\n" } },
	  .n_files = 2,
	  .want = { UNSET(PRIO) } },
	/* The systemd idiom: a symlink to /dev/null masks a vendor drop-in. */
	{ .files = { { "usr/realtime.conf.d/60-x.conf", "[Default]\nRealtimePriority=60\n" },
		     { "etc/realtime.conf.d/keep", "" },
		     { "etc/realtime.conf.d/60-x.conf", NULL } },
	  .n_files = -1,
	  .want = { UNSET(PRIO) } },
	/* No file at all is fine: nothing set. */
	{ .n_files = 0,
	  .want = { UNSET(PRIO), UNSET(POLICY_KEY_POLICIES), UNSET(POLICY_KEY_NICE),
		    UNSET(POLICY_KEY_MEMLOCK), UNSET(POLICY_KEY_RTTIME),
		    UNSET(POLICY_KEY_CAPABILITIES), UNSET(POLICY_KEY_COMPAT_POLICY) } },
	/* "" disables a path. */
	{ .files = { { "usr/realtime.conf", "[Default]\nRealtimePriority=1\n" },
		     { "etc/realtime.conf", "[Default]\nNice=-2\n" },
		     { "usr/realtime.conf.d/a.conf", "[Default]\nMemLock=3K\n" },
		     { "etc/realtime.conf.d/b.conf", "[Default]\nRTTime=4ms\n" } },
	  .no_vendor_file = true,
	  .no_admin_dropins = true,
	  .n_files = 2,
	  .want = { UNSET(PRIO),
		    { "", POLICY_KEY_NICE, -2 },
		    { "", POLICY_KEY_MEMLOCK, 3072 },
		    UNSET(POLICY_KEY_RTTIME) } },
};

START_TEST(test_tree)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	EvalCase c;

	for (size_t i = 0; i < ELEMENTSOF(trees[_i].files) && trees[_i].files[i][0]; i++) {
		const char *rel = trees[_i].files[i][0], *content = trees[_i].files[i][1];

		if (content)
			write_file(rel, content);
		else
			ck_assert_int_eq(symlink("/dev/null", tpath(rel)), 0);
	}
	if (trees[_i].no_vendor_file)
		paths.vendor_file = "";
	if (trees[_i].no_admin_dropins)
		paths.admin_dropin_dir = "";
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_no_errors(p);
	if (trees[_i].n_files >= 0)
		ck_assert_int_eq(policy_n_files(p), trees[_i].n_files);
	c = (EvalCase){ .user = "x", .uid = 1, .covered = -1 };
	memcpy(c.want, trees[_i].want, sizeof(c.want));
	assert_eval(p, NULL, &c);
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
	static const char *const texts[] = { "[Default]\nRealtimePriority=10\n",
					     "[Default]\nRealtimePriority=99\nNice=-20\n[Bogus]\n",
					     "[Default]\nNice=-3\n",
					     "[IRQ]\nsnd*=90\n[Default]\nMemLock=lots\n" };
	const char *f[4];
	PolicyGrant g;

	p = load_numbered(texts, 4, f);
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

/* A drop-in that cannot be read as a file is reported (at line 0), the
 * others load: a directory; a FIFO, which must not hang the loader (and
 * with it every login through pam_realtime): the test's timeout catches a
 * hang. */
START_TEST(test_unreadable_dropin)
{
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *bad = tpath("etc/realtime.conf.d/10-bad.conf"), *ok;
	PolicyGrant g;

	ok = write_file("etc/realtime.conf.d/20-ok.conf", "[Default]\nNice=-6\n");
	if (_i == 0)
		write_file("etc/realtime.conf.d/10-bad.conf/inner", "");
	else
		ck_assert_int_eq(mkfifo(bad, 0644), 0);
	ck_assert_int_eq(policy_load(&paths, &p), 0);
	assert_rejected(p, bad, 0, NULL);
	ck_assert_uint_eq(policy_n_files(p), 1);
	ck_assert_str_eq(policy_file(p, 0), ok);
	eval(p, "x", 1, NULL, 0, &g);
	ck_assert_int_eq(g.nice, -6);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("policy-load");
	const TTest *const *tests =
		CHECK_TESTS(test_files_in_order, test_later_file_group_section,
			    test_load_tree_order, test_dropin_c_locale_order,
			    test_broken_admin_file_vendor_stays, test_broken_file_among_files,
			    test_files_missing, test_directory_as_file, test_unreadable_file);
	TCase *tc = policy_test_case(s, "load", tests);

	tcase_add_loop_test(tc, test_tree, 0, ELEMENTSOF(trees));
	tcase_add_loop_test(tc, test_unreadable_dropin, 0, 2);
	return policy_test_run(s);
}
