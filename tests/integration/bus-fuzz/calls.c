// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One random call of bus-fuzz, and the oracle's check of its outcome.
 * Calls cover every method and property of org.realtimed.Realtime1 and
 * org.freedesktop.RealtimeKit1, Properties, Introspectable and Peer, with
 * their own signatures and random ones, aimed at the targets of victims.c
 * with random and extreme ids. worker_call() also picks the client
 * behaviours of clients.c.
 *
 * What may succeed is decided here, from the limits the test passed:
 * a grant, reset or GrantLimits on a thread or process of another user, an
 * out-of-range id, a signature the method does not take, Set on a
 * read-only property, rtkit's root-only methods, and ListGrants or Explain
 * answering about other users to a caller without org.realtimed.manage are
 * violations whenever they succeed; after every successful grant the
 * thread's scheduling and its process's RLIMIT_RTTIME are checked against
 * policy (oracle.c), after GrantLimits the process's limits.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-fuzz.h"

/* Each kind's name (for --calls) and how often it comes up, out of about
 * 100: grants most, then what surrounds them. */
static struct {
	const char *name;
	unsigned weight;
} kinds[_CALL_KIND_MAX] = {
	[CALL_MAKE_RT] = { "make-rt", 12 },
	[CALL_MAKE_HIGH] = { "make-high", 8 },
	[CALL_RESET_THREAD] = { "reset-thread", 5 },
	[CALL_RESET_PROCESS] = { "reset-process", 3 },
	[CALL_GRANT_LIMITS] = { "grant-limits", 4 },
	[CALL_EXPLAIN] = { "explain", 3 },
	[CALL_LIST_GRANTS] = { "list-grants", 5 },
	[CALL_LIST_IRQ] = { "list-irq", 1 },
	[CALL_RELOAD] = { "reload", 1 },
	[CALL_RTKIT_RT] = { "rtkit-rt", 6 },
	[CALL_RTKIT_RT_PID] = { "rtkit-rt-pid", 6 },
	[CALL_RTKIT_HIGH] = { "rtkit-high", 4 },
	[CALL_RTKIT_HIGH_PID] = { "rtkit-high-pid", 4 },
	[CALL_RTKIT_ROOT] = { "rtkit-root", 1 },
	[CALL_PROP_GET] = { "prop-get", 5 },
	[CALL_PROP_GET_ALL] = { "prop-get-all", 3 },
	[CALL_PROP_SET] = { "prop-set", 2 },
	[CALL_INTROSPECT] = { "introspect", 2 },
	[CALL_PEER] = { "peer", 2 },
	[CALL_UNKNOWN] = { "unknown", 3 },
	[CALL_LONG_STRING] = { "long-string", 4 },
	[CALL_RENAME_LIST] = { "rename-list", 5 },
	[CALL_DISCONNECT] = { "disconnect", 4 },
	[CALL_MANY_CONNECTIONS] = { "many-connections", 1 },
	[CALL_RACE] = { "race", 2 },
};

int calls_select(const char *list)
{
	bool keep[_CALL_KIND_MAX] = { false }, any = false;
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		int k;

		for (k = 0; k < _CALL_KIND_MAX; k++)
			if (streq(w, kinds[k].name))
				break;
		if (k == _CALL_KIND_MAX) {
			fprintf(stderr, "bus-fuzz: unknown call kind '%s'; known:", w);
			for (k = 0; k < _CALL_KIND_MAX; k++)
				fprintf(stderr, " %s", kinds[k].name);
			fprintf(stderr, "\n");
			return -EINVAL;
		}
		keep[k] = any = true;
	}
	if (!any) {
		fprintf(stderr, "bus-fuzz: --calls names no kind of call\n");
		return -EINVAL;
	}
	for (int k = 0; k < _CALL_KIND_MAX; k++)
		if (!keep[k])
			kinds[k].weight = 0;
	return 0;
}

static const char *const limit_names[_LIM_MAX] = {
	[LIM_RTPRIO] = "Max realtime priority",
	[LIM_RTTIME] = "Max realtime timeout",
	[LIM_NICE] = "Max nice priority",
	[LIM_MEMLOCK] = "Max locked memory",
};

