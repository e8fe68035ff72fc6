// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc readers and their pure parsers; see proc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parse.h"
#include "proc.h"
#include "procfs-limits.h"
#include "procfs-stat.h"

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

int proc_get_uids(const char *proc, pid_t pid, pid_t tid, ProcUids *ret)
{
	char buf[4096];
	int r;

	r = procfs_read_task_file(proc, pid, tid, "status", buf, sizeof(buf));
	if (r < 0)
		return r;
	return proc_parse_status_uids(buf, ret);
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
