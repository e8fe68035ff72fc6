/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel's struct sched_attr and the sched_setattr()/sched_getattr()
 * system calls, which glibc 2.36 does not wrap. The uapi header
 * <linux/sched/types.h> cannot be used beside <sched.h>: both define
 * struct sched_param. Header only.
 */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif

/* The first struct sched_attr's size; a caller's size 0 means it too. */
#define SCHED_ATTR_SIZE_VER0 48

/* SCHED_ATTR_SIZE_VER1 (Linux 5.3): the utilization clamps are read only
 * with their SCHED_FLAG_UTIL_CLAMP_* flags, so zeros there change nothing,
 * and an older kernel accepts the larger size while they are zero. */
struct sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

/* 0 or -errno. attr->size must be set. */
static inline int sched_attr_set(pid_t tid, const struct sched_attr *attr)
{
	return syscall(SYS_sched_setattr, tid, attr, 0) < 0 ? -errno : 0;
}

/* 0 or -errno; fills *ret, setting its size. */
static inline int sched_attr_get(pid_t tid, struct sched_attr *ret)
{
	return syscall(SYS_sched_getattr, tid, ret, sizeof(*ret), 0) < 0 ? -errno : 0;
}