void call_record(Worker *w, const Desc *d)
{
	unsigned i = w->n_recent++ % ELEMENTSOF(w->recent);

	w->recent[i] = *d;
	w->recent_usec[i] = now_usec();
}

void call_note_error(const char *name)
{
	count_error(name);
	if (streq(name, DBUS_ERROR_NO_REPLY) || streq(name, DBUS_ERROR_SERVICE_UNKNOWN) ||
	    streq(name, DBUS_ERROR_NAME_HAS_NO_OWNER) || streq(name, DBUS_ERROR_DISCONNECTED))
		daemon_suspect = true;
}

/* Sends m on bus, waits for the answer, counts it. */
DBusMessage *call_send(Worker *w, DBusConnection *bus, DBusMessage *m, const Desc *d)
{
	DBusMessage *reply;
	DBusError e;

	call_record(w, d);
	stats.calls++;
	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &e);
	if (reply)
		stats.ok++;
	else {
		call_note_error(e.name ? e.name : "(no error name)");
		/* NoReply: the timeout, or the daemon gone before it answered */
		if (streq_ptr(e.name, DBUS_ERROR_NO_REPLY)) {
			if (!strstr(e.message, "disconnected"))
				stats.timeouts++;
			note("no reply (%.80s): %s", e.message, d->text);
		}
		dbus_error_free(&e);
	}
	/* a fuzzer thread that was made realtime never stays so: the host's safety */
	self_drop_realtime();
	return reply;
}

DBusMessage *call_new(const char *dest, const char *path, const char *iface, const char *member)
{
	DBusMessage *m = dbus_message_new_method_call(dest, path, iface, member);

	if (!m)
		abort();
	return m;
}

void call_append(DBusMessage *m, int first_type, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, first_type);
	ok = dbus_message_append_args_valist(m, first_type, ap);
	va_end(ap);
	if (!ok)
		abort();
}

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

static void read_limits(pid_t pid, uint64_t v[_LIM_MAX], bool *ok)
{
	*ok = true;
	for (int i = 0; i < _LIM_MAX; i++) {
		uint64_t soft;

		if (process_limit(pid, limit_names[i], &soft, &v[i]) < 0)
			*ok = false;
	}
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

		c->m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, m);
		c->signature = "";
		desc_add(&c->d, "native.%s()", m);
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

		c->m = call_new(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, name);
		c->signature = "";
		desc_add(&c->d, "rtkit.%s()", name);
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
		read_limits(c->aim.pid, c->before, &c->has_before);
}

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
	read_limits(c->aim.pid, after, &ok);
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

typedef struct ListedGrant {
	pid_t pid, tid;
	uid_t uid;
} ListedGrant;

/* ListGrants' answer a(ttusssit) as (pid, tid, uid); -EBADMSG when the
 * reply does not have that shape. */
static int parse_grants(DBusMessage *reply, ListedGrant **ret, size_t *ret_n)
{
	DBusMessageIter it, arr;
	ListedGrant *g = NULL;
	size_t n = 0, size = 0;

	if (!dbus_message_has_signature(reply, "a(ttusssit)") ||
	    !dbus_message_iter_init(reply, &it))
		return -EBADMSG;
	dbus_message_iter_recurse(&it, &arr);
	while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
		DBusMessageIter st;
		uint64_t pid, tid;
		uint32_t uid;

		dbus_message_iter_recurse(&arr, &st);
		dbus_message_iter_get_basic(&st, &pid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &tid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &uid);
		if (n == size) {
			ListedGrant *p = realloc(g, (size = size ? 2 * size : 64) * sizeof(*g));

			if (!p)
				abort();
			g = p;
		}
		g[n++] = (ListedGrant){ .pid = (pid_t)pid, .tid = (pid_t)tid, .uid = uid };
		dbus_message_iter_next(&arr);
	}
	*ret = g;
	*ret_n = n;
	return 0;
}

