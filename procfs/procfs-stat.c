// SPDX-License-Identifier: GPL-2.0-or-later
/* Task stat files and scheduling policy names; see procfs-stat.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "parse.h"
#include "procfs-stat.h"

/* The numeric fields ProcfsStat holds (proc(5)'s numbers), each with the
 * largest value it may have; nice (19) alone may be negative. */
static const uint64_t field_max[] = {
	[9] = UINT_MAX,	  /* flags */
	[19] = INT_MAX,	  /* nice */
	[22] = INT64_MAX, /* starttime */
	[39] = INT_MAX,	  /* processor */
	[40] = INT_MAX,	  /* rt_priority */
	[41] = INT_MAX,	  /* policy */
};
#define STAT_LAST_FIELD (ELEMENTSOF(field_max) - 1)

/* The number that is the whole of field n, [s, end). */
static int parse_field(unsigned n, const char *s, const char *end, int64_t *ret)
{
	bool negative = n == 19 && *s == '-';
	const char *e;
	uint64_t v;
	int r;

	r = parse_decimal_prefix(s + negative, field_max[n], &v, &e);
	if (r < 0)
		return r;
	if (e != end)
		return -EINVAL;
	*ret = negative ? -(int64_t)v : (int64_t)v;
	return 0;
}

int procfs_stat_parse(const char *line, ProcfsStat *ret)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')'), *p;
	int64_t v[STAT_LAST_FIELD + 1] = {};
	unsigned n_fields = 2;
	char state = 0;

	if (!open || !close || close < open)
		return -EINVAL;
	p = close + 1;
	for (unsigned field = 3; field <= STAT_LAST_FIELD; field++) {
		const char *start;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		start = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		if (field == 3)
			state = *start;
		else if (field_max[field] && parse_field(field, start, p, &v[field]) < 0)
			return -EINVAL;
		n_fields = field;
	}
	*ret = (ProcfsStat){ .n_fields = n_fields,
			     .state = state,
			     .flags = (unsigned)v[9],
			     .nice = (int)v[19],
			     .start_time = (uint64_t)v[22],
			     .processor = (int)v[39],
			     .rt_priority = (int)v[40],
			     .policy = (int)v[41] };
	snprintf(ret->comm, sizeof(ret->comm), "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

int procfs_read_file(const char *path, char *buf, size_t size)
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

int procfs_read_task_file(const char *proc, pid_t pid, pid_t tid, const char *file, char *buf,
			  size_t size)
{
	char path[128];

	if (tid > 0)
		snprintf(path, sizeof(path), "%s/%d/task/%d/%s", proc, (int)pid, (int)tid, file);
	else
		snprintf(path, sizeof(path), "%s/%d/%s", proc, (int)pid, file);
	return procfs_read_file(path, buf, size);
}

int procfs_stat_read(const char *proc, pid_t pid, pid_t tid, ProcfsStat *ret)
{
	/* 52 fields of at most 20 digits and a comm of 128 bytes fit */
	char buf[2048];
	int r;

	r = procfs_read_task_file(proc, pid, tid, "stat", buf, sizeof(buf));
	if (r < 0)
		return r;
	return procfs_stat_parse(buf, ret);
}

int procfs_start_time(const char *proc, pid_t pid, pid_t tid, uint64_t *ret)
{
	ProcfsStat s;
	int r;

	r = procfs_stat_read(proc, pid, tid, &s);
	if (r < 0)
		return r;
	if (s.n_fields < 22)
		return -EINVAL;
	*ret = s.start_time;
	return 0;
}

const char *procfs_sched_policy_to_string(int policy)
{
	switch (policy) {
	case SCHED_OTHER:
		return "other";
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	case SCHED_BATCH:
		return "batch";
	case SCHED_IDLE:
		return "idle";
	case 6: /* SCHED_DEADLINE, not in every libc's headers */
		return "deadline";
	}
	return "unknown";
}

int procfs_sched_policy_from_string(const char *s)
{
	static const int policies[] = { SCHED_OTHER, SCHED_FIFO, SCHED_RR,
					SCHED_BATCH, SCHED_IDLE, 6 };

	for (size_t i = 0; i < ELEMENTSOF(policies); i++)
		if (streq(s, procfs_sched_policy_to_string(policies[i])))
			return policies[i];
	return -EINVAL;
}
