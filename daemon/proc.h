/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimed's readers of /proc besides the stat and limits files
 * (procfs/procfs-stat.h and procfs-limits.h parse those): a thread's owner
 * (per thread: credentials are), its comm, a process's limits. The parsers
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

/* Real, effective and saved uid from the "Uid:" line of a status file. */
int proc_parse_status_uids(const char *text, ProcUids *ret);

/* The uids of a thread (tid == 0: of the process's main thread, which is
 * what prlimit() judges). -ESRCH when it is gone, or tid is no thread of pid. */
int proc_get_uids(const char *proc, pid_t pid, pid_t tid, ProcUids *ret);
/* comm of a thread (tid == 0: of the process), newline stripped. */
int proc_get_comm(const char *proc, pid_t pid, pid_t tid, char *buf, size_t size);
/* Soft and hard limit of row name of a process's limits file
 * (procfs_limits_read(): procfs/ holds the one parser of that file). */
int proc_get_limit(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		   uint64_t *ret_hard);
