/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librealtime-preload.so's shared parts: the real functions it interposes
 * (found with dlsym(RTLD_NEXT)), the guard that keeps it from acting on
 * calls made while it is itself talking to realtimed (libdbus and
 * librealtime call pthread and sched functions too), the thread-id and
 * grant helpers. sched.c, create.c and mlock.c hold the interposed calls.
 *
 * The rule everywhere: the real call first, its result returned unchanged
 * unless the kernel answered EPERM (mlock: EPERM or ENOMEM) to a request
 * realtimed can grant; then realtimed is asked, and the caller sees success
 * or the very error the kernel gave.
 */
#pragma once

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sched-attr.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif

struct preload_real {
	int (*pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	int (*pthread_setschedparam)(pthread_t, int, const struct sched_param *);
	int (*pthread_setschedprio)(pthread_t, int);
	int (*pthread_getschedparam)(pthread_t, int *, struct sched_param *);
	int (*sched_setscheduler)(pid_t, int, const struct sched_param *);
	int (*sched_setparam)(pid_t, const struct sched_param *);
	int (*sched_setattr)(pid_t, struct sched_attr *, unsigned); /* NULL before glibc 2.41 */
	int (*mlock)(const void *, size_t);
	int (*mlockall)(int);
};

/* The real functions; resolved in the constructor, and on first use by a
 * call that comes before it (another preloaded library's constructor). */
extern struct preload_real preload_real;
void preload_resolve(void);
#define REAL(name)                                             \
	(__atomic_load_n(&preload_real.name, __ATOMIC_ACQUIRE) \
		 ?: (preload_resolve(), preload_real.name))

/* True while this thread is inside the preload's own D-Bus work: every
 * interposed call then goes straight to the real function. */
bool preload_busy(void);

/* True once the preload made a thread of this process realtime by a means
 * glibc does not see (realtimed, or a retry with SCHED_RESET_ON_FORK):
 * pthread_getschedparam() then reads the kernel's values (sched.c). */
bool preload_changed_scheduling(void);
void preload_note_changed_scheduling(void);

/* SCHED_FIFO or SCHED_RR, with or without SCHED_RESET_ON_FORK: what
 * realtimed grants (SCHED_DEADLINE is not realtime here). */
static inline bool policy_is_realtime(int policy)
{
	policy &= ~SCHED_RESET_ON_FORK;
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/* The kernel thread id of a pthread_t of this process, or -ESRCH. */
pid_t preload_thread_tid(pthread_t thread);

/* True when tid (0: the calling thread) is a thread of this process:
 * realtimed grants nothing else, so nothing else is worth a bus call. */
bool preload_is_own_thread(pid_t tid);

/* Asks realtimed for policy (SCHED_FIFO/SCHED_RR, flags ignored) at
 * priority on thread tid of this process (0: the calling thread). 0 when
 * granted, else -errno (the caller returns the kernel's own error). */
int preload_grant(pid_t tid, int policy, int priority);

/* Asks realtimed for the policy's RLIMIT_MEMLOCK, once per process. */
int preload_grant_memlock(void);

/* The kernel's refusal, said once more when REALTIME_PRELOAD_DEBUG is set:
 * what was refused and what realtimed answered. */
void preload_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
