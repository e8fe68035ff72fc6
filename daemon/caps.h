/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capabilities (realtimed(8), CAPABILITIES, says why each): realtimed keeps
 * CAP_SYS_NICE, CAP_SYS_RESOURCE, CAP_DAC_READ_SEARCH and CAP_SYS_PTRACE
 * effective, and CAP_SETUID, CAP_SETGID and CAP_SETPCAP permitted only,
 * raised only in the forked NSS helper to drop everything; its bounding
 * set holds the same list, as the unit's CapabilityBoundingSet= does.
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
