// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "parse.h"
#include "proc.h"
#include "procfs-limits.h"
#include "procfs-stat.h"

/* What follows key at the start of a line of text, or NULL. */
static const char *status_line(const char *text, const char *key)
{
	const char *p = text;

	for (;;) {
		const char *v = startswith(p, key);

		if (v)
			return v;
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
}

int proc_parse_status_uids(const char *text, ProcUids *ret)
{
	const char *v = status_line(text, "Uid:");
	uint64_t ids[3];
	int r;

	if (!v)
		return -EINVAL;
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

int proc_parse_status_nspid(const char *text, ProcNspid *ret)
{
	const char *v = status_line(text, "NSpid:");
	ProcNspid ns = {};
	uint64_t id;
	int r;

	if (!v)
		return -EINVAL;
	while (*v == '\t') {
		if (ns.n == PROC_NSPID_MAX)
			return -EINVAL;
		r = parse_decimal_prefix(v + 1, INT_MAX, &id, &v);
		if (r < 0)
			return r;
		if (id == 0)
			return -EINVAL;
		ns.ids[ns.n++] = (pid_t)id;
	}
	if (ns.n == 0 || *v != '\n')
		return -EINVAL;
	*ret = ns;
	return 0;
}

int proc_get_uids(const char *proc, pid_t pid, pid_t tid, ProcUids *ret)
{
	char buf[4096];
	int r;

	r = procfs_read_task_file(proc, pid, tid, "status", buf, sizeof(buf));
	if (r < 0)
		return r;
	return proc_parse_status_uids(buf, ret);
}

int proc_get_nspid(const char *proc, pid_t pid, pid_t tid, ProcNspid *ret)
{
	/* the line comes after Groups:, which a user of many groups makes long */
	char buf[16384];
	int r;

	r = procfs_read_task_file(proc, pid, tid, "status", buf, sizeof(buf));
	if (r < 0)
		return r;
	return proc_parse_status_nspid(buf, ret);
}

int proc_get_pidns(const char *proc, pid_t pid, uint64_t *ret)
{
	char path[PATH_MAX], link[64];
	const char *v, *end;
	uint64_t ino;
	ssize_t n;
	int r;

	if (pid > 0)
		snprintf(path, sizeof(path), "%s/%d/ns/pid", proc, (int)pid);
	else
		snprintf(path, sizeof(path), "%s/self/ns/pid", proc);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	link[n] = 0;
	v = startswith(link, "pid:[");
	if (!v)
		return -EINVAL;
	r = parse_decimal_prefix(v, UINT64_MAX, &ino, &end);
	if (r < 0)
		return r;
	if (!streq(end, "]"))
		return -EINVAL;
	*ret = ino;
	return 0;
}

int proc_get_comm(const char *proc, pid_t pid, pid_t tid, char *buf, size_t size)
{
	int r;

	r = procfs_read_task_file(proc, pid, tid, "comm", buf, size);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int proc_get_limit(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		   uint64_t *ret_hard)
{
	return procfs_limits_read(proc, pid, name, ret_soft, ret_hard);
}
