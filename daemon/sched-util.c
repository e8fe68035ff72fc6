// SPDX-License-Identifier: GPL-2.0-or-later
/* sched_setattr()/sched_getattr() wrappers; see sched.h. glibc 2.36 has no
 * wrappers, so these go through syscall(). */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "sched-util.h"

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER0); the uapi header
 * clashes with glibc's struct sched_param. */
struct sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

const char *grant_kind_to_string(GrantKind k)
{
	return policy_grant_kind_to_string((PolicyGrantKind)k);
}

GrantKind grant_kind_from_string(const char *s)
{
	return (GrantKind)policy_grant_kind_from_string(s);
}

static int sys_sched_setattr(pid_t tid, struct sched_attr *attr)
{
	return RET_NERRNO(syscall(SYS_sched_setattr, tid, attr, 0));
}

static int sys_sched_getattr(pid_t tid, struct sched_attr *attr)
{
	return RET_NERRNO(syscall(SYS_sched_getattr, tid, attr, sizeof(*attr), 0));
}

int sched_apply(pid_t tid, GrantKind kind, int value)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
	};

	switch (kind) {
	case GRANT_FIFO:
	case GRANT_RR:
		if (value < 1 || value > 99)
			return -EINVAL;
		attr.sched_policy = kind == GRANT_FIFO ? SCHED_FIFO : SCHED_RR;
		attr.sched_priority = value;
		break;
	case GRANT_NICE:
		if (value < -20 || value > 19)
			return -EINVAL;
		attr.sched_policy = SCHED_OTHER;
		attr.sched_nice = value;
		break;
	case _GRANT_KIND_MAX:
	case _GRANT_KIND_INVALID:
		return -EINVAL;
	}
	return sys_sched_setattr(tid, &attr);
}

int sched_reset(pid_t tid)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_OTHER,
	};

	return sys_sched_setattr(tid, &attr);
}

int sched_matches(pid_t tid, GrantKind kind, int value)
{
	struct sched_attr attr = {};
	int r;

	r = sys_sched_getattr(tid, &attr);
	if (r < 0)
		return r;
	switch (kind) {
	case GRANT_FIFO:
		return attr.sched_policy == SCHED_FIFO && (int)attr.sched_priority == value;
	case GRANT_RR:
		return attr.sched_policy == SCHED_RR && (int)attr.sched_priority == value;
	case GRANT_NICE:
		return attr.sched_policy == SCHED_OTHER && attr.sched_nice == value;
	case _GRANT_KIND_MAX:
	case _GRANT_KIND_INVALID:
		break;
	}
	return -EINVAL;
}

int sched_get(pid_t tid, const char **ret_policy, int *ret_priority)
{
	struct sched_attr attr = {};
	int r;

	r = sys_sched_getattr(tid, &attr);
	if (r < 0)
		return r;
	switch (attr.sched_policy) {
	case SCHED_FIFO:
		*ret_policy = "fifo";
		*ret_priority = attr.sched_priority;
		break;
	case SCHED_RR:
		*ret_policy = "rr";
		*ret_priority = attr.sched_priority;
		break;
	default:
		*ret_policy = "other";
		*ret_priority = attr.sched_nice;
		break;
	}
	return 0;
}
