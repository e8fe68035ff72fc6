// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ways a client of bus-fuzz treats realtimed badly, beyond one call:
 * a granted thread renames itself to bytes that are not UTF-8 before
 * ListGrants; clients hang up before the answer, or send a pile of calls
 * that want none and hang up at once; many connections at once;
 * floods past [Daemon] ActionsPerBurst; and a thread that lowers its own
 * priority while the daemon reads back what it set. The calls themselves
 * come from calls.c and call-build.c, their checks from call-check.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bus-fuzz.h"

/* A valid grant for target thread tid of the fuzzer: realtime at priority
 * 1 or the weakest nice, so that ListGrants has the thread to show. A
 * worker asks for itself nice only: it works, it must never be realtime. */
static void grant_for_listing(Worker *w, pid_t tid, bool may_be_realtime)
{
	uint64_t pid = 0, t = (uint64_t)tid;
	const char *pol = allowed_policy();
	DBusMessage *m, *reply;
	Desc d = { .len = 0 };

	if (may_be_realtime && limits.max_prio > 0 && rng_chance(&w->rng, 60)) {
		uint32_t prio = 1;

		m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadRealtime");
		call_append(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &pol,
			    DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
		desc_add(&d, "native.MakeThreadRealtime(t 0, t %d, s'%s', u 1)", (int)tid, pol);
	} else {
		/* nice 0 where policy allows it, so that workers keep their pace */
		int32_t nice = limits.nice_set && limits.min_nice > 0 ? limits.min_nice : 0;

		m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadHighPriority");
		call_append(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &t, DBUS_TYPE_INT32, &nice,
			    DBUS_TYPE_INVALID);
		desc_add(&d, "native.MakeThreadHighPriority(t 0, t %d, i %d)", (int)tid, nice);
	}
	reply = call_send(w, w->bus, m, &d);
	if (reply) {
		check_target(&d, tid);
		dbus_message_unref(reply);
	}
	dbus_message_unref(m);
}

/* A granted thread renames itself (prctl) to bytes that are not UTF-8, or
 * to control bytes; then ListGrants, which sends every thread's comm. */
void client_rename_and_list(Worker *w)
{
	char name[16];
	int i;
	pid_t tid;

	gen_comm(&w->rng, name);
	if (rng_chance(&w->rng, 25)) {
		/* the worker itself */
		tid = (pid_t)gettid();
		if (rng_chance(&w->rng, 50))
			grant_for_listing(w, tid, false);
		(void)prctl(PR_SET_NAME, name);
	} else {
		tid = victims_pick_sleeper(&w->rng, &i);
		if (rng_chance(&w->rng, 50))
			grant_for_listing(w, tid, true);
		victims_rename_sleeper(i, name);
	}
	stats.renames++;
	call_run(w, CALL_LIST_GRANTS);
}

/* Connections that each send up to SEND_AND_GO_MAX calls wanting no reply
 * and close at once (issue 31): realtimed sees a new sender whose uid it
 * does not know, and which is gone before it could ask the bus, again and
 * again. The calls may still be served (a grant among them holds); the
 * probe user's grants show whether others are. */
static void client_send_and_go(Worker *w)
{
	enum { SEND_AND_GO_MAX = 150 };
	unsigned conns = 1 + (unsigned)rng_below(&w->rng, 4);

	for (unsigned k = 0; k < conns; k++) {
		DBusConnection *c = bus_connect_private();
		unsigned n = 1 + (unsigned)rng_below(&w->rng, SEND_AND_GO_MAX);
		Desc d = { .len = 0 };

		if (!c)
			return;
		stats.connections++;
		desc_add(&d, "%u calls wanting no reply, then hung up at once [send and go]", n);
		call_record(w, &d);
		for (unsigned i = 0; i < n; i++) {
			Call call;

			call_build(w, call_pick_single(&w->rng), &call);
			dbus_message_set_no_reply(call.m, TRUE);
			dbus_connection_send(c, call.m, NULL);
			dbus_message_unref(call.m);
			stats.calls++;
		}
		dbus_connection_flush(c);
		bus_close_private(c);
		stats.disconnects++;
	}
}

/* A client that sends a call and hangs up before the answer: sometimes at
 * once, sometimes while the daemon is busy with it (polkit, a grant); now
 * and then many calls, each wanting no answer (client_send_and_go()). */
void client_hang_up(Worker *w)
{
	DBusConnection *c;
	DBusPendingCall *p = NULL;
	Call call;

	if (rng_chance(&w->rng, 25)) {
		client_send_and_go(w);
		return;
	}
	c = bus_connect_private();
	if (!c)
		return;
	call_build(w, call_pick_single(&w->rng), &call);
	desc_add(&call.d, " [hung up]");
	call_record(w, &call.d);
	stats.calls++;
	if (rng_chance(&w->rng, 50))
		dbus_connection_send(c, call.m, NULL);
	else
		dbus_connection_send_with_reply(c, call.m, &p, CALL_TIMEOUT_MS);
	dbus_connection_flush(c);
	if (rng_chance(&w->rng, 50))
		usleep((useconds_t)rng_below(&w->rng, 3000));
	if (p) {
		dbus_pending_call_cancel(p);
		dbus_pending_call_unref(p);
	}
	bus_close_private(c);
	dbus_message_unref(call.m);
	stats.disconnects++;
}

/* Many clients at once, each with a call in flight; some leave early. */
void client_many_connections(Worker *w)
{
	enum { MAX = 48 };
	DBusConnection *c[MAX] = { NULL };
	DBusPendingCall *p[MAX] = { NULL };
	unsigned n = 8 + (unsigned)rng_below(&w->rng, MAX - 8);

	for (unsigned i = 0; i < n; i++) {
		Call call;

		c[i] = bus_connect_private();
		if (!c[i])
			break;
		stats.connections++;
		call_build(w, call_pick_single(&w->rng), &call);
		call_prepare(&call);
		call_record(w, &call.d);
		stats.calls++;
		if (!dbus_connection_send_with_reply(c[i], call.m, &p[i], CALL_TIMEOUT_MS))
			p[i] = NULL;
		dbus_connection_flush(c[i]);
		dbus_message_unref(call.m);
	}
	for (unsigned i = 0; i < n && c[i]; i++) {
		if (p[i] && rng_chance(&w->rng, 70)) {
			DBusMessage *reply;

			dbus_pending_call_block(p[i]);
			reply = dbus_pending_call_steal_reply(p[i]);
			if (reply) {
				if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR)
					call_note_error(dbus_message_get_error_name(reply));
				else
					stats.ok++;
				dbus_message_unref(reply);
			}
		} else if (p[i])
			dbus_pending_call_cancel(p[i]);
		if (p[i])
			dbus_pending_call_unref(p[i]);
		bus_close_private(c[i]);
	}
}

