/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency's measuring threads made realtime the way a program
 * of this user gets it: realtimed explains the caller's policy (its
 * highest RealtimePriority and Policies), grants the policy's rlimits
 * (GrantLimits: RLIMIT_RTTIME, which a realtime grant needs, and
 * RLIMIT_MEMLOCK for mlockall()), then each thread (MakeThreadRealtime).
 * Where realtimed is not there, lat_grant_self() (latency.c) does what the
 * process may do itself; where it refuses, the threads stay SCHED_OTHER
 * and the note says so: that is this user's answer too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bus.h"
#include "latency.h"
#include "parse.h"

typedef struct SelfPolicy {
	int priority;	   /* RealtimePriority */
	unsigned policies; /* Policies, POLICY_SCHED_* */
	uint64_t rttime;   /* RTTime in µs; UINT64_MAX: unlimited or unset */
} SelfPolicy;

/* The caller's policy, as realtimed explains it. */
static int explain_self(DBusConnection *c, SelfPolicy *ret)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	dbus_uint32_t uid = getuid();
	DBusMessageIter iter, array;
	SelfPolicy p = { .rttime = UINT64_MAX };
	int r;

	r = bus_call(c, "Explain", "ask realtimed for your realtime policy", false, "a{s(ss)}",
		     &reply, DBUS_TYPE_UINT32, &uid, DBUS_TYPE_INVALID);
	if (r > 0)
		return r;
	dbus_message_iter_init(reply, &iter);
	dbus_message_iter_recurse(&iter, &array);
	while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_DICT_ENTRY) {
		const char *key, *value, *source;

		bus_iter_read_explain(&array, &key, &value, &source);
		if (streq(key, "RealtimePriority") && parse_priority(value, true, &p.priority) < 0)
			p.priority = 0;
		if (streq(key, "Policies") && parse_policies(value, &p.policies) < 0)
			p.policies = 0;
		if (streq(key, "RTTime") && parse_duration(value, true, &p.rttime) < 0)
			p.rttime = UINT64_MAX;
	}
	*ret = p;
	return 0;
}

/* Where realtimed could not set the rlimits (it may lack CAP_SYS_RESOURCE
 * over another user's process), lowers RLIMIT_RTTIME to the policy's
 * itself, which any process may: realtimed grants no thread without it. */
static void lower_rttime(uint64_t usec)
{
	struct rlimit rl;

	if (usec == UINT64_MAX || getrlimit(RLIMIT_RTTIME, &rl) < 0)
		return;
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > usec)
		rl.rlim_max = usec;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	(void)setrlimit(RLIMIT_RTTIME, &rl);
}

int lat_grant(LatRun *run)
{
	_cleanup_bus_connection_ DBusConnection *c = NULL;
	_cleanup_bus_message_ DBusMessage *limits = NULL;
	dbus_uint64_t self = 0;
	const char *policy;
	SelfPolicy p = {}; /* = {}: -O2 cannot see explain_self() fill it */
	int priority, r;

	r = bus_open(&c);
	if (r == 0)
		r = explain_self(c, &p);
	if (r == CTL_EXIT_UNREACHABLE)
		return lat_grant_self(run, "realtimed is not reachable");
	run->realtimed = r == 0;
	if (r > 0) {
		snprintf(run->note, sizeof(run->note),
			 "measured without realtime: realtimed would not tell your policy");
		lat_lock_memory(run);
		return -1;
	}
	priority = run->priority > 0 ? run->priority : p.priority;
	policy = p.policies & POLICY_SCHED_FIFO ? "fifo"
		 : p.policies & POLICY_SCHED_RR ? "rr"
						: NULL;
	if (!policy || priority <= 0) {
		snprintf(run->note, sizeof(run->note),
			 "measured without realtime: your policy gives you none "
			 "(see realtimectl explain)");
		lat_lock_memory(run);
		return -1;
	}

	/* RLIMIT_RTTIME first: realtimed grants no thread of a process without it */
	r = bus_call(c, "GrantLimits", "get the policy's resource limits from realtimed", false,
		     "a{st}", &limits, DBUS_TYPE_UINT64, &self, DBUS_TYPE_INVALID);
	if (r > 0) {
		fprintf(stderr, "Going on without them.\n");
		lower_rttime(p.rttime);
		r = 0;
	}
	lat_lock_memory(run);
	for (size_t k = 0; r == 0 && k < run->n_cpus; k++) {
		char what[96];

		snprintf(what, sizeof(what), "make the measuring thread on CPU %d SCHED_%s %d",
			 run->cpus[k].cpu, streq(policy, "fifo") ? "FIFO" : "RR", priority);
		r = bus_make_thread_realtime(c, 0, (uint64_t)run->cpus[k].tid, policy, priority,
					     what);
	}
	if (r > 0) {
		/* those already granted go back, so every CPU is measured alike */
		for (size_t k = 0; k < run->n_cpus; k++) {
			struct sched_param other = {};

			(void)sched_setscheduler(run->cpus[k].tid, SCHED_OTHER, &other);
		}
		snprintf(run->note, sizeof(run->note),
			 "measured without realtime: realtimed refused SCHED_%s %d (why: above)",
			 streq(policy, "fifo") ? "FIFO" : "RR", priority);
	}
	return -1;
}
