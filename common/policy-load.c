// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading: which files are read, in which order (vendor file, admin file,
 * drop-ins with their masks), whether they may be trusted, and reading
 * each one whole before it is parsed and applied. See policy.h for the
 * rules.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "config.h"
#include "policy-internal.h"

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
			p, path, 0,
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
	FileParse fp = { .kind = _SECTION_KIND_INVALID, .only = p->only, .all_errors = p->check };
	const char *file;
	struct stat st = {}; /* = {}: -O2 cannot see file_open() fill it */
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

	policy_file_parse(&fp, data, size);
	if (fp.oom) {
		policy_file_parse_done(&fp);
		return -ENOMEM;
	}
	if (fp.n_errors > 0) {
		for (size_t i = 0; r >= 0 && i < fp.n_errors; i++)
			r = policy_add_error(p, path, fp.errors[i].line, "%s",
					     fp.errors[i].message);
		if (r >= 0 && fp.errors_truncated)
			r = policy_add_error(p, path, 0,
					     "more than %u errors; the rest are not shown",
					     POLICY_FILE_ERRORS_MAX);
		if (r >= 0)
			r = policy_warn_rejected(p, path, &fp);
	} else {
		r = policy_add_path(p, path, &file);
		if (r >= 0)
			r = policy_apply(p, file, &fp);
		if (r >= 0)
			r = policy_accept_last(p);
		/* only for a file that is in force: a rejected one has its error */
		if (r >= 0 && trust == TRUST_CALLER)
			r = policy_add_untrusted(p, path, &st, trust, NULL);
	}
	policy_file_parse_done(&fp);
	return r < 0 ? r : 0;
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
		if (asprintf(&vendor, "%s/%s", vendor_dir, names[i]) < 0) {
			vendor = NULL;
			r = -ENOMEM;
			break;
		}
		/* An /etc drop-in masks the vendor drop-in of the same name. */
		if (admin && access(admin, F_OK) == 0) {
			r = policy_load_one(p, admin, true);
			if (r >= 0 && p->check && !isempty(vendor_dir) && access(vendor, F_OK) == 0)
				r = policy_add_warning(
					p, admin, 0,
					"masks the vendor drop-in %s: nothing of that "
					"file is read (remove %s to read it again)",
					vendor, admin);
			continue;
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
				const PolicyUser *u, bool check, Policy **ret)
{
	Policy *p;
	int r;

	r = policy_new(&p);
	if (r < 0)
		return r;
	p->only = u;
	p->check = check;
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
	return policy_load_internal(paths ? paths : &default_paths, NULL, 0, NULL, false, ret);
}

int policy_load_files(const char *const *files, size_t n_files, Policy **ret)
{
	return policy_load_internal(NULL, files, n_files, NULL, false, ret);
}

int policy_load_for_user(const PolicyPaths *paths, const PolicyUser *u, Policy **ret)
{
	return policy_load_internal(paths ? paths : &default_paths, NULL, 0, u, false, ret);
}

int policy_load_files_for_user(const char *const *files, size_t n_files, const PolicyUser *u,
			       Policy **ret)
{
	return policy_load_internal(NULL, files, n_files, u, false, ret);
}

int policy_load_check(const PolicyPaths *paths, Policy **ret)
{
	return policy_load_internal(paths ? paths : &default_paths, NULL, 0, NULL, true, ret);
}

int policy_load_files_check(const char *const *files, size_t n_files, Policy **ret)
{
	return policy_load_internal(NULL, files, n_files, NULL, true, ret);
}
