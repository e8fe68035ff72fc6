// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One random call of bus-fuzz, built: every method and property of
 * org.realtimed.Realtime1 and org.freedesktop.RealtimeKit1, Properties,
 * Introspectable and Peer, with their own signatures and now and then
 * random ones, aimed at the targets of victims.c with random and extreme
 * ids. Just before it is sent, call_prepare() reads what its target is
 * then, for call-check.c to judge the outcome against.
 */
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz.h"

/* Ids near the edges of pid_t and of the types around it. */
static uint64_t extreme_id(Rng *r, pid_t near)
{
	switch (rng_below(r, 9)) {
	case 0:
		return INT32_MAX;
	case 1:
		return (uint64_t)INT32_MAX + 1;
	case 2:
		return UINT32_MAX;
	case 3:
		return (1ULL << 32) + (uint64_t)near; /* near, if cut to 32 bits */
	case 4:
		return UINT64_MAX;
	case 5:
		return UINT64_MAX - rng_below(r, 1000);
	case 6:
		return (uint64_t) - (int64_t)near;
	case 7:
		return rng_next(r);
	default:
		return 1 + rng_below(r, 4194304);
	}
}

static void aim_resolve(Aim *a)
{
	Target all[TARGETS_MAX];
	size_t n;

	a->pid = a->pid_arg == 0 ? self_pid : a->pid_arg <= INT_MAX ? (pid_t)a->pid_arg : -1;
	a->tid = a->tid_arg == 0 ? a->pid : a->tid_arg <= INT_MAX ? (pid_t)a->tid_arg : -1;
	a->base_policy = SCHED_OTHER;
	a->base_nice = 0;
	if (a->pid <= 0 || a->tid <= 0)
		return;
	a->exists = thread_start_time(a->pid, a->tid, &a->start) == 0 &&
		    thread_uids(a->pid, a->tid, a->uids) == 0;
	if (!a->exists)
		return;
	a->foreign = a->uids[0] != self_uid || a->uids[1] != self_uid || a->uids[2] != self_uid;
	n = victims_targets(all, ELEMENTSOF(all));
	for (size_t i = 0; i < n; i++)
		if (all[i].tid == a->tid && all[i].start == a->start) {
			a->base_policy = all[i].base_policy;
			a->base_nice = all[i].base_nice;
		}
}

static void aim_pick(Worker *w, Aim *a)
{
	Rng *r = &w->rng;
	uint64_t x = rng_below(r, 100);
	Target t, t2;
	SysProc sp;

	*a = (Aim){ 0 };
	if (x < 30 && victims_pick_target(r, &t)) {
		a->pid_arg = t.pid == self_pid && rng_chance(r, 50) ? 0 : (uint64_t)t.pid;
		a->tid_arg = t.tid == t.pid && rng_chance(r, 50) ? 0 : (uint64_t)t.tid;
	} else if (x < 40) {
		/* the caller's own main thread */
	} else if (x < 55 && victims_pick_sys(r, false, &sp)) {
		a->pid_arg = (uint64_t)sp.pid;
		a->tid_arg = rng_chance(r, 50) ? 0 : (uint64_t)sp.tid;
	} else if (x < 60 && victims_pick_sys(r, true, &sp)) {
		a->pid_arg = (uint64_t)sp.pid;
		a->tid_arg = rng_chance(r, 50) ? 0 : (uint64_t)sp.tid;
	} else if (x < 63) {
		a->pid_arg = 1 + rng_below(r, 2); /* init, kthreadd */
	} else if (x < 70) {
		a->pid_arg = rng_chance(r, 50) ? (uint64_t)victims_pick_dead(r, false) : 0;
		a->tid_arg = rng_chance(r, 50) ? (uint64_t)victims_pick_dead(r, true) : 0;
	} else if (x < 78 && victims_pick_target(r, &t) && victims_pick_target(r, &t2)) {
		a->pid_arg = (uint64_t)t.pid; /* a tid of another process */
		a->tid_arg = (uint64_t)t2.tid;
	} else if (x < 85) {
		a->pid_arg = rng_chance(r, 50) ? 0 : (uint64_t)self_pid;
		a->tid_arg = extreme_id(r, victims_pick_sleeper(r, NULL));
	} else if (x < 93) {
		a->pid_arg = extreme_id(r, self_pid);
		a->tid_arg = rng_chance(r, 50) ? 0 : extreme_id(r, self_pid);
	} else {
		/* a thread id where a process id belongs */
		a->pid_arg = (uint64_t)victims_pick_sleeper(r, NULL);
		a->tid_arg = rng_chance(r, 50) ? 0 : a->pid_arg;
	}
}

