/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pidfd system calls (glibc 2.36 has no wrappers for them yet). */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"

/* A pidfd is always close-on-exec. */
static inline int pidfd_open_cloexec(pid_t pid)
{
	return RET_NERRNO(syscall(SYS_pidfd_open, pid, 0));
}

/* 0 while the process lives, -ESRCH once it exited. A pidfd turns readable
 * when its process exits; unlike pidfd_send_signal(0) this needs no CAP_KILL. */
static inline int pidfd_alive(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int r = poll(&p, 1, 0);

	if (r < 0)
		return -errno;
	return r > 0 ? -ESRCH : 0;
}
