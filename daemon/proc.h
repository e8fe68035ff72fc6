/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimed's readers of /proc besides the stat and limits files
 * (procfs/procfs-stat.h and procfs-limits.h parse those): a thread's owner
 * (per thread: credentials are), its comm, a process's limits, its ids in
 * the pid namespaces it lives in and the namespace itself. The parsers
 * take strings so the unit tests need no /proc; the readers take a proc
 * root ("/proc" normally) for the same reason.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "procfs-stat.h"

/* A task's uids, as the "Uid:" line of its status file gives them. */
typedef struct ProcUids {
	uid_t ruid, euid, suid;
} ProcUids;

/* The deepest nesting of pid namespaces the kernel allows (MAX_PID_NS_LEVEL). */
#define PROC_NSPID_MAX 32

/* A task's ids in each pid namespace, from that of the proc mount (ids[0],
 * the id /proc lists it by) down to its own (ids[n - 1]). */
typedef struct ProcNspid {
	unsigned n;
	pid_t ids[PROC_NSPID_MAX];
} ProcNspid;

/* Real, effective and saved uid from the "Uid:" line of a status file. */
int proc_parse_status_uids(const char *text, ProcUids *ret);

/* The first "NSpid:" line of a status file: 1..PROC_NSPID_MAX ids, each
 * 1..INT_MAX, each after one tab, the line ending in a newline. -EINVAL for
 * anything else (no such line, a line cut short), -ERANGE for an id above
 * INT_MAX; *ret untouched then. */
int proc_parse_status_nspid(const char *text, ProcNspid *ret);

/* The uids of a thread (tid == 0: of the process's main thread, which is
 * what prlimit() judges). -ESRCH when it is gone, or tid is no thread of pid. */
int proc_get_uids(const char *proc, pid_t pid, pid_t tid, ProcUids *ret);
/* The ids of a thread (tid == 0: of the process) in each pid namespace
 * (proc_parse_status_nspid()). -ESRCH when it is gone, or tid is no thread
 * of pid. */
int proc_get_nspid(const char *proc, pid_t pid, pid_t tid, ProcNspid *ret);
/* The inode of the pid namespace a process lives in, from its ns/pid link
 * ("pid:[INODE]"); pid 0: "self", realtimed's own. -ESRCH when it is gone,
 * -EINVAL for a link that says anything else. */
int proc_get_pidns(const char *proc, pid_t pid, uint64_t *ret);
/* comm of a thread (tid == 0: of the process), newline stripped. */
int proc_get_comm(const char *proc, pid_t pid, pid_t tid, char *buf, size_t size);
/* Soft and hard limit of row name of a process's limits file
 * (procfs_limits_read(): procfs/ holds the one parser of that file). */
int proc_get_limit(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		   uint64_t *ret_hard);
