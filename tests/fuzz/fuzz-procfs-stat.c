// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the one parser of a task's stat file
 * (procfs/procfs-stat.c): the input is a stat line. An accepted line
 * has its fields where procfs-stat.h says (2..41, those after n_fields 0,
 * the comm NUL-terminated in its buffer), and the line made of what was
 * read (the other fields 0) parses to the same; a refused one leaves the
 * output untouched. The input is also read as a file, through
 * procfs_stat_read() on a fake /proc, and as a policy name.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "macro.h"
#include "procfs-stat.h"

static void check_same(const ProcfsStat *a, const ProcfsStat *b)
{
	fuzz_assert(a->n_fields == b->n_fields && a->state == b->state);
	fuzz_assert(a->flags == b->flags && a->nice == b->nice);
	fuzz_assert(a->start_time == b->start_time && a->processor == b->processor);
	fuzz_assert(a->rt_priority == b->rt_priority && a->policy == b->policy);
	fuzz_assert(streq(a->comm, b->comm));
}

/* The stat line of st, fields 3..n_fields, 0 where ProcfsStat keeps none. */
static void format_stat(const ProcfsStat *st, char *buf, size_t size)
{
	size_t l = (size_t)snprintf(buf, size, "1 (%s)", st->comm);

	for (unsigned f = 3; f <= st->n_fields && l < size; f++) {
		uint64_t v = 0;

		switch (f) {
		case 3:
			l += snprintf(buf + l, size - l, " %c", st->state);
			continue;
		case 19:
			l += snprintf(buf + l, size - l, " %d", st->nice);
			continue;
		case 9:
			v = st->flags;
			break;
		case 22:
			v = st->start_time;
			break;
		case 39:
			v = (unsigned)st->processor;
			break;
		case 40:
			v = (unsigned)st->rt_priority;
			break;
		case 41:
			v = (unsigned)st->policy;
			break;
		}
		l += snprintf(buf + l, size - l, " %" PRIu64, v);
	}
	fuzz_assert(l < size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *line = NULL;
	ProcfsStat st, untouched, again;
	char buf[1024];
	int r, p;

	if (size > 4096)
		return 0;
	line = fuzz_string(data, size);

	memset(&st, 0x5a, sizeof(st));
	untouched = st;
	r = procfs_stat_parse(line, &st);
	fuzz_assert(r == 0 || r == -EINVAL);
	if (r < 0)
		fuzz_assert(memcmp(&st, &untouched, sizeof(st)) == 0);
	else {
		fuzz_assert(st.n_fields >= 2 && st.n_fields <= 41);
		fuzz_assert(memchr(st.comm, 0, sizeof(st.comm)));
		fuzz_assert(st.n_fields >= 3 || st.state == 0);
		fuzz_assert(st.n_fields >= 9 || st.flags == 0);
		fuzz_assert(st.n_fields >= 19 || st.nice == 0);
		fuzz_assert(st.n_fields >= 22 || st.start_time == 0);
		fuzz_assert(st.start_time <= INT64_MAX);
		fuzz_assert(st.processor >= 0 && st.rt_priority >= 0 && st.policy >= 0);
		format_stat(&st, buf, sizeof(buf));
		fuzz_assert(procfs_stat_parse(buf, &again) == 0);
		check_same(&st, &again);
	}

	/* the reader of PROC/PID/task/TID/stat, which reads 2047 bytes */
	if (size < 2048) {
		const char *proc = fuzz_tmpdir();
		char dir[256];
		uint64_t start;

		snprintf(dir, sizeof(dir), "%s/7", proc);
		(void)mkdir(dir, 0755);
		snprintf(dir, sizeof(dir), "%s/7/task", proc);
		(void)mkdir(dir, 0755);
		snprintf(dir, sizeof(dir), "%s/7/task/7", proc);
		(void)mkdir(dir, 0755);
		fuzz_write_file(dir, "stat", data, size);
		r = procfs_stat_read(proc, 7, 7, &again);
		/* up to a NUL, as the parser reads the line */
		fuzz_assert(r == procfs_stat_parse(line, &st));
		if (r == 0)
			check_same(&st, &again);
		r = procfs_start_time(proc, 7, 7, &start);
		fuzz_assert(r == 0 || r == -EINVAL);
		fuzz_assert(r < 0 || (st.n_fields >= 22 && start == st.start_time));
		fuzz_assert(procfs_stat_read(proc, 7, 8, &again) == -ESRCH);
	}

	/* a policy name: known ones read back, others are refused */
	p = procfs_sched_policy_from_string(line);
	fuzz_assert(p >= 0 ? streq(procfs_sched_policy_to_string(p), line) : p == -EINVAL);
	return 0;
}
