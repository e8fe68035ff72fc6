/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading under the root prefix for the checks (ctl-check.h): every path a
 * check reads goes through here, so a unit test points them all at a
 * canned tree. Files are read whole and never block (O_NONBLOCK).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl-check.h"

char *check_path(const CheckContext *c, const char *path)
{
	char *p;

	if (asprintf(&p, "%s%s", c->root ?: "", path) < 0)
		return NULL;
	return p;
}

int check_read(const CheckContext *c, const char *path, char **ret)
{
	_cleanup_free_ char *full = check_path(c, path), *buf = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	size_t allocated = 0;
	ssize_t n;
	int fd;

	if (!full)
		return -ENOMEM;
	/* O_NONBLOCK: nothing under the root may make a check hang */
	fd = open(full, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	/* the files read are text: the whole of it, up to a NUL if any */
	errno = 0;
	n = getdelim(&buf, &allocated, '\0', f);
	if (n < 0) {
		if (errno)
			return -errno;
		n = 0; /* empty */
		if (!buf && !(buf = malloc(1)))
			return -ENOMEM;
	}
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

/* The session's file name ("limits", "status", "cgroup") under /proc/self
 * or /proc/PID; ret_path: its path, for a skip. */
int check_read_session(const CheckContext *c, const char *name, char *ret_path, size_t size,
		       char **ret)
{
	if (c->pid < 0) {
		snprintf(ret_path, size, "/proc/PID/%s", name);
		return -ESRCH;
	}
	if (c->pid > 0)
		snprintf(ret_path, size, "/proc/%d/%s", (int)c->pid, name);
	else
		snprintf(ret_path, size, "/proc/self/%s", name);
	return check_read(c, ret_path, ret);
}

int check_read_long(const CheckContext *c, const char *path, long long *ret)
{
	_cleanup_free_ char *s = NULL;
	char *end;
	long long v;
	int r;

	r = check_read(c, path, &s);
	if (r < 0)
		return r;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -EBADMSG;
	*ret = v;
	return 0;
}

DIR *check_opendir(const CheckContext *c, const char *path)
{
	_cleanup_free_ char *full = check_path(c, path);

	if (!full) {
		errno = ENOMEM;
		return NULL;
	}
	return opendir(full);
}

bool check_exists(const CheckContext *c, const char *path)
{
	_cleanup_free_ char *full = check_path(c, path);

	return full && access(full, F_OK) == 0;
}

pid_t check_find_process(const CheckContext *c, const char *comm)
{
	DIR *d = check_opendir(c, "/proc");
	struct dirent *de;
	pid_t found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *name = NULL;

		if (!isdigit((unsigned char)de->d_name[0]) ||
		    asprintf(&path, "/proc/%s/comm", de->d_name) < 0)
			continue;
		if (check_read(c, path, &name) >= 0 && streq(name, comm))
			found = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return found;
}