static uint32_t pick_prio(Rng *r)
{
	int max = limits.max_prio > 0 ? limits.max_prio : 1;

	if (rng_chance(r, 50))
		return 1 + (uint32_t)rng_below(r, (uint64_t)max + 3);
	return gen_u32(r, 1, (uint32_t)max);
}

static int32_t pick_nice(Rng *r)
{
	int lo = limits.nice_set ? limits.min_nice : 0;

	if (rng_chance(r, 50))
		return lo - 3 + (int32_t)rng_below(r, (uint64_t)(19 - lo + 4));
	return gen_i32(r, lo, 19);
}

static const char *pick_policy(Rng *r, Desc *d, char **to_free)
{
	uint64_t x = rng_below(r, 100);

	if (x < 40) {
		desc_add(d, "s'fifo'");
		return "fifo";
	}
	if (x < 75) {
		desc_add(d, "s'rr'");
		return "rr";
	}
	*to_free = gen_string(r, d);
	return *to_free;
}

/* A policy the user may hold, for calls meant to be granted. */
const char *allowed_policy(void)
{
	return limits.policies & FUZZ_FIFO ? "fifo" : "rr";
}

bool pick_nice0_grant(Rng *r, int min_prio, int *ret_sleeper, uint32_t *ret_prio)
{
	*ret_sleeper = 4 * (int)rng_below(r, SLEEPERS / 4);
	if (limits.max_prio < min_prio)
		return false;
	*ret_prio = (uint32_t)min_prio +
		    (uint32_t)rng_below(r, (uint64_t)(limits.max_prio - min_prio + 1));
	return true;
}

DBusMessage *native_grant_call(uint64_t tid, uint32_t prio, Desc *d, const char *tail)
{
	uint64_t pid = 0;
	const char *pol = allowed_policy();
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadRealtime");

	call_append(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_STRING, &pol,
		    DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
	desc_add(d, "native.MakeThreadRealtime(t 0, t %" PRIu64 ", s'%s', u %u)%s", tid, pol, prio,
		 tail);
	return m;
}

/* member() of realtimed's native object, or of rtkit's: no arguments. */
static void call_without_args(Call *c, bool rtkit, const char *member)
{
	c->m = rtkit ? call_new(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, member)
		     : call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, member);
	c->signature = "";
	desc_add(&c->d, "%s.%s()", rtkit ? "rtkit" : "native", member);
}

/* A native method that acts on a thread or process, at a random target. */
static void native_aimed(Worker *w, Call *c, const char *member, const char *signature)
{
	c->m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, member);
	c->signature = signature;
	aim_pick(w, &c->aim);
	c->has_aim = true;
}

