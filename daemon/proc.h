/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimed's /proc readers besides procfs/'s: a thread's owner, comm, pid
 * namespace ids. Parsers take strings and readers a proc root, for the tests.
 * tid 0 means the process (its main thread); -ESRCH when the task is gone or
 * tid is no thread of pid.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include "procfs-stat.h"

typedef struct ProcUids {
	uid_t ruid, euid, suid;
} ProcUids;

/* the kernel's MAX_PID_NS_LEVEL */
#define PROC_NSPID_MAX 32

/* A task's ids from the proc mount's pid namespace (ids[0]) down to its own. */
typedef struct ProcNspid {
	unsigned n;
	pid_t ids[PROC_NSPID_MAX];
} ProcNspid;

/* The "Uid:" line of a status file. */
int proc_parse_status_uids(const char *text, ProcUids *ret);
/* The first "NSpid:" line: 1..PROC_NSPID_MAX ids of 1..INT_MAX, each after
 * one tab, ending in a newline; else -EINVAL (-ERANGE for an id too large). */
int proc_parse_status_nspid(const char *text, ProcNspid *ret);

int proc_get_uids(const char *proc, pid_t pid, pid_t tid, ProcUids *ret);
int proc_get_nspid(const char *proc, pid_t pid, pid_t tid, ProcNspid *ret);
/* The inode of pid's pid namespace ("pid:[INODE]"); pid 0: realtimed's own.
 * -EINVAL for a link that says anything else. */
int proc_get_pidns(const char *proc, pid_t pid, uint64_t *ret);
/* newline stripped */
int proc_get_comm(const char *proc, pid_t pid, pid_t tid, char *buf, size_t size);
/* Soft and hard limit of row name of a process's limits file. */
int proc_get_limit(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		   uint64_t *ret_hard);
