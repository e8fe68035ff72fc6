/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fallback where realtimed is not on the bus: RealtimeKit1's
 * MakeThreadRealtime(t thread, u priority) and MakeThreadHighPriority(t
 * thread, i nice) for a thread of the calling process (rtkit-daemon
 * takes the process from the bus). rtkit does less than realtimed, and
 * librealtime(3) says so:
 *   - it grants SCHED_RR only: SCHED_FIFO is asked for and granted as RR;
 *   - it refuses a process whose RLIMIT_RTTIME exceeds its RTTimeUSecMax,
 *     so that limit of the whole process is lowered to it first (as
 *     PipeWire and PulseAudio do; lowering needs no privilege);
 *   - it cannot undo one grant: realtime_reset_thread() puts the thread
 *     back itself (lowering needs no privilege either), to what it ran
 *     with before, which this file remembers for the threads it asked
 *     rtkit about (up to RTKIT_REMEMBER_MAX at once);
 *   - it has no GrantLimits: -EOPNOTSUPP (realtime.c answers that).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bus-names.h"
#include "realtime-internal.h"

#define RTKIT_REMEMBER_MAX 64

/* What a thread ran with before this process asked rtkit for it. */
typedef struct RtkitPrior {
	pid_t tid; /* 0: free slot */
	int policy;
	int priority;
	int nice;
} RtkitPrior;

/* guarded by realtime_lock() */
static RtkitPrior rtkit_prior[RTKIT_REMEMBER_MAX];

void rtkit_forget_all(void)
{
	memset(rtkit_prior, 0, sizeof(rtkit_prior));
}

static RtkitPrior *prior_find(pid_t tid)
{
	for (size_t i = 0; i < ELEMENTSOF(rtkit_prior); i++)
		if (rtkit_prior[i].tid == tid)
			return &rtkit_prior[i];
	return NULL;
}

/* Remembers how tid runs now, unless it is remembered already (a second
 * grant keeps what the thread ran with before the first). Threads that
 * have exited give their slot up. Returns true when it added tid. */
static bool prior_remember(pid_t tid)
{
	struct sched_param sp = {};
	RtkitPrior *p;
	int policy, nice_level;

	policy = sched_getscheduler(tid);
	if (policy < 0 || sched_getparam(tid, &sp) < 0)
		return false;
	errno = 0;
	nice_level = getpriority(PRIO_PROCESS, (id_t)tid);
	if (errno != 0)
		return false;

	realtime_lock();
	if (prior_find(tid)) {
		realtime_unlock();
		return false;
	}
	p = prior_find(0);
	for (size_t i = 0; !p && i < ELEMENTSOF(rtkit_prior); i++)
		if (!realtime_thread_is_ours(rtkit_prior[i].tid))
			p = &rtkit_prior[i];
	if (p)
		*p = (RtkitPrior){ tid, policy & ~SCHED_RESET_ON_FORK, sp.sched_priority,
				   nice_level };
	realtime_unlock();
	return p != NULL;
}

static void prior_drop(pid_t tid)
{
	RtkitPrior *p;

	realtime_lock();
	p = prior_find(tid);
	if (p)
		*p = (RtkitPrior){};
	realtime_unlock();
}

/* rtkit refuses a process that may run realtime longer than RTTimeUSecMax
 * without blocking: lower RLIMIT_RTTIME (soft and hard) to it. */
static int rtkit_lower_rttime(DBusConnection *c, realtime_deadline deadline)
{
	struct rlimit rl;
	int64_t max;
	int r;

	r = realtime_bus_get_property(c, RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, "RTTimeUSecMax",
				      deadline, &max);
	if (r < 0)
		return r;
	if (max <= 0)
		return 0;
	if (getrlimit(RLIMIT_RTTIME, &rl) < 0)
		return realtime_fail(-errno, "Failed to read RLIMIT_RTTIME: %m");
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= (rlim_t)max &&
	    rl.rlim_cur <= rl.rlim_max)
		return 0;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (rlim_t)max)
		rl.rlim_max = (rlim_t)max;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_RTTIME, &rl) < 0)
		return realtime_fail(-errno,
				     "Failed to lower RLIMIT_RTTIME to %lld us for RealtimeKit: %m",
				     (long long)max);
	return 0;
}

/* Asks rtkit's method (t thread, then the one argument of type arg_type)
 * for tid, remembering how tid ran before, for a reset. */
static int rtkit_ask(DBusConnection *c, const char *method, pid_t tid, int arg_type,
		     const void *arg, realtime_deadline deadline)
{
	dbus_uint64_t t = (dbus_uint64_t)tid;
	bool added = prior_remember(tid);
	int r;

	r = realtime_bus_call_method(c, RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, method, deadline, NULL,
				     DBUS_TYPE_UINT64, &t, arg_type, arg, DBUS_TYPE_INVALID);
	if (r < 0 && added)
		prior_drop(tid);
	return r;
}

int rtkit_make_thread_realtime(DBusConnection *c, pid_t tid, int policy, int priority,
			       realtime_deadline deadline)
{
	dbus_uint32_t prio = (dbus_uint32_t)priority;
	int r;

	/* SCHED_FIFO too: rtkit grants SCHED_RR, the nearest it has */
	(void)policy;
	r = rtkit_lower_rttime(c, deadline);
	if (r < 0)
		return r;
	return rtkit_ask(c, "MakeThreadRealtime", tid, DBUS_TYPE_UINT32, &prio, deadline);
}

int rtkit_make_thread_high_priority(DBusConnection *c, pid_t tid, int nice_level,
				    realtime_deadline deadline)
{
	dbus_int32_t n = nice_level;

	return rtkit_ask(c, "MakeThreadHighPriority", tid, DBUS_TYPE_INT32, &n, deadline);
}

int rtkit_reset_thread(pid_t tid)
{
	struct sched_param sp = {};
	RtkitPrior p = {};
	RtkitPrior *found;
	int current;

	realtime_lock();
	found = prior_find(tid);
	if (found)
		p = *found;
	realtime_unlock();
	if (!found)
		return realtime_fail(
			-ENOENT, "Thread %d holds no grant that this process asked RealtimeKit for",
			(int)tid);

	/* Back down, never up: the kernel refuses a raise without privilege,
	 * and then the thread keeps its grant and the caller hears why. Nor
	 * may an unprivileged thread clear SCHED_RESET_ON_FORK (rtkit sets
	 * it): the flag stays, as realtimed's own reset leaves it. */
	current = sched_getscheduler(tid);
	if (current < 0)
		return realtime_fail(-errno, "Failed to read the scheduling of thread %d: %m",
				     (int)tid);
	sp.sched_priority = p.priority;
	/* the system call, not the libc symbol: librealtime-preload.so
	 * interposes sched_setscheduler() and calls this library */
	if (syscall(SYS_sched_setscheduler, tid, p.policy | (current & SCHED_RESET_ON_FORK), &sp) <
	    0)
		return realtime_fail(-errno, "Failed to put thread %d back to its scheduling: %m",
				     (int)tid);
	if (setpriority(PRIO_PROCESS, (id_t)tid, p.nice) < 0)
		return realtime_fail(-errno, "Failed to put thread %d back to nice level %d: %m",
				     (int)tid, p.nice);
	prior_drop(tid);
	return 0;
}
