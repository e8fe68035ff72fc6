/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls on realtimed's native interface, org.realtimed.Realtime1
 * (daemon/org.realtimed.Realtime1.xml): one message each, pid 0 (the
 * caller's process, as the bus tells realtimed) and the thread's tid. The
 * daemon checks everything again; what it refuses comes back as its error
 * name (error.c maps it) and its message.
 */
#include <errno.h>
#include <stddef.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

#include "bus-names.h"
#include "realtime-internal.h"

int native_make_thread_realtime(DBusConnection *c, pid_t tid, int policy, int priority,
				realtime_deadline deadline)
{
	dbus_uint64_t pid = 0, t = (dbus_uint64_t)tid;
	dbus_uint32_t prio = (dbus_uint32_t)priority;
	const char *p = policy == SCHED_FIFO ? "fifo" : "rr";

	return realtime_bus_call_method(c, NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
					"MakeThreadRealtime", deadline, NULL, DBUS_TYPE_UINT64,
					&pid, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &p,
					DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
}

int native_make_thread_high_priority(DBusConnection *c, pid_t tid, int nice_level,
				     realtime_deadline deadline)
{
	dbus_uint64_t pid = 0, t = (dbus_uint64_t)tid;
	dbus_int32_t n = nice_level;

	return realtime_bus_call_method(c, NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
					"MakeThreadHighPriority", deadline, NULL, DBUS_TYPE_UINT64,
					&pid, DBUS_TYPE_UINT64, &t, DBUS_TYPE_INT32, &n,
					DBUS_TYPE_INVALID);
}

int native_reset_thread(DBusConnection *c, pid_t tid, realtime_deadline deadline)
{
	dbus_uint64_t pid = 0, t = (dbus_uint64_t)tid;

	return realtime_bus_call_method(c, NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ResetThread",
					deadline, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64,
					&t, DBUS_TYPE_INVALID);
}

/* GrantLimits' keys, and where each goes in struct realtime_limits. */
static const struct {
	const char *key;
	size_t has, value;
} limit_keys[] = {
	{ "RLIMIT_RTPRIO", offsetof(struct realtime_limits, has_rtprio),
	  offsetof(struct realtime_limits, rtprio) },
	{ "RLIMIT_MEMLOCK", offsetof(struct realtime_limits, has_memlock),
	  offsetof(struct realtime_limits, memlock) },
	{ "RLIMIT_RTTIME", offsetof(struct realtime_limits, has_rttime),
	  offsetof(struct realtime_limits, rttime) },
	{ "RLIMIT_NICE", offsetof(struct realtime_limits, has_nice),
	  offsetof(struct realtime_limits, nice) },
};

/* Fills ret from GrantLimits' a{st}; a key this library does not know (a
 * newer realtimed) is skipped. */
int native_parse_limits(DBusMessage *reply, struct realtime_limits *ret)
{
	struct realtime_limits l = {};
	DBusMessageIter it, arr;

	if (!dbus_message_has_signature(reply, "a{st}"))
		return realtime_fail(-EBADMSG, "realtimed answered GrantLimits with signature '%s'",
				     dbus_message_get_signature(reply));
	dbus_message_iter_init(reply, &it);
	for (dbus_message_iter_recurse(&it, &arr);
	     dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_DICT_ENTRY;
	     dbus_message_iter_next(&arr)) {
		DBusMessageIter e;
		const char *key;
		dbus_uint64_t v;

		dbus_message_iter_recurse(&arr, &e);
		dbus_message_iter_get_basic(&e, &key);
		dbus_message_iter_next(&e);
		dbus_message_iter_get_basic(&e, &v);
		for (size_t i = 0; i < ELEMENTSOF(limit_keys); i++)
			if (streq(key, limit_keys[i].key)) {
				*(int *)((char *)&l + limit_keys[i].has) = 1;
				*(uint64_t *)((char *)&l + limit_keys[i].value) = v;
			}
	}
	if (ret)
		*ret = l;
	return 0;
}

int native_grant_limits(DBusConnection *c, struct realtime_limits *ret, realtime_deadline deadline)
{
	_cleanup_message_ DBusMessage *reply = NULL;
	dbus_uint64_t pid = 0;
	int r;

	r = realtime_bus_call_method(c, NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "GrantLimits",
				     deadline, &reply, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	if (r < 0)
		return r;
	return native_parse_limits(reply, ret);
}
