/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one parser of a process's limits file (/proc/PID/limits): realtimed
 * reads a caller's limits before it grants RLIMIT_RTTIME and the policy's
 * rlimits (daemon/proc.h), and realtimectl check the session's
 * (realtimectl/check-user.c). The parser takes a string and the reader a
 * proc root ("/proc" except in tests), so tests need no real /proc.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/* The soft and hard limit of the row called name ("Max realtime timeout",
 * PolicyRlimit's proc_name) in the text of a limits file; the kernel's
 * "unlimited" is UINT64_MAX (RLIM_INFINITY). A name that only begins
 * another row's ("Max realtime" of "Max realtime priority") is no row.
 * -ENODATA when no row has that name, -EBADMSG when its limits are not
 * "unlimited" or decimal numbers; the outputs are untouched then. */
int procfs_limits_parse(const char *text, const char *name, uint64_t *ret_soft, uint64_t *ret_hard);

/* Reads PROC/PID/limits and parses row name of it. -ESRCH when the
 * process is gone, or procfs_limits_parse()'s errors. */
int procfs_limits_read(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		       uint64_t *ret_hard);
