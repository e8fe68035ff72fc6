/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capabilities. realtimed keeps only these, in its sets and its bounding
 * set (the unit's CapabilityBoundingSet= holds the same list), effective:
 *   CAP_SYS_NICE         set other users' threads' scheduling (the job)
 *   CAP_SYS_RESOURCE     prlimit() other users' processes (GrantLimits, RTTime)
 *   CAP_DAC_READ_SEARCH  read /proc/PID/... of every user, the policy files
 *   CAP_SYS_PTRACE       read /proc/PID/limits and stat of processes with
 *                        hidepid= or a dumpable=0 flag (PipeWire sets it),
 *                        and other users' /proc/PID/ns/pid (request-pidns.h)
 * and permitted only, never effective in realtimed:
 *   CAP_SETUID, CAP_SETGID, CAP_SETPCAP  raised only in the forked NSS
 *                        helper, to drop to nobody and empty its bounding
 *                        set (nss-helper.h), at start and at each restart.
 * Holding those adds nothing a uid-0 process with CAP_SYS_PTRACE lacks: it
 * may already take over any process (realtimed(8), CAPABILITIES).
 */
#pragma once

#include <sys/types.h>

/* Keeps the list above (what of it realtimed has) and drops the rest.
 * Returns 0 when done or nothing to do (not root), -errno on failure. */
int caps_drop_to_needed(void);
/* The NSS helper's drop, before it loads NSS: uid and gid for its real,
 * effective and saved ids (unless it is not root: it keeps its own), no
 * supplementary group, every capability set empty (effective, permitted,
 * inheritable, ambient, and the bounding set), all checked after. Never
 * logs: 0, or -errno and *ret_step naming what failed. */
int caps_drop_all(uid_t uid, gid_t gid, const char **ret_step);
