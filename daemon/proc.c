// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc readers and their pure parsers; see proc.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "parse.h"
#include "proc.h"

int proc_parse_stat_start_time(const char *line, uint64_t *ret)
{
	const char *p = strrchr(line, ')');
	uint64_t v = 0;
	int r;

	if (!p)
		return -EINVAL;
	p++;
	/* After the comm come fields 3 (state) .. ; starttime is field 22. */
	for (int field = 3; field < 22; field++) {
		while (*p == ' ')
			p++;
		if (!*p)
			return -EINVAL;
		while (*p && *p != ' ')
			p++;
	}
	while (*p == ' ')
		p++;
	r = parse_decimal_prefix(p, UINT64_MAX, &v, NULL);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int proc_parse_status_uids(const char *text, ProcUids *ret)
{
	const char *p = text;
	uint64_t ids[3];
	int r;

	for (;;) {
		const char *v = startswith(p, "Uid:");

		if (v) {
			for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
				while (*v == '\t' || *v == ' ')
					v++;
				r = parse_decimal_prefix(v, UINT32_MAX, &ids[i], &v);
				if (r < 0)
					return r;
			}
			*ret = (ProcUids){ (uid_t)ids[0], (uid_t)ids[1], (uid_t)ids[2] };
			return 0;
		}
		p = strchr(p, '\n');
		if (!p)
			return -EINVAL;
		p++;
	}
}

static int parse_limit_value(const char *s, const char **ret_end, uint64_t *ret)
{
	const char *v = startswith(s, "unlimited");

	if (v) {
		*ret = UINT64_MAX;
		*ret_end = v;
		return 0;
	}
	return parse_decimal_prefix(s, UINT64_MAX, ret, ret_end);
}

int proc_parse_limit(const char *text, const char *name, uint64_t *ret_soft, uint64_t *ret_hard)
{
	const char *p = text;
	uint64_t soft = 0, hard = 0;
	int r;

	for (;;) {
		const char *v = startswith(p, name);

		if (v && *v == ' ') {
			while (*v == ' ')
				v++;
		}
		/* "Max realtime" is also the start of "Max realtime priority": a
		 * name must be followed by its value, not by more words. */
		if (v && (isdigit((unsigned char)*v) || startswith(v, "unlimited"))) {
			r = parse_limit_value(v, &v, &soft);
			if (r < 0)
				return r;
			while (*v == ' ')
				v++;
			r = parse_limit_value(v, &v, &hard);
			if (r < 0)
				return r;
			*ret_soft = soft;
			*ret_hard = hard;
			return 0;
		}
		p = strchr(p, '\n');
		if (!p)
			return -ENOENT;
		p++;
	}
}

int proc_read_file(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	size_t n = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while (n < size - 1) {
		ssize_t k = read(fd, buf + n, size - 1 - n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return errno == ESRCH ? -ESRCH : -errno;
		}
		n += k;
		/* A /proc record comes whole in one read when it fits: a short
		 * read is the end, which saves a read() per file on the grant path. */
		if (k == 0 || (size_t)k < size - 1 - (n - k))
			break;
	}
	buf[n] = 0;
	return (int)n;
}

static void proc_path(char *buf, size_t size, const char *proc, pid_t pid, pid_t tid,
		      const char *file)
{
	if (tid > 0)
		snprintf(buf, size, "%s/%d/task/%d/%s", proc, (int)pid, (int)tid, file);
	else
		snprintf(buf, size, "%s/%d/%s", proc, (int)pid, file);
}

int proc_get_start_time(const char *proc, pid_t pid, pid_t tid, uint64_t *ret)
{
	char path[128], buf[1024];
	int r;

	proc_path(path, sizeof(path), proc, pid, tid, "stat");
	r = proc_read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return proc_parse_stat_start_time(buf, ret);
}

int proc_get_uids(const char *proc, pid_t pid, pid_t tid, ProcUids *ret)
{
	char path[128], buf[4096];
	int r;

	proc_path(path, sizeof(path), proc, pid, tid, "status");
	r = proc_read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return proc_parse_status_uids(buf, ret);
}

int proc_get_comm(const char *proc, pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[128];
	int r;

	proc_path(path, sizeof(path), proc, pid, tid, "comm");
	r = proc_read_file(path, buf, size);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int proc_thread_of(const char *proc, pid_t pid, pid_t tid)
{
	char path[128];
	struct stat st;

	if (pid <= 0 || tid <= 0)
		return -ESRCH;
	proc_path(path, sizeof(path), proc, pid, tid, "");
	if (stat(path, &st) < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return 0;
}

int proc_get_limit(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		   uint64_t *ret_hard)
{
	char path[128], buf[4096];
	int r;

	proc_path(path, sizeof(path), proc, pid, 0, "limits");
	r = proc_read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return proc_parse_limit(buf, name, ret_soft, ret_hard);
}
