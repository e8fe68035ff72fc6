/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The capabilities realtimed keeps (caps.c; realtimed(8), CAPABILITIES). */
#pragma once

#include <sys/types.h>

/* Drops all but the list, from every set; 0 too when not root. Logs. */
int caps_drop_to_needed(void);
/* The NSS helper's drop before it loads NSS: uid and gid as all its ids (if
 * privileged), no groups, every capability set empty, all checked after.
 * Never logs: -errno and *ret_step naming what failed. */
int caps_drop_all(uid_t uid, gid_t gid, const char **ret_step);
