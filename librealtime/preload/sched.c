/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The scheduling calls of librealtime-preload.so: pthread_setschedparam,
 * pthread_setschedprio, sched_setscheduler, sched_setparam, sched_setattr,
 * and pthread_getschedparam so that it reports what the kernel runs.
 *
 * After an EPERM each goes two steps, both only as far as they must:
 *  1. A thread realtimed granted carries SCHED_RESET_ON_FORK, and the kernel
 *     refuses an unprivileged caller any change that would clear it, even a
 *     lower priority or SCHED_OTHER. So a request without the flag on a
 *     thread that has it is tried once more with it: the kernel then
 *     decides as it would have for the thread without the flag.
 *  2. A SCHED_FIFO/SCHED_RR request still refused goes to realtimed.
 * Whatever fails, the caller gets the kernel's first answer, in the call's
 * own convention (pthread_*: the error number returned; sched_*: -1 and
 * errno).
 *
 * sched_setattr: glibc has no wrapper before 2.41, so on this glibc only a
 * program that looks the symbol up (dlsym) or a library that calls an
 * undefined sched_setattr reaches this one; a program that calls
 * syscall(SYS_sched_setattr) itself bypasses every preload.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

/* The kernel's policy of tid, SCHED_RESET_ON_FORK included, or -1. */
static int thread_policy(pid_t tid)
{
	int saved = errno, p = sched_getscheduler(tid);

	errno = saved;
	return p;
}

static bool needs_reset_on_fork(pid_t tid, int policy)
{
	int cur = thread_policy(tid);

	return cur >= 0 && (cur & SCHED_RESET_ON_FORK) && !(policy & SCHED_RESET_ON_FORK);
}

/* The tid of thread after the kernel refused it a change with r = EPERM,
 * when this call may go the steps above (not inside realtimed's own
 * calls); else -1. */
static pid_t refused_tid(int r, pthread_t thread)
{
	if (r != EPERM || preload_busy())
		return -1;
	return preload_thread_tid(thread);
}

int pthread_setschedparam(pthread_t thread, int policy, const struct sched_param *param)
{
	int r = REAL(pthread_setschedparam)(thread, policy, param);
	pid_t tid = refused_tid(r, thread);

	if (tid < 0)
		return r;
	if (needs_reset_on_fork(tid, policy) &&
	    REAL(pthread_setschedparam)(thread, policy | SCHED_RESET_ON_FORK, param) == 0) {
		/* glibc caches the policy with the flag: pthread_getschedparam corrects it */
		preload_note_changed_scheduling();
		return 0;
	}
	if (policy_is_realtime(policy) && preload_grant(tid, policy, param->sched_priority) == 0)
		return 0;
	return r;
}

int pthread_setschedprio(pthread_t thread, int prio)
{
	int r = REAL(pthread_setschedprio)(thread, prio);
	pid_t tid = refused_tid(r, thread);
	int policy;

	/* a priority change keeps SCHED_RESET_ON_FORK: only step 2 applies */
	if (tid < 0)
		return r;
	policy = thread_policy(tid);
	if (policy_is_realtime(policy) && preload_grant(tid, policy, prio) == 0)
		return 0;
	return r;
}

int pthread_getschedparam(pthread_t thread, int *policy, struct sched_param *param)
{
	int r = REAL(pthread_getschedparam)(thread, policy, param);
	int saved = errno, p;
	struct sched_param sp;
	pid_t tid;

	/* glibc answers from what its own calls set; once the preload changed a
	 * thread behind its back, only the kernel knows. Untouched otherwise. */
	if (r != 0 || !preload_changed_scheduling() || preload_busy())
		return r;
	tid = preload_thread_tid(thread);
	if (tid >= 0 && (p = sched_getscheduler(tid)) >= 0 && sched_getparam(tid, &sp) == 0) {
		*policy = p & ~SCHED_RESET_ON_FORK;
		*param = sp;
	}
	errno = saved;
	return r;
}

int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	int r = REAL(sched_setscheduler)(pid, policy, param);
	int err = errno;

	if (r == 0 || err != EPERM || preload_busy() || !param || !preload_is_own_thread(pid))
		return r;
	if (needs_reset_on_fork(pid, policy) &&
	    REAL(sched_setscheduler)(pid, policy | SCHED_RESET_ON_FORK, param) == 0)
		return 0;
	if (policy_is_realtime(policy) && preload_grant(pid, policy, param->sched_priority) == 0)
		return 0;
	errno = err;
	return r;
}

int sched_setparam(pid_t pid, const struct sched_param *param)
{
	int r = REAL(sched_setparam)(pid, param);
	int err = errno, policy;

	if (r == 0 || err != EPERM || preload_busy() || !param || !preload_is_own_thread(pid))
		return r;
	policy = thread_policy(pid);
	if (policy_is_realtime(policy) && preload_grant(pid, policy, param->sched_priority) == 0)
		return 0;
	errno = err;
	return r;
}

/* The SCHED_FLAG_KEEP_* and utilization clamp flags (Linux 5.3) ask for
 * more than a policy and a priority: those requests are left to the kernel. */
#define SCHED_FLAGS_GRANTABLE SCHED_FLAG_RESET_ON_FORK

static int real_sched_setattr(pid_t pid, struct sched_attr *attr, unsigned flags)
{
	int (*f)(pid_t, struct sched_attr *, unsigned) = REAL(sched_setattr);

	return f ? f(pid, attr, flags) : (int)syscall(SYS_sched_setattr, pid, attr, flags);
}

int sched_setattr(pid_t pid, struct sched_attr *attr, unsigned flags);
int sched_setattr(pid_t pid, struct sched_attr *attr, unsigned flags)
{
	int r = real_sched_setattr(pid, attr, flags);
	int err = errno;
	struct sched_attr a = {};
	size_t n;

	if (r == 0 || err != EPERM || preload_busy() || !attr || !preload_is_own_thread(pid))
		return r;
	/* the caller's struct may be an older, shorter one (size 0: the first, 48 bytes) */
	n = attr->size ?: SCHED_ATTR_SIZE_VER0;
	if (n > sizeof(a))
		n = sizeof(a);
	memcpy(&a, attr, n);
	a.size = n;
	if (a.sched_flags & ~(uint64_t)SCHED_FLAGS_GRANTABLE)
		goto refused;
	if (needs_reset_on_fork(pid, a.sched_flags & SCHED_FLAG_RESET_ON_FORK ? SCHED_RESET_ON_FORK
									      : 0)) {
		a.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
		if (real_sched_setattr(pid, &a, flags) == 0)
			return 0;
	}
	if (policy_is_realtime(a.sched_policy) &&
	    preload_grant(pid, a.sched_policy, a.sched_priority) == 0)
		return 0;
refused:
	errno = err;
	return r;
}
