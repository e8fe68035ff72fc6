/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl grant: asks realtimed to make one thread SCHED_FIFO/SCHED_RR
 * (MakeThreadRealtime) or give it a nice level (MakeThreadHighPriority).
 * realtimed checks ownership and policy; this only forms the request.
 */
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "bus.h"
#include "ctl.h"
#include "macro.h"
#include "parse.h"

/* "thread 123/456" or "the main thread of process 123", for messages. */
static int target_name(uint64_t pid, uint64_t tid, char **ret)
{
	int r;

	if (tid)
		r = asprintf(ret, "thread %llu/%llu", (unsigned long long)pid,
			     (unsigned long long)tid);
	else
		r = asprintf(ret, "the main thread of process %llu", (unsigned long long)pid);
	return r < 0 ? -ENOMEM : 0;
}

int verb_grant(Ctl *ctl, int argc, char **argv)
{
	_cleanup_bus_connection_ DBusConnection *c = NULL;
	_cleanup_free_ char *target = NULL, *what = NULL;
	dbus_uint64_t pid, tid;
	int priority = 0, r;

	if (ctl->have_nice) {
		if (ctl->sched_policy)
			return ctl_usage_error(
				"grant takes either --nice or a realtime priority, not both.");
		if (argc != 1)
			return ctl_usage_error("usage: realtimectl grant --nice N PID[/TID]");
	} else {
		if (argc != 2)
			return ctl_usage_error(
				"usage: realtimectl grant [--fifo|--rr] PRIO PID[/TID]");
		if (parse_priority(argv[0], false, &priority) < 0)
			return ctl_usage_error("invalid priority '%s': give 1..99.", argv[0]);
		argv++;
	}
	if (args_parse_target(argv[0], &pid, &tid) < 0)
		return ctl_usage_error("invalid target '%s': give PID or PID/TID.", argv[0]);
	if (target_name(pid, tid, &target) < 0)
		return ctl_oom();

	r = bus_open(&c);
	if (r > 0)
		return r;

	if (ctl->have_nice) {
		if (asprintf(&what, "give %s nice level %d", target, ctl->nice) < 0)
			return ctl_oom();
		r = bus_make_thread_high_priority(c, pid, tid, ctl->nice, what);
		if (r > 0)
			return r;
		if (ctl->json)
			printf("{\"pid\":%llu,\"tid\":%llu,\"policy\":\"nice\",\"priority\":%d}\n",
			       (unsigned long long)pid, (unsigned long long)tid, ctl->nice);
		else if (ctl->legend)
			printf("Gave %s nice level %d.\n", target, ctl->nice);
	} else {
		/* rr by default, as chrt(1): every policy allows it by default. */
		const char *policy = ctl->sched_policy ?: "rr";

		if (asprintf(&what, "make %s SCHED_%s %d", target,
			     streq(policy, "fifo") ? "FIFO" : "RR", priority) < 0)
			return ctl_oom();
		r = bus_make_thread_realtime(c, pid, tid, policy, priority, what);
		if (r > 0)
			return r;
		if (ctl->json)
			printf("{\"pid\":%llu,\"tid\":%llu,\"policy\":\"%s\",\"priority\":%d}\n",
			       (unsigned long long)pid, (unsigned long long)tid, policy, priority);
		else if (ctl->legend)
			printf("Made %s SCHED_%s %d.\n", target,
			       streq(policy, "fifo") ? "FIFO" : "RR", priority);
	}
	return CTL_EXIT_OK;
}
