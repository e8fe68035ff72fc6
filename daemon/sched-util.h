/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler calls that realtimed makes on other threads: SCHED_FIFO /
 * SCHED_RR with SCHED_RESET_ON_FORK, a nice level, back to SCHED_OTHER, and
 * reading back what the kernel holds (to verify a grant after making it).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <sys/types.h>

#include "policy-allow.h"

/* The kinds of grant are policy's (common/policy-allow.h), so that a Grant
 * can be put to policy_grant_allows() as it is. */
typedef enum GrantKind {
	GRANT_FIFO = POLICY_GRANT_FIFO,
	GRANT_RR = POLICY_GRANT_RR,
	GRANT_NICE = POLICY_GRANT_NICE,
	_GRANT_KIND_MAX = _POLICY_GRANT_KIND_MAX,
	_GRANT_KIND_INVALID = -EINVAL,
} GrantKind;

const char *grant_kind_to_string(GrantKind k);
GrantKind grant_kind_from_string(const char *s);

/* value: priority 1..99 for FIFO/RR, nice -20..19 for NICE. Always sets
 * SCHED_RESET_ON_FORK so children do not inherit the grant. */
int sched_apply(pid_t tid, GrantKind kind, int value);
/* SCHED_OTHER, nice 0. */
int sched_reset(pid_t tid);
/* Does the thread still run as granted? 1 yes, 0 no, -errno. */
int sched_matches(pid_t tid, GrantKind kind, int value);
/* "fifo"/"rr"/"other"... and priority (or nice for other). */
int sched_get(pid_t tid, const char **ret_policy, int *ret_priority);
