/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scheduler calls that realtimed makes on other threads: SCHED_FIFO /
 * SCHED_RR with SCHED_RESET_ON_FORK, a nice level, back to SCHED_OTHER, and
 * reading back what the kernel holds (to verify a grant after making it).
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum GrantKind {
	GRANT_FIFO,
	GRANT_RR,
	GRANT_NICE,
	_GRANT_KIND_MAX,
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
/* SCHED_DEADLINE: runtime_nsec of CPU time every period_nsec (deadline =
 * period), with SCHED_FLAG_RESET_ON_FORK. For the canary watchdog, which must
 * outrank every SCHED_FIFO priority; -EPERM/-EBUSY where the kernel refuses. */
int sched_apply_deadline(pid_t tid, uint64_t runtime_nsec, uint64_t period_nsec);
