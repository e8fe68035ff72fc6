/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librealtime's public calls (librealtime.h): each checks its arguments as
 * the kernel call it stands for would, turns tid 0 into the calling
 * thread, takes the process's connection (bus.c), and asks the service
 * that answers for this process: realtimed (native.c), or RealtimeKit1
 * (rtkit.c) where realtimed has no owner and cannot be activated. When
 * the service it remembered has left the bus, it asks the bus again, once.
 */
#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bus-names.h"
#include "realtime-internal.h"

typedef enum RequestKind {
	REQUEST_REALTIME,
	REQUEST_HIGH_PRIORITY,
	REQUEST_RESET,
	REQUEST_LIMITS,
	REQUEST_PROPERTY,
	REQUEST_SERVICE,
} RequestKind;

typedef struct Request {
	RequestKind kind;
	pid_t tid;
	int policy;
	int value; /* priority or nice level */
	const char *property;
	struct realtime_limits *limits;
	int64_t *ret;
} Request;

/* A round trip proves that the service is there (and starts it when the
 * bus can); Peer.Ping is answered by every libdbus and sd-bus service. */
static int request_ping(DBusConnection *c, const char *dest, const char *path,
			realtime_deadline deadline)
{
	return realtime_bus_call_method(c, dest, path, DBUS_INTERFACE_PEER, "Ping", deadline, NULL,
					DBUS_TYPE_INVALID);
}

static int request_native(DBusConnection *c, const Request *q, realtime_deadline deadline)
{
	switch (q->kind) {
	case REQUEST_REALTIME:
		return native_make_thread_realtime(c, q->tid, q->policy, q->value, deadline);
	case REQUEST_HIGH_PRIORITY:
		return native_make_thread_high_priority(c, q->tid, q->value, deadline);
	case REQUEST_RESET:
		return native_reset_thread(c, q->tid, deadline);
	case REQUEST_LIMITS:
		return native_grant_limits(c, q->limits, deadline);
	case REQUEST_PROPERTY:
		return realtime_bus_get_property(c, NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
						 q->property, deadline, q->ret);
	case REQUEST_SERVICE:
		return request_ping(c, NATIVE_NAME, NATIVE_PATH, deadline);
	}
	return realtime_fail(-EINVAL, "Unknown request");
}

static int request_rtkit(DBusConnection *c, const Request *q, realtime_deadline deadline)
{
	switch (q->kind) {
	case REQUEST_REALTIME:
		return rtkit_make_thread_realtime(c, q->tid, q->policy, q->value, deadline);
	case REQUEST_HIGH_PRIORITY:
		return rtkit_make_thread_high_priority(c, q->tid, q->value, deadline);
	case REQUEST_RESET:
		return rtkit_reset_thread(q->tid);
	case REQUEST_LIMITS:
		return realtime_fail(-EOPNOTSUPP,
				     "RealtimeKit (" RTKIT_NAME
				     ") grants no rlimits; realtimed is not on the system bus");
	case REQUEST_PROPERTY:
		return realtime_bus_get_property(c, RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE,
						 q->property, deadline, q->ret);
	case REQUEST_SERVICE:
		return request_ping(c, RTKIT_NAME, RTKIT_PATH, deadline);
	}
	return realtime_fail(-EINVAL, "Unknown request");
}

/* Returns the service's answer (>= 0: the REALTIME_SERVICE_* that gave it). */
static int request_run(const Request *q)
{
	_cleanup_connection_ DBusConnection *c = NULL;
	realtime_deadline deadline = realtime_deadline_start();
	int r;

	r = realtime_bus_get(deadline, &c);
	if (r < 0)
		return r;
	for (int attempt = 0, failed = 0;; attempt++) {
		int service = realtime_bus_service(c, deadline, failed);

		if (service < 0)
			return service;
		realtime_clear_error();
		r = service == REALTIME_SERVICE_REALTIMED ? request_native(c, q, deadline)
							  : request_rtkit(c, q, deadline);
		/* -ENXIO: the service left the bus (or could not be started)
		 * since we looked; look again, once, for the other one */
		if (r != -ENXIO || attempt > 0)
			return r < 0 ? r : service;
		failed = service;
	}
}

