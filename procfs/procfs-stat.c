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

/* The last field ProcfsStat holds. */
#define STAT_LAST_FIELD 41

/* The number that is the whole of the field [s, end): unsigned up to max,
 * or, when negative_ok, with a leading '-' down to -max. */
static int parse_field(const char *s, const char *end, uint64_t max, bool negative_ok, int64_t *ret)
{
	bool negative = negative_ok && *s == '-';
	const char *e;
	uint64_t v;
	int r;

	r = parse_decimal_prefix(s + negative, max, &v, &e);
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
	ProcfsStat s = { .n_fields = 2 };

	if (!open || !close || close < open)
		return -EINVAL;
	snprintf(s.comm, sizeof(s.comm), "%.*s", (int)(close - open - 1), open + 1);

	p = close + 1;
	for (unsigned field = 3; field <= STAT_LAST_FIELD; field++) {
		const char *start;
		int64_t v = 0;
		int r = 0;

		while (*p == ' ')
			p++;
		if (!*p || *p == '\n')
			break;
		start = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		s.n_fields = field;
		switch (field) {
		case 3:
			s.state = *start;
			break;
		case 9:
			r = parse_field(start, p, UINT_MAX, false, &v);
			s.flags = (unsigned)v;
			break;
		case 19:
			r = parse_field(start, p, INT_MAX, true, &v);
			s.nice = (int)v;
			break;
		case 22:
			r = parse_field(start, p, INT64_MAX, false, &v);
			s.start_time = (uint64_t)v;
			break;
		case 39:
			r = parse_field(start, p, INT_MAX, false, &v);
			s.processor = (int)v;
			break;
		case 40:
			r = parse_field(start, p, INT_MAX, false, &v);
			s.rt_priority = (int)v;
			break;
		case 41:
			r = parse_field(start, p, INT_MAX, false, &v);
			s.policy = (int)v;
			break;
		}
		if (r < 0)
			return -EINVAL;
	}
	*ret = s;
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

void procfs_task_path(char *buf, size_t size, const char *proc, pid_t pid, pid_t tid,
		      const char *file)
{
	if (tid > 0)
		snprintf(buf, size, "%s/%d/task/%d/%s", proc, (int)pid, (int)tid, file);
	else
		snprintf(buf, size, "%s/%d/%s", proc, (int)pid, file);
}

int procfs_stat_read(const char *proc, pid_t pid, pid_t tid, ProcfsStat *ret)
{
	/* 52 fields of at most 20 digits and a comm of 128 bytes fit */
	char path[128], buf[2048];
	int r;

	procfs_task_path(path, sizeof(path), proc, pid, tid, "stat");
	r = procfs_read_file(path, buf, sizeof(buf));
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
