// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The oracle's check of a bus-fuzz call that succeeded. What may succeed is
 * decided here, from the limits the test passed: a grant, reset or
 * GrantLimits on a thread or process of another user, an out-of-range id,
 * a signature the method does not take, Set on a read-only property,
 * rtkit's root-only methods, and ListGrants or Explain answering about
 * other users to a caller without org.realtimed.manage are violations
 * whenever they succeed; after every successful grant the thread's
 * scheduling and its process's RLIMIT_RTTIME are checked against policy
 * (oracle.c), after GrantLimits the process's limits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bus-fuzz.h"

void check_thread(const Desc *d, pid_t pid, pid_t tid, int base_policy, int base_nice)
{
	uint64_t soft, rttime = FUZZ_INFINITY;
	ThreadState s;
	char why[400];

	if (thread_state(tid, &s) < 0)
		return;
	(void)process_limit(pid, limit_names[LIM_RTTIME], &soft, &rttime);
	if (state_violates(&limits, &s, base_policy, base_nice, rttime, why, sizeof(why)))
		violation(d, "thread %d of process %d runs %s", (int)tid, (int)pid, why);
}

void check_target(const Desc *d, pid_t tid)
{
	Target all[TARGETS_MAX];
	size_t n = victims_targets(all, ELEMENTSOF(all));

	for (size_t i = 0; i < n; i++)
		if (all[i].tid == tid) {
			check_thread(d, all[i].pid, tid, all[i].base_policy, all[i].base_nice);
			stats.grants_checked++;
		}
}

/* After a grant or reset that succeeded: was it the caller's thread, and is
 * it within policy now? */
static void check_sched(const Call *c)
{
	const Aim *a = &c->aim;
	uint64_t st;

	if (a->pid <= 0 || a->tid <= 0) {
		violation(&c->d, "succeeded for an id out of range");
		return;
	}
	if (!a->exists) {
		/* tid was not a thread of pid when the call was sent */
		if (thread_start_time(a->pid, a->tid, &st) < 0)
			violation(&c->d, "succeeded although %d is not a thread of process %d",
				  (int)a->tid, (int)a->pid);
		return;
	}
	if (thread_start_time(a->pid, a->tid, &st) < 0 || st != a->start)
		return; /* it ended meanwhile: nothing left to check */
	if (a->foreign) {
		violation(&c->d,
			  "changed thread %d of process %d, whose uids are %u/%u/%u, not the "
			  "caller's %u",
			  (int)a->tid, (int)a->pid, a->uids[0], a->uids[1], a->uids[2],
			  (unsigned)self_uid);
		return;
	}
	check_thread(&c->d, a->pid, a->tid, a->base_policy, a->base_nice);
	stats.grants_checked++;
}