static pid_t thread_resolve(pid_t tid)
{
	return tid == 0 ? (pid_t)syscall(SYS_gettid) : tid;
}

bool realtime_thread_is_ours(pid_t tid)
{
	int saved = errno;
	bool r;

	/* signal 0 is only the question whether tid is a thread of this process */
	r = tid > 0 && syscall(SYS_tgkill, getpid(), tid, 0) == 0;
	errno = saved;
	return r;
}

/* tid must be a thread of this process, as the library promises: anything
 * else is ESRCH, as sched_setscheduler(2) says of a thread it cannot find. */
static int thread_check(pid_t tid)
{
	if (tid < 0)
		return realtime_fail(-EINVAL, "Invalid thread id %d", (int)tid);
	if (!realtime_thread_is_ours(tid))
		return realtime_fail(-ESRCH, "Thread %d is not a thread of this process (%d)",
				     (int)tid, (int)getpid());
	return 0;
}

_public_ int realtime_make_thread_realtime(pid_t tid, int policy, int priority)
{
	Request q = { .kind = REQUEST_REALTIME, .tid = thread_resolve(tid), .value = priority };
	int r;

	realtime_clear_error();
	/* SCHED_RESET_ON_FORK is always set: asking for it is fine */
	q.policy = policy & ~SCHED_RESET_ON_FORK;
	if (q.policy != SCHED_FIFO && q.policy != SCHED_RR)
		return realtime_fail(-EINVAL, "Policy %d is neither SCHED_FIFO nor SCHED_RR",
				     policy);
	if (priority < 1 || priority > 99)
		return realtime_fail(-EINVAL, "Priority %d is outside 1..99", priority);
	r = thread_check(q.tid);
	if (r < 0)
		return r;
	r = request_run(&q);
	return r < 0 ? r : 0;
}

_public_ int realtime_make_thread_high_priority(pid_t tid, int nice_level)
{
	Request q = { .kind = REQUEST_HIGH_PRIORITY,
		      .tid = thread_resolve(tid),
		      .value = nice_level };
	int r;

	realtime_clear_error();
	if (nice_level < -20 || nice_level > 19)
		return realtime_fail(-EINVAL, "Nice level %d is outside -20..19", nice_level);
	r = thread_check(q.tid);
	if (r < 0)
		return r;
	r = request_run(&q);
	return r < 0 ? r : 0;
}

_public_ int realtime_reset_thread(pid_t tid)
{
	Request q = { .kind = REQUEST_RESET, .tid = thread_resolve(tid) };
	int r;

	realtime_clear_error();
	r = thread_check(q.tid);
	if (r < 0)
		return r;
	r = request_run(&q);
	return r < 0 ? r : 0;
}

_public_ int realtime_grant_limits(struct realtime_limits *ret)
{
	Request q = { .kind = REQUEST_LIMITS, .limits = ret };
	int r;

	realtime_clear_error();
	r = request_run(&q);
	return r < 0 ? r : 0;
}

static int get_property(const char *name, int64_t *ret)
{
	Request q = { .kind = REQUEST_PROPERTY, .property = name, .ret = ret };
	int r;

	realtime_clear_error();
	if (!ret)
		return realtime_fail(-EINVAL, "No place for %s given", name);
	r = request_run(&q);
	return r < 0 ? r : 0;
}

/* The properties MaxRealtimePriority and MinNiceLevel are D-Bus int32s. */
static int get_int_property(const char *name, int *ret)
{
	int64_t v;
	int r;

	r = get_property(name, ret ? &v : NULL);
	if (r < 0)
		return r;
	*ret = (int)v;
	return 0;
}

_public_ int realtime_get_max_realtime_priority(int *ret)
{
	return get_int_property("MaxRealtimePriority", ret);
}

_public_ int realtime_get_min_nice_level(int *ret)
{
	return get_int_property("MinNiceLevel", ret);
}

_public_ int realtime_get_rttime_usec_max(int64_t *ret)
{
	return get_property("RTTimeUSecMax", ret);
}

_public_ int realtime_service(void)
{
	Request q = { .kind = REQUEST_SERVICE };

	realtime_clear_error();
	return request_run(&q);
}
