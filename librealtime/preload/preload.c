/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librealtime-preload.so: makes an unmodified program that asks the kernel
 * for realtime scheduling (JACK2, Ardour, SuperCollider...) get it from
 * realtimed(8) when the kernel refuses, thread by thread, supervised, with
 * no rlimits. Loaded with LD_PRELOAD, usually by `realtimectl run
 * --threads`. This file resolves the real functions, keeps the preload
 * from acting on its own calls, and asks realtimed through librealtime(3);
 * sched.c, create.c and mlock.c interpose the calls themselves.
 *
 * Threads are named to realtimed by their kernel thread id. A pthread_t
 * is turned into one through pthread_getcpuclockid(): its clock id is the
 * kernel's per-thread CPU clock, which encodes the tid (include/linux/
 * posix-timers.h: CPUCLOCK_PID). That works for every thread of the
 * process however it was created, needs no registry, and glibc answers
 * ESRCH for a thread that has exited. (pthread_gettid_np() does the same
 * from glibc 2.42 on.)
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "librealtime.h"
#include "preload.h"

struct preload_real preload_real;

/* Depth of the preload's own calls into librealtime, per thread. Initial
 * exec TLS: the preload is loaded at start-up, and its guard must not
 * allocate on first use the way a dlopen()ed module's TLS may. */
static __thread unsigned preload_depth __attribute__((tls_model("initial-exec")));
static bool changed_scheduling;
static bool memlock_asked;
static bool debug;

void preload_resolve(void)
{
	/* dlsym() is idempotent: two threads racing here store the same values. */
#define RESOLVE(name) \
	__atomic_store_n(&preload_real.name, dlsym(RTLD_NEXT, #name), __ATOMIC_RELEASE)
	RESOLVE(pthread_create);
	RESOLVE(pthread_setschedparam);
	RESOLVE(pthread_setschedprio);
	RESOLVE(pthread_getschedparam);
	RESOLVE(sched_setscheduler);
	RESOLVE(sched_setparam);
	RESOLVE(sched_setattr);
	RESOLVE(mlock);
	RESOLVE(mlockall);
#undef RESOLVE
}

bool preload_busy(void)
{
	return preload_depth > 0;
}

bool preload_changed_scheduling(void)
{
	return __atomic_load_n(&changed_scheduling, __ATOMIC_RELAXED);
}

void preload_debug(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, m;

	if (!debug)
		return;
	/* A stack buffer and write(): no stdio lock, no allocation. */
	n = snprintf(buf, sizeof(buf), "librealtime-preload[%d/%d]: ", (int)getpid(),
		     (int)gettid());
	va_start(ap, fmt);
	m = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m < (int)sizeof(buf) - n - 1 ? m : (int)sizeof(buf) - n - 2;
	buf[n++] = '\n';
	(void)!write(STDERR_FILENO, buf, n);
}

pid_t preload_thread_tid(pthread_t thread)
{
	clockid_t clock;

	if (pthread_equal(thread, pthread_self()))
		return gettid();
	if (pthread_getcpuclockid(thread, &clock) != 0)
		return -ESRCH;
	/* CPUCLOCK_PERTHREAD_MASK | CPUCLOCK_SCHED: a thread's clock, as glibc makes it */
	if ((clock & 7) != 6)
		return -ESRCH;
	return ~(clock >> 3);
}

bool preload_is_own_thread(pid_t tid)
{
	if (tid == 0)
		return true;
	if (tid < 0)
		return false;
	int saved = errno;
	bool r;

	/* signal 0: only asks whether tid is a thread of this process */
	r = syscall(SYS_tgkill, getpid(), tid, 0) == 0;
	errno = saved;
	return r;
}

int preload_grant(pid_t tid, int policy, int priority)
{
	int r, saved = errno;

	if (!preload_is_own_thread(tid)) {
		errno = saved;
		return -ESRCH;
	}
	policy &= ~SCHED_RESET_ON_FORK;
	preload_depth++;
	r = realtime_make_thread_realtime(tid, policy, priority);
	if (r >= 0) {
		preload_note_changed_scheduling();
		preload_debug("thread %d: the kernel refused SCHED_%s %d, realtimed granted it",
			      tid ?: (int)gettid(), policy == SCHED_FIFO ? "FIFO" : "RR", priority);
	} else
		preload_debug("thread %d: the kernel refused SCHED_%s %d, so did realtimed: %s",
			      tid ?: (int)gettid(), policy == SCHED_FIFO ? "FIFO" : "RR", priority,
			      realtime_error_message());
	preload_depth--;
	errno = saved;
	return r < 0 ? r : 0;
}

void preload_note_changed_scheduling(void)
{
	__atomic_store_n(&changed_scheduling, true, __ATOMIC_RELAXED);
}

/* GrantLimits hands out every rlimit the policy sets. The preload wants
 * RLIMIT_MEMLOCK only: with RLIMIT_RTPRIO and RLIMIT_NICE raised, the kernel
 * would let the program's threads go realtime on their own, unsupervised
 * and unlisted. So those two are put back as they were (lowering needs no
 * privilege). */
int preload_grant_memlock(void)
{
	struct rlimit rtprio, nice_limit, memlock;
	int r, saved = errno;

	if (__atomic_exchange_n(&memlock_asked, true, __ATOMIC_RELAXED))
		return -EALREADY;
	/* unlimited already: the refusal is not RLIMIT_MEMLOCK's (address range, memory) */
	if (getrlimit(RLIMIT_MEMLOCK, &memlock) < 0 || memlock.rlim_cur == RLIM_INFINITY ||
	    getrlimit(RLIMIT_RTPRIO, &rtprio) < 0 || getrlimit(RLIMIT_NICE, &nice_limit) < 0) {
		errno = saved;
		return -EINVAL;
	}

	preload_depth++;
	r = realtime_grant_limits(NULL);
	if (r >= 0) {
		(void)setrlimit(RLIMIT_RTPRIO, &rtprio);
		(void)setrlimit(RLIMIT_NICE, &nice_limit);
		getrlimit(RLIMIT_MEMLOCK, &memlock);
		if (memlock.rlim_cur == RLIM_INFINITY)
			preload_debug(
				"locking memory was refused; realtimed granted RLIMIT_MEMLOCK "
				"unlimited");
		else
			preload_debug(
				"locking memory was refused; realtimed granted RLIMIT_MEMLOCK %llu",
				(unsigned long long)memlock.rlim_cur);
	} else
		preload_debug("locking memory was refused, and realtimed granted no limits: %s",
			      realtime_error_message());
	preload_depth--;
	errno = saved;
	return r < 0 ? r : 0;
}

/* A child of fork() is a process of its own: it may ask for its limits once. */
static void preload_atfork_child(void)
{
	__atomic_store_n(&memlock_asked, false, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void preload_init(void)
{
	debug = !!secure_getenv("REALTIME_PRELOAD_DEBUG");
	preload_resolve();
	pthread_atfork(NULL, NULL, preload_atfork_child);
}