/* ResetProcess: every thread of ours in that process. */
static void check_process(const Call *c)
{
	Target all[TARGETS_MAX];
	size_t n;

	if (c->aim.foreign || c->aim.pid <= 0) {
		violation(&c->d, "reset process %d of uid %u", (int)c->aim.pid, c->aim.uids[0]);
		return;
	}
	n = victims_targets(all, ELEMENTSOF(all));
	for (size_t i = 0; i < n; i++)
		if (all[i].pid == c->aim.pid)
			check_thread(&c->d, all[i].pid, all[i].tid, all[i].base_policy,
				     all[i].base_nice);
	stats.grants_checked++;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* GrantLimits: no limit above both what the process had and what policy
 * gives, no RLIMIT_RTPRIO for a user without fifo (the kernel's limit
 * covers both policies), and RLIMIT_RTTIME within RTTime= whenever
 * RLIMIT_RTPRIO is not 0. */
static void check_limits(const Call *c)
{
	const uint64_t *b = c->before;
	uint64_t after[_LIM_MAX], allowed[_LIM_MAX];
	bool ok;

	if (c->aim.pid <= 0 || !c->aim.exists) {
		violation(&c->d, "GrantLimits succeeded for a process that does not exist");
		return;
	}
	if (c->aim.foreign) {
		violation(&c->d, "GrantLimits succeeded on process %d of uid %u", (int)c->aim.pid,
			  c->aim.uids[0]);
		return;
	}
	process_limits(c->aim.pid, after, &ok);
	if (!ok || !c->has_before)
		return;
	allowed[LIM_RTPRIO] =
		limits.policies & FUZZ_FIFO && limits.max_prio > 0 ? (uint64_t)limits.max_prio : 0;
	allowed[LIM_RTTIME] = limits.rttime_usec;
	allowed[LIM_NICE] = limits.nice_set ? (uint64_t)(20 - limits.min_nice) : 0;
	allowed[LIM_MEMLOCK] = limits.memlock;
	for (int i = 0; i < _LIM_MAX; i++)
		if (after[i] > max_u64(b[i], allowed[i]))
			violation(&c->d,
				  "process %d holds a hard \"%s\" of %" PRIu64
				  ", above both %" PRIu64 " before the call and %" PRIu64
				  " from policy",
				  (int)c->aim.pid, limit_names[i], after[i], b[i], allowed[i]);
	if (after[LIM_RTPRIO] > 0 && limits.rttime_usec != FUZZ_INFINITY &&
	    after[LIM_RTTIME] > limits.rttime_usec)
		violation(&c->d,
			  "process %d holds RLIMIT_RTPRIO %" PRIu64 " with a hard RLIMIT_RTTIME of "
			  "%" PRIu64 " us, above RTTime=%" PRIu64 " us",
			  (int)c->aim.pid, after[LIM_RTPRIO], after[LIM_RTTIME],
			  limits.rttime_usec);
	stats.limits_checked++;
}

/* Whatever call c was answered with reply, no violation shows. */
void call_check(const Call *c, DBusMessage *reply)
{
	if (c->random_args) {
		/* a method of realtimed's that takes other arguments must
		 * refuse these (Introspect may be lenient) */
		if (!dbus_message_has_interface(c->m, DBUS_INTERFACE_INTROSPECTABLE) &&
		    !dbus_message_has_signature(c->m, c->signature ? c->signature : ""))
			violation(&c->d, "accepted arguments of signature '%s'",
				  dbus_message_get_signature(c->m));
		return;
	}
	switch (c->kind) {
	case CALL_MAKE_RT:
	case CALL_LONG_STRING:
	case CALL_MAKE_HIGH:
	case CALL_RESET_THREAD:
	case CALL_RTKIT_RT:
	case CALL_RTKIT_RT_PID:
	case CALL_RTKIT_HIGH:
	case CALL_RTKIT_HIGH_PID:
		check_sched(c);
		break;
	case CALL_RESET_PROCESS:
		check_process(c);
		break;
	case CALL_GRANT_LIMITS:
		check_limits(c);
		break;
	case CALL_EXPLAIN:
		if (!limits.sees_all && c->aim.pid_arg != self_uid)
			violation(&c->d,
				  "uid %u read another user's policy without "
				  "org.realtimed.manage",
				  (unsigned)self_uid);
		break;
	case CALL_LIST_GRANTS: {
		_cleanup_free_ ListedGrant *g = NULL;
		size_t n = 0;

		if (parse_grants(reply, &g, &n) < 0) {
			violation(&c->d, "ListGrants answered signature '%s'",
				  dbus_message_get_signature(reply));
			break;
		}
		for (size_t i = 0; i < n && !limits.sees_all; i++)
			if (g[i].uid != self_uid) {
				violation(&c->d,
					  "uid %u sees a grant of uid %u (process %d) without "
					  "org.realtimed.manage",
					  (unsigned)self_uid, (unsigned)g[i].uid, (int)g[i].pid);
				break;
			}
		break;
	}
	case CALL_RTKIT_ROOT:
		violation(&c->d, "uid %u may call a root-only method", (unsigned)self_uid);
		break;
	case CALL_PROP_SET:
		violation(&c->d, "Set of a read-only property succeeded");
		break;
	case CALL_UNKNOWN:
		/* Ping and Introspect by another name are fine; a method of
		 * the daemon's own interfaces that does not exist is not */
		if (dbus_message_has_interface(c->m, NATIVE_IFACE) ||
		    dbus_message_has_interface(c->m, RTKIT_IFACE)) {
			const char *m = dbus_message_get_member(c->m);
			static const char *const known[] = {
				"MakeThreadRealtime",
				"MakeThreadHighPriority",
				"ResetThread",
				"ResetProcess",
				"GrantLimits",
				"Explain",
				"ListGrants",
				"ListIrqThreads",
				"Reload",
				"SubscribeDemoted",
				"MakeThreadRealtimeWithPID",
				"MakeThreadHighPriorityWithPID",
				"ResetKnown",
				"ResetAll",
				"Exit",
			};
			bool is_known = false;

			for (size_t i = 0; i < ELEMENTSOF(known); i++)
				is_known = is_known || streq(m, known[i]);
			if (!is_known)
				violation(&c->d, "an unknown method succeeded");
		}
		break;
	default:
		/* the other single calls (IRQ list, reload, properties,
		 * introspection, ping) have nothing more to check; call-build.c
		 * names every kind, and the kinds that are not single calls
		 * never get here */
		break;
	}
}
