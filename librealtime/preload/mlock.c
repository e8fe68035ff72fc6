/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mlock() and mlockall() in librealtime-preload.so: refused for want of
 * RLIMIT_MEMLOCK (EPERM when it is 0, ENOMEM when it is too small; see
 * mlock(2)), the process asks realtimed for the policy's limits once
 * (preload.c keeps only RLIMIT_MEMLOCK of them) and the call is tried once
 * more. Any other outcome is the kernel's.
 */
#include <errno.h>
#include <sys/mman.h>

#include "preload.h"

static bool memlock_refused(int r)
{
	return r < 0 && (errno == EPERM || errno == ENOMEM) && !preload_busy();
}

int mlock(const void *addr, size_t len)
{
	int r = REAL(mlock)(addr, len);
	int err = errno;

	if (memlock_refused(r) && preload_grant_memlock() == 0)
		return REAL(mlock)(addr, len);
	errno = err;
	return r;
}

int mlockall(int flags)
{
	int r = REAL(mlockall)(flags);
	int err = errno;

	if (memlock_refused(r) && preload_grant_memlock() == 0)
		return REAL(mlockall)(flags);
	errno = err;
	return r;
}