/* Builds a call of kind k (one of the single calls) into c. */
void call_build(Worker *w, CallKind k, Call *c)
{
	Rng *r = &w->rng;
	Aim *a = &c->aim;
	_cleanup_free_ char *s1 = NULL, *s2 = NULL;
	const char *dest, *path, *iface, *str1, *str2;
	char member[256], ifbuf[256];
	uint32_t u;
	int32_t i;
	bool rtkit = rng_chance(r, 50);

	*c = (Call){ .kind = k };
	switch (k) {
	case CALL_MAKE_RT:
	case CALL_LONG_STRING:
		native_aimed(w, c, "MakeThreadRealtime", "ttsu");
		u = pick_prio(r);
		desc_add(&c->d, "native.MakeThreadRealtime(t %" PRIu64 ", t %" PRIu64 ", ",
			 a->pid_arg, a->tid_arg);
		if (k == CALL_LONG_STRING)
			str1 = s1 = gen_string(r, &c->d);
		else
			str1 = pick_policy(r, &c->d, &s1);
		desc_add(&c->d, ", u %u)", u);
		call_append(c->m, DBUS_TYPE_UINT64, &a->pid_arg, DBUS_TYPE_UINT64, &a->tid_arg,
			    DBUS_TYPE_STRING, &str1, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
		break;
	case CALL_MAKE_HIGH:
		native_aimed(w, c, "MakeThreadHighPriority", "tti");
		i = pick_nice(r);
		desc_add(&c->d, "native.MakeThreadHighPriority(t %" PRIu64 ", t %" PRIu64 ", i %d)",
			 a->pid_arg, a->tid_arg, i);
		call_append(c->m, DBUS_TYPE_UINT64, &a->pid_arg, DBUS_TYPE_UINT64, &a->tid_arg,
			    DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID);
		break;
	case CALL_RESET_THREAD:
		native_aimed(w, c, "ResetThread", "tt");
		desc_add(&c->d, "native.ResetThread(t %" PRIu64 ", t %" PRIu64 ")", a->pid_arg,
			 a->tid_arg);
		call_append(c->m, DBUS_TYPE_UINT64, &a->pid_arg, DBUS_TYPE_UINT64, &a->tid_arg,
			    DBUS_TYPE_INVALID);
		break;
	case CALL_RESET_PROCESS:
	case CALL_GRANT_LIMITS:
		native_aimed(w, c, k == CALL_GRANT_LIMITS ? "GrantLimits" : "ResetProcess", "t");
		a->tid_arg = 0;
		desc_add(&c->d, "native.%s(t %" PRIu64 ")", dbus_message_get_member(c->m),
			 a->pid_arg);
		call_append(c->m, DBUS_TYPE_UINT64, &a->pid_arg, DBUS_TYPE_INVALID);
		break;
	case CALL_EXPLAIN: {
		static const uint32_t uids[] = { 0, 4101, 4102, 4103, 65534, UINT32_MAX, 1000 };

		c->m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "Explain");
		c->signature = "u";
		u = rng_chance(r, 40)	? self_uid
		    : rng_chance(r, 70) ? uids[rng_below(r, ELEMENTSOF(uids))]
					: (uint32_t)rng_next(r);
		a->pid_arg = u; /* the uid asked about, for the check */
		desc_add(&c->d, "native.Explain(u %u)", u);
		call_append(c->m, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
		break;
	}
	case CALL_LIST_GRANTS:
	case CALL_LIST_IRQ:
	case CALL_RELOAD: {
		const char *m = k == CALL_LIST_GRANTS ? "ListGrants"
				: k == CALL_LIST_IRQ  ? "ListIrqThreads"
						      : "Reload";

		call_without_args(c, false, m);
		break;
	}
	case CALL_RTKIT_RT:
	case CALL_RTKIT_RT_PID:
	case CALL_RTKIT_HIGH:
	case CALL_RTKIT_HIGH_PID: {
		bool with_pid = k == CALL_RTKIT_RT_PID || k == CALL_RTKIT_HIGH_PID;
		bool rt = k == CALL_RTKIT_RT || k == CALL_RTKIT_RT_PID;
		char m[64];

		snprintf(m, sizeof(m), "%s%s", rt ? "MakeThreadRealtime" : "MakeThreadHighPriority",
			 with_pid ? "WithPID" : "");
		c->m = call_new(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, m);
		aim_pick(w, a);
		c->has_aim = true;
		if (!with_pid)
			a->pid_arg = 0; /* a thread of the caller's process */
		u = pick_prio(r);
		i = pick_nice(r);
		desc_add(&c->d, "rtkit.%s(", m);
		if (with_pid) {
			desc_add(&c->d, "t %" PRIu64 ", ", a->pid_arg);
			call_append(c->m, DBUS_TYPE_UINT64, &a->pid_arg, DBUS_TYPE_INVALID);
		}
		desc_add(&c->d, "t %" PRIu64 ", ", a->tid_arg);
		call_append(c->m, DBUS_TYPE_UINT64, &a->tid_arg, DBUS_TYPE_INVALID);
		if (rt) {
			desc_add(&c->d, "u %u)", u);
			call_append(c->m, DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
			c->signature = with_pid ? "ttu" : "tu";
		} else {
			desc_add(&c->d, "i %d)", i);
			call_append(c->m, DBUS_TYPE_INT32, &i, DBUS_TYPE_INVALID);
			c->signature = with_pid ? "tti" : "ti";
		}
		break;
	}
	case CALL_RTKIT_ROOT: {
		static const char *const m[] = { "ResetKnown", "ResetAll", "Exit" };
		const char *name = m[rng_below(r, ELEMENTSOF(m))];

		call_without_args(c, true, name);
		break;
	}
	case CALL_PROP_GET:
	case CALL_PROP_GET_ALL:
	case CALL_PROP_SET: {
		static const char *const props[] = { "MaxRealtimePriority", "MinNiceLevel",
						     "RTTimeUSecMax" };
		const char *m = k == CALL_PROP_GET	 ? "Get"
				: k == CALL_PROP_GET_ALL ? "GetAll"
							 : "Set";
		uint64_t x = rng_below(r, 100);

		dest = rtkit ? RTKIT_NAME : NATIVE_NAME;
		path = rng_chance(r, 85) == rtkit ? RTKIT_PATH : NATIVE_PATH;
		c->m = call_new(dest, path, DBUS_INTERFACE_PROPERTIES, m);
		desc_add(&c->d, "%s %s Properties.%s(", dest, path, m);
		if (x < 35)
			str1 = rtkit ? RTKIT_IFACE : NATIVE_IFACE;
		else if (x < 45)
			str1 = rtkit ? NATIVE_IFACE : RTKIT_IFACE;
		else if (x < 55)
			str1 = "";
		else
			str1 = s1 = gen_string(r, &c->d);
		if (!s1)
			desc_add(&c->d, "s'%s'", str1);
		call_append(c->m, DBUS_TYPE_STRING, &str1, DBUS_TYPE_INVALID);
		c->signature = "s";
		if (k != CALL_PROP_GET_ALL) {
			if (rng_chance(r, 50)) {
				str2 = props[rng_below(r, ELEMENTSOF(props))];
				desc_add(&c->d, ", s'%s'", str2);
			} else {
				desc_add(&c->d, ", ");
				str2 = s2 = gen_string(r, &c->d);
			}
			call_append(c->m, DBUS_TYPE_STRING, &str2, DBUS_TYPE_INVALID);
			c->signature = "ss";
		}
		if (k == CALL_PROP_SET) {
			DBusMessageIter it, var;
			int32_t val = 99;

			dbus_message_iter_init_append(c->m, &it);
			if (!dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "i", &var) ||
			    !dbus_message_iter_append_basic(&var, DBUS_TYPE_INT32, &val) ||
			    !dbus_message_iter_close_container(&it, &var))
				abort();
			desc_add(&c->d, ", v 99");
			c->signature = "ssv";
		}
		desc_add(&c->d, ")");
		break;
	}
	case CALL_INTROSPECT: {
		static const char *const paths[] = { "/",
						     "/org",
						     "/org/realtimed",
						     NATIVE_PATH,
						     RTKIT_PATH,
						     NATIVE_PATH "/child",
						     "/org/freedesktop" };

		dest = rtkit ? RTKIT_NAME : NATIVE_NAME;
		path = paths[rng_below(r, ELEMENTSOF(paths))];
		c->m = call_new(dest, path, DBUS_INTERFACE_INTROSPECTABLE, "Introspect");
		c->signature = "";
		desc_add(&c->d, "%s %s Introspect()", dest, path);
		break;
	}
	case CALL_PEER: {
		const char *m = rng_chance(r, 70) ? "Ping" : "GetMachineId";

		dest = rtkit ? RTKIT_NAME : NATIVE_NAME;
		c->m = call_new(dest, rtkit ? RTKIT_PATH : NATIVE_PATH, DBUS_INTERFACE_PEER, m);
		desc_add(&c->d, "%s Peer.%s()", dest, m);
		break;
	}
	case CALL_UNKNOWN:
		dest = rtkit ? RTKIT_NAME : NATIVE_NAME;
		path = rng_chance(r, 80) ? (rtkit ? RTKIT_PATH : NATIVE_PATH) : "/x";
		gen_member(r, member, sizeof(member));
		switch (rng_below(r, 4)) {
		case 0:
			iface = NULL;
			break;
		case 1:
			iface = rtkit ? RTKIT_IFACE : NATIVE_IFACE;
			break;
		default:
			gen_interface(r, ifbuf, sizeof(ifbuf));
			iface = ifbuf;
		}
		c->m = call_new(dest, path, iface, member);
		desc_add(&c->d, "%s %s %.60s.%.60s()", dest, path, iface ? iface : "(no interface)",
			 member);
		/* a method of the interface it does not know must fail, whatever it is */
		c->signature = NULL;
		break;
	case CALL_RENAME_LIST:
	case CALL_DISCONNECT:
	case CALL_MANY_CONNECTIONS:
	case CALL_RACE:
	case CALL_BURST:
	case CALL_MANAGE_FLOOD:
	case CALL_SPIN_OTHER:
	case CALL_TID_CHURN:
	case _CALL_KIND_MAX:
		abort();
	}

	/* the same method with arguments of random types, now and then */
	if (c->signature && k != CALL_PEER && rng_chance(r, 12)) {
		DBusMessage *m =
			call_new(dbus_message_get_destination(c->m), dbus_message_get_path(c->m),
				 dbus_message_get_interface(c->m), dbus_message_get_member(c->m));

		c->d = (Desc){ .len = 0 };
		desc_add(&c->d, "%s %s.%s", dbus_message_get_destination(m),
			 dbus_message_get_interface(m), dbus_message_get_member(m));
		if (!gen_append_random_args(r, m, &c->d))
			abort();
		dbus_message_unref(c->m);
		c->m = m;
		c->random_args = true;
		c->has_aim = false;
	}
}

/* Just before sending: what the target is now, and GrantLimits' "before". */
void call_prepare(Call *c)
{
	if (!c->has_aim)
		return;
	aim_resolve(&c->aim);
	if (c->kind == CALL_GRANT_LIMITS && c->aim.exists)
		process_limits(c->aim.pid, c->before, &c->has_before);
}
