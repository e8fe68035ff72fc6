/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librealtime: ask realtimed(8) for realtime scheduling, a nice level or
 * the policy's rlimits, for threads of the calling process, over D-Bus, the
 * way a program would ask the kernel. See librealtime(3).
 *
 * The library opens one private connection to the system bus per process,
 * on first use, and speaks realtimed's native interface
 * (org.realtimed.Realtime1). Where realtimed is not on the bus it falls
 * back to org.freedesktop.RealtimeKit1 (rtkit-daemon, or realtimed's own
 * compatible interface), with the limits librealtime(3) lists.
 *
 * Every call is thread-safe, waits at most a bounded time for an answer
 * (REALTIME_TIMEOUT_MSEC in the environment, 5000 by default) and returns
 * 0 or a negative errno. After a failure, realtime_error_message() tells
 * the calling thread why, in the words realtimed answered with (which name
 * the policy limit and the file:line that set it). A child of fork() opens
 * its own connection on its first call.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Who answered: realtimed's native interface, or a RealtimeKit1 service. */
enum realtime_service {
	REALTIME_SERVICE_NONE = 0,
	REALTIME_SERVICE_REALTIMED = 1,
	REALTIME_SERVICE_RTKIT = 2,
};

/* What realtime_grant_limits() set; a limit the policy leaves alone has its
 * has_ field 0. Values as setrlimit(2) takes them; RLIM_INFINITY is
 * UINT64_MAX. */
struct realtime_limits {
	int has_rtprio, has_memlock, has_rttime, has_nice;
	uint64_t rtprio, memlock, rttime, nice;
};

/* Thread tid of the calling process (0: the calling thread) to policy
 * SCHED_FIFO or SCHED_RR at priority 1..99, with SCHED_RESET_ON_FORK
 * (which policy may include). Over RealtimeKit, SCHED_FIFO is granted as
 * SCHED_RR, the only policy rtkit grants. A tid that is not a thread of
 * the calling process is -ESRCH. */
int realtime_make_thread_realtime(pid_t tid, int policy, int priority);
/* Thread tid (0: the calling thread) to SCHED_OTHER at nice level -20..19. */
int realtime_make_thread_high_priority(pid_t tid, int nice_level);
/* Undoes realtimed's grant of thread tid (0: the calling thread): it goes
 * back to what it ran with before; -ENOENT when it holds no grant. Over
 * RealtimeKit, which cannot reset one thread, the library lowers the
 * thread itself to what it remembered of it. */
int realtime_reset_thread(pid_t tid);
/* The policy's rlimits onto the calling process; ret may be NULL.
 * -EOPNOTSUPP over RealtimeKit, which has no such call. */
int realtime_grant_limits(struct realtime_limits *ret);

/* What the policy allows the calling user. */
int realtime_get_max_realtime_priority(int *ret);
int realtime_get_min_nice_level(int *ret);
int realtime_get_rttime_usec_max(int64_t *ret);

/* The service this process talks to (connecting, and pinging it, if need
 * be): REALTIME_SERVICE_REALTIMED or REALTIME_SERVICE_RTKIT, or a negative
 * errno (-ENXIO) when neither is reachable. */
int realtime_service(void);

/* Why the calling thread's last failed call failed; "" when none did. The
 * text stays valid until the thread's next call. */
const char *realtime_error_message(void);

#ifdef __cplusplus
}
#endif