static void check_outcome(const Call *c, DBusMessage *reply)
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
	case CALL_LIST_IRQ:
	case CALL_RELOAD:
	case CALL_PROP_GET:
	case CALL_PROP_GET_ALL:
	case CALL_INTROSPECT:
	case CALL_PEER:
	case CALL_RENAME_LIST:
	case CALL_DISCONNECT:
	case CALL_MANY_CONNECTIONS:
	case CALL_RACE:
	case _CALL_KIND_MAX:
		break;
	}
}

/* Builds, sends, checks one call of kind k on the worker's connection. */
void call_run(Worker *w, CallKind k)
{
	DBusMessage *reply;
	Call c;

	call_build(w, k, &c);
	call_prepare(&c);
	reply = call_send(w, w->bus, c.m, &c.d);
	if (reply) {
		check_outcome(&c, reply);
		dbus_message_unref(reply);
	}
	dbus_message_unref(c.m);
}

CallKind call_pick_single(Rng *r)
{
	static const CallKind singles[] = {
		CALL_MAKE_RT,	  CALL_MAKE_HIGH,    CALL_RESET_THREAD, CALL_GRANT_LIMITS,
		CALL_LIST_GRANTS, CALL_RTKIT_RT_PID, CALL_RTKIT_HIGH,	CALL_PROP_GET,
		CALL_LONG_STRING, CALL_PEER,	     CALL_EXPLAIN,	CALL_RESET_PROCESS,
	};

	return singles[rng_below(r, ELEMENTSOF(singles))];
}

DBusConnection *bus_connect_private(void)
{
	DBusConnection *c;
	DBusError e;

	dbus_error_init(&e);
	c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &e);
	if (!c) {
		count_error(e.name ? e.name : "(connect failed)");
		dbus_error_free(&e);
		return NULL;
	}
	dbus_connection_set_exit_on_disconnect(c, FALSE);
	return c;
}

void bus_close_private(DBusConnection *c)
{
	dbus_connection_close(c);
	dbus_connection_unref(c);
}

void worker_call(Worker *w)
{
	unsigned total = 0, x;
	int k;

	for (k = 0; k < _CALL_KIND_MAX; k++)
		total += kinds[k].weight;
	x = (unsigned)rng_below(&w->rng, total);
	for (k = 0; k < _CALL_KIND_MAX && x >= kinds[k].weight; k++)
		x -= kinds[k].weight;

	switch ((CallKind)k) {
	case CALL_RENAME_LIST:
		client_rename_and_list(w);
		break;
	case CALL_DISCONNECT:
		client_hang_up(w);
		break;
	case CALL_MANY_CONNECTIONS:
		client_many_connections(w);
		break;
	case CALL_RACE:
		client_race_read_back(w);
		break;
	default:
		call_run(w, (CallKind)k);
		break;
	}
}

bool daemon_ping(DBusConnection *bus, char *error, size_t size)
{
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, DBUS_INTERFACE_PEER, "Ping");
	DBusMessage *reply;
	DBusError e;

	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &e);
	dbus_message_unref(m);
	if (reply) {
		dbus_message_unref(reply);
		return true;
	}
	snprintf(error, size, "%s: %s", e.name, e.message);
	dbus_error_free(&e);
	return false;
}

int list_grants(DBusConnection *bus, pid_t (**ret)[2], size_t *ret_n, char *error, size_t size)
{
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ListGrants");
	_cleanup_free_ ListedGrant *g = NULL;
	DBusMessage *reply;
	pid_t(*pairs)[2];
	DBusError e;
	size_t n = 0;
	int r;

	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &e);
	dbus_message_unref(m);
	if (!reply) {
		snprintf(error, size, "%s: %s", e.name, e.message);
		dbus_error_free(&e);
		return -EIO;
	}
	r = parse_grants(reply, &g, &n);
	dbus_message_unref(reply);
	if (r < 0) {
		snprintf(error, size, "ListGrants answered another signature");
		return r;
	}
	pairs = calloc(n ? n : 1, sizeof(*pairs));
	if (!pairs)
		abort();
	for (size_t i = 0; i < n; i++) {
		pairs[i][0] = g[i].pid;
		pairs[i][1] = g[i].tid;
	}
	*ret = pairs;
	*ret_n = n;
	return 0;
}