/* A grant on a sleeper that lowers its own priority the moment it sees
 * itself realtime: the daemon's read-back then finds something else than it
 * set. Whatever the answer, the thread must end up supervised or undone;
 * batches.c's check after the batch looks. */
void client_race_read_back(Worker *w)
{
	DBusMessage *m, *reply;
	Desc d = { .len = 0 };
	uint64_t tid;
	uint32_t prio;
	int i;

	if (!pick_nice0_grant(&w->rng, 2, &i, &prio))
		return;
	tid = (uint64_t)victims_race_sleeper(i, 300);
	if (!tid)
		return;
	if (rng_chance(&w->rng, 50)) {
		m = native_grant_call(tid, prio, &d, " [racing]");
	} else {
		uint64_t pid = (uint64_t)self_pid;

		m = call_new(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, "MakeThreadRealtimeWithPID");
		call_append(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_UINT32,
			    &prio, DBUS_TYPE_INVALID);
		desc_add(&d,
			 "rtkit.MakeThreadRealtimeWithPID(t %" PRIu64 ", t %" PRIu64 ", u %u) "
			 "[racing]",
			 pid, tid, prio);
	}
	reply = call_send(w, w->bus, m, &d);
	victims_race_wait(i);
	if (reply)
		dbus_message_unref(reply);
	dbus_message_unref(m);
}

/* More requests than [Daemon] ActionsPerBurst allows, all in flight at
 * once, from the worker's connection and a few more (the bus allows 128
 * pending replies per connection). Within one BurstSec at most two
 * bursts' worth may succeed (the flood may straddle two windows). */
void worker_flood(Worker *w)
{
	enum { PER_CONNECTION = 100, CONNECTIONS = 20 };
	unsigned n = 2 * limits.burst + 20, granted = 0, limited = 0;
	DBusConnection *c[CONNECTIONS] = { NULL };
	DBusPendingCall **p;
	uint64_t pid = 0, tid, t0, t1;
	int32_t nice = 19;
	int i;
	Desc d = { .len = 0 };

	if (!limits.burst || !limits.nice_set)
		return;
	if (n > PER_CONNECTION * CONNECTIONS)
		n = PER_CONNECTION * CONNECTIONS;
	p = calloc(n, sizeof(*p));
	if (!p)
		abort();
	for (unsigned k = 0; k < (n + PER_CONNECTION - 1) / PER_CONNECTION; k++)
		c[k] = k == 0 ? dbus_connection_ref(w->bus) : bus_connect_private();
	tid = (uint64_t)victims_pick_sleeper(&w->rng, &i);
	desc_add(&d, "%u x native.MakeThreadHighPriority(t 0, t %" PRIu64 ", i 19) [flood]", n,
		 tid);
	call_record(w, &d);
	t0 = now_usec();
	for (unsigned k = 0; k < n; k++) {
		DBusConnection *bus = c[k / PER_CONNECTION];
		DBusMessage *m;

		if (!bus)
			continue;
		m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadHighPriority");
		call_append(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32,
			    &nice, DBUS_TYPE_INVALID);
		if (!dbus_connection_send_with_reply(bus, m, &p[k], CALL_TIMEOUT_MS))
			p[k] = NULL;
		dbus_message_unref(m);
		stats.calls++;
	}
	bus_flush_all(c, CONNECTIONS);
	for (unsigned k = 0; k < n; k++) {
		char error[256];

		if (!p[k])
			continue;
		if (pending_wait(p[k], error, sizeof(error))) {
			stats.ok++;
			granted++;
		} else if (*error) {
			call_note_error(error);
			if (strstr(error, "RateLimited"))
				limited++;
		}
	}
	t1 = now_usec();
	free(p);
	dbus_connection_unref(c[0]);
	for (unsigned k = 1; k < CONNECTIONS; k++)
		if (c[k])
			bus_close_private(c[k]);
	stats.floods++;
	stats.flood_rate_limited += limited;
	if (t1 - t0 < (uint64_t)limits.burst_sec * 1000000ULL && granted > 2 * limits.burst)
		violation(&d,
			  "%u of %u requests granted within %.1f s, more than twice "
			  "ActionsPerBurst=%u",
			  granted, n, (double)(t1 - t0) / 1e6, limits.burst);
	if (granted > 0)
		check_target(&d, (pid_t)tid);
	self_drop_realtime();
}
