/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pidfd system calls (glibc 2.36 has no wrappers for them yet). */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* PIDFD_GET_INFO (Linux 6.13), its first version, which every kernel with
 * the call understands (the size is in the command). */
typedef struct PidfdInfo {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid;
	uint32_t ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	uint32_t spare0;
} PidfdInfo;
#define PIDFD_INFO_CREDS_ (1ULL << 1)
#define PIDFD_GET_INFO_ _IOWR(0xFF, 11, PidfdInfo)

/* A pidfd is always close-on-exec. */
static inline int pidfd_open_cloexec(pid_t pid)
{
	return RET_NERRNO(syscall(SYS_pidfd_open, pid, 0));
}

/* 0 while the process lives, -ESRCH once it exited; needs no CAP_KILL. */
static inline int pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int r = poll(&p, 1, 0);

	if (r < 0)
		return -errno;
	return r > 0 ? -ESRCH : 0;
}

/* A PIDFD_THREAD pidfd (Linux 6.9; -EINVAL before): readable when that
 * thread exits, never naming another thread. */
static inline int pidfd_open_thread(pid_t tid)
{
	return RET_NERRNO(syscall(SYS_pidfd_open, tid, PIDFD_THREAD));
}

/* The task's credentials (a PIDFD_THREAD pidfd: that thread's). -EOPNOTSUPP
 * before Linux 6.13; -ESRCH once the task is gone. */
static inline int pidfd_get_info(int pidfd, PidfdInfo *ret)
{
	PidfdInfo info = { .mask = PIDFD_INFO_CREDS_ };

	if (ioctl(pidfd, PIDFD_GET_INFO_, &info) < 0) {
		if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP)
			return -EOPNOTSUPP;
		return -errno;
	}
	if (!(info.mask & PIDFD_INFO_CREDS_))
		return -EOPNOTSUPP;
	*ret = info;
	return 0;
}
