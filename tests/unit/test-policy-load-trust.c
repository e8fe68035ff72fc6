// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the trust rule of common/policy-load.c ("Trust" in
 * policy.h): a file or drop-in directory that the group or others may
 * write, or that another user owns, is rejected with the commands that fix
 * it; a symlink counts by its target; the null device is an empty file;
 * the caller's own file is read with a warning. The tests that need
 * another owner run as root and drop to nobody in a child.
 */
#include <check.h>
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
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
	return tformat("%s %s", cmd, path);
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
	static const EvalCase main_files_only = { "x", 1, .covered = -1,
						  .want = { { "", POLICY_KEY_NICE, -2 },
							    { "", POLICY_KEY_MEMLOCK, 1 << 20 },
							    { KEY_UNSET,
							      POLICY_KEY_REALTIME_PRIORITY },
							    { KEY_UNSET, POLICY_KEY_RTTIME } } };
	static const EvalCase admin_dropins_too = { "x", 1, .covered = -1,
						    .want = { { KEY_UNSET,
								POLICY_KEY_REALTIME_PRIORITY },
							      { "", POLICY_KEY_RTTIME, 5000 } } };
	_cleanup_(policy_freep) Policy *p = NULL;
	PolicyPaths paths = tree_paths();
	const char *vendor, *admin;

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
	assert_eval(p, NULL, &main_files_only);
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
	assert_eval(p, NULL, &admin_dropins_too);
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

int main(void)
{
	Suite *s = suite_create("policy-load-trust");

	policy_test_case(s, "trust",
			 CHECK_TESTS(test_trust_writable_file, test_trust_writable_dropin_dir,
				     test_trust_foreign_owner, test_trust_symlink,
				     test_trust_dev_null, test_trust_own_file_warns));
	return policy_test_run(s);
}
