/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one reader of a task's stat file (/proc/PID/stat,
 * /proc/PID/task/TID/stat), for realtimed (start times, the guard against
 * pid reuse) and for the IRQ-thread listing of realtimed and realtimectl
 * (procfs-irq.h); and the names of the scheduling policies the kernel
 * reports there. The parser takes a string and the reader a proc root
 * ("/proc" except in tests), so tests need no real /proc.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The fields of a stat line that realtimed uses, numbered as in proc(5). */
typedef struct ProcfsStat {
	unsigned n_fields;   /* how many fields the line has, up to 41 */
	char comm[128];	     /* 2: the name, without its parentheses, cut to fit */
	char state;	     /* 3: R, S, D, ... */
	unsigned flags;	     /* 9: PF_* */
	int nice;	     /* 19 */
	uint64_t start_time; /* 22: clock ticks after boot */
	int processor;	     /* 39: the CPU it ran on last */
	int rt_priority;     /* 40: 0 unless SCHED_FIFO/RR */
	int policy;	     /* 41: SCHED_OTHER, SCHED_FIFO, ... */
} ProcfsStat;

/* Parses a stat line. The comm in parentheses may hold spaces and ')': the
 * last ')' ends it. A line may end early (a fake one in a test): n_fields
 * says where it ended, the fields after it are 0, and the caller checks
 * that it has the fields it needs. -EINVAL without the parentheses or for a
 * field above that is not a number of its type; *ret untouched then. */
int procfs_stat_parse(const char *line, ProcfsStat *ret);

/* Reads PROC/PID/stat (tid == 0) or PROC/PID/task/TID/stat. -ESRCH when
 * the process or thread is gone (or tid is no thread of pid). */
int procfs_stat_read(const char *proc, pid_t pid, pid_t tid, ProcfsStat *ret);

/* Field 22 of that file: when the thread started, which tells a thread
 * from a later one that got its id. -EINVAL for a line without it. */
int procfs_start_time(const char *proc, pid_t pid, pid_t tid, uint64_t *ret);

/* Reads a small /proc file whole into buf, NUL-terminated; the length, or
 * -ESRCH when it does not exist (its task is gone), or -errno. */
int procfs_read_file(const char *path, char *buf, size_t size);
/* The same for a task's file: PROC/PID/FILE (tid == 0) or
 * PROC/PID/task/TID/FILE. */
int procfs_read_task_file(const char *proc, pid_t pid, pid_t tid, const char *file, char *buf,
			  size_t size);

/* "fifo", "rr", "other", "batch", "idle", "deadline"; "unknown" otherwise. */
const char *procfs_sched_policy_to_string(int policy);
/* The reverse; -EINVAL for an unknown name. */
int procfs_sched_policy_from_string(const char *s);
