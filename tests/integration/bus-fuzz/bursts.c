// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Many calls at once, the attacks of a user who wants to go past the
 * per-user limits or take realtime from others (issue 20):
 *   - a burst of grants for more threads than ThreadsPerUserMax (and on
 *     more processes than ProcessesPerUserMax), all in flight at once, so
 *     that they wait together at polkit (a user no rule covers) or at the
 *     resolver (after a Reload, or once the user's cached groups expired);
 *     after it, the user's grants are counted against the limits, and no
 *     thread may run realtime that no grant names;
 *   - a flood of manage calls (ListAllGrants, Explain of other uids,
 *     Reload), which ask polkit for anyone but root;
 *   - a granted thread that lowers itself to SCHED_OTHER and spins a few
 *     milliseconds, again and again;
 *   - threads created and joined around a grant, so that the grant's tid
 *     has exited, and may be reused, by the time the daemon acts on it.
 * The probe user's grants (probe.c) show whether others are still served.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-fuzz.h"
#include "procfs-stat.h"

#define BURST_MAX 48
#define PER_CONNECTION 40 /* the bus allows 128 pending replies per connection */
/* a big manage flood: more than realtimed's 256 pending polkit checks */
#define MANAGE_MAX 320

static bool thread_alive(pid_t pid, pid_t tid)
{
	uint64_t st;

	return thread_start_time(pid, tid, &st) >= 0;
}

/* How many distinct threads (field 0), processes (1) or users (2) the
 * grants of live threads among g[0..n) name. */
static size_t count_distinct(const ListedGrant *g, size_t n, int field)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		if (!thread_alive(g[i].pid, g[i].tid))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			if (thread_alive(g[j].pid, g[j].tid))
				seen = field == 0   ? g[j].tid == g[i].tid && g[j].pid == g[i].pid
				       : field == 1 ? g[j].pid == g[i].pid
						    : g[j].uid == g[i].uid;
		if (!seen)
			k++;
	}
	return k;
}

/* The user's grants of live threads against ThreadsPerUserMax and
 * ProcessesPerUserMax; every user's against UsersMax when the user may
 * see them. */
static void check_user_limits(Worker *w, const Desc *d)
{
	_cleanup_free_ ListedGrant *g = NULL;
	size_t n = 0, nt, np, nu;
	char error[512];

	/* no thread realtime that no grant names (an exec, an adoption,
	 * anything else) */
	oracle_check_unsupervised(w->bus, d);
	if (list_grants_full(w->bus, false, &g, &n, error, sizeof(error)) < 0)
		return;
	nt = count_distinct(g, n, 0);
	np = count_distinct(g, n, 1);
	stats.limit_checks++;
	if (limits.threads_max && nt > limits.threads_max)
		violation(d,
			  "uid %u holds grants on %zu live threads after a burst, above "
			  "ThreadsPerUserMax=%u",
			  (unsigned)self_uid, nt, limits.threads_max);
	if (limits.processes_max && np > limits.processes_max)
		violation(d,
			  "uid %u holds grants in %zu live processes after a burst, above "
			  "ProcessesPerUserMax=%u",
			  (unsigned)self_uid, np, limits.processes_max);
	if (!limits.sees_all || !limits.users_max)
		return;
	free(g);
	g = NULL;
	if (list_grants_full(w->bus, true, &g, &n, error, sizeof(error)) < 0)
		return;
	nu = count_distinct(g, n, 2);
	if (nu > limits.users_max)
		violation(d,
			  "%zu users hold grants on live threads after a burst, above UsersMax=%u",
			  nu, limits.users_max);
}

/* A thread of the burst: sleeps on a pipe until the burst is over. */
typedef struct Temp {
	pthread_t thread;
	atomic_int tid;
	int fd;
	int base_policy, base_nice;
} Temp;

static void *temp_main(void *userdata)
{
	Temp *t = userdata;
	ThreadState s = { .policy = SCHED_OTHER };
	char c;

	(void)thread_state(gettid(), &s);
	t->base_policy = s.policy;
	t->base_nice = s.nice;
	t->tid = gettid();
	while (read(t->fd, &c, 1) < 0 && errno == EINTR)
		;
	/* thread exit takes locks in libc and ASan: not as a realtime thread */
	self_drop_realtime();
	return NULL;
}

/* Sends the n calls m[] at once over connections of their own (the
 * first: the worker's), and takes every answer; ok[i] tells which
 * succeeded. Returns how many did. */
static unsigned send_all(Worker *w, DBusMessage **m, unsigned n, bool *ok)
{
	DBusConnection *c[MANAGE_MAX / PER_CONNECTION + 1] = { NULL };
	_cleanup_free_ DBusPendingCall **p = calloc(n ? n : 1, sizeof(*p));
	unsigned granted = 0, nc = (n + PER_CONNECTION - 1) / PER_CONNECTION;

	if (!p)
		abort();
	if (nc > ELEMENTSOF(c))
		nc = ELEMENTSOF(c);
	for (unsigned k = 0; k < nc; k++)
		c[k] = k == 0 ? dbus_connection_ref(w->bus) : bus_connect_private();
	for (unsigned i = 0; i < n; i++) {
		DBusConnection *bus = i / PER_CONNECTION < nc ? c[i / PER_CONNECTION] : NULL;

		ok[i] = false;
		if (!bus || !dbus_connection_send_with_reply(bus, m[i], &p[i], CALL_TIMEOUT_MS))
			p[i] = NULL;
		stats.calls++;
	}
	bus_flush_all(c, nc);
	for (unsigned i = 0; i < n; i++) {
		char error[256];

		if (!p[i])
			continue;
		if (pending_wait(p[i], error, sizeof(error))) {
			stats.ok++;
			ok[i] = true;
			granted++;
		} else
			call_note_error(*error ? error : DBUS_ERROR_NO_REPLY);
	}
	dbus_connection_unref(c[0]);
	for (unsigned k = 1; k < nc; k++)
		if (c[k])
			bus_close_private(c[k]);
	self_drop_realtime();
	return granted;
}

static DBusMessage *grant_msg(Rng *r, pid_t pid, pid_t tid)
{
	uint64_t p = (uint64_t)pid, t = (uint64_t)tid;
	uint32_t prio = 1;
	const char *pol = allowed_policy();
	DBusMessage *m;

	if (rng_chance(r, 70)) {
		uint64_t p0 = pid == self_pid && rng_chance(r, 50) ? 0 : p;

		m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadRealtime");
		call_append(m, DBUS_TYPE_UINT64, &p0, DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &pol,
			    DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
	} else {
		m = call_new(RTKIT_NAME, RTKIT_PATH, RTKIT_IFACE, "MakeThreadRealtimeWithPID");
		call_append(m, DBUS_TYPE_UINT64, &p, DBUS_TYPE_UINT64, &t, DBUS_TYPE_UINT32, &prio,
			    DBUS_TYPE_INVALID);
	}
	return m;
}

static void reset_own_process(Worker *w)
{
	uint64_t pid = 0;
	DBusMessage *m = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ResetProcess");
	DBusMessage *reply;
	Desc d = { .len = 0 };

	call_append(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_INVALID);
	desc_add(&d, "native.ResetProcess(t 0) [before a burst]");
	reply = call_send(w, w->bus, m, &d);
	if (reply)
		dbus_message_unref(reply);
	dbus_message_unref(m);
}

/* Grants for more threads than the user may hold, all at once: they pass
 * the limits together and wait together (at polkit for a user no rule
 * covers, at the resolver after a Reload or once the user's groups have
 * expired from the cache). Afterwards the user's grants stay within the
 * limits. */
void client_burst(Worker *w)
{
	Temp temp[BURST_MAX];
	DBusMessage *m[BURST_MAX + 1];
	bool ok[BURST_MAX + 1];
	Target all[TARGETS_MAX];
	unsigned n_temp, n = 0, granted;
	size_t n_targets;
	int pipefd[2];
	Desc d = { .len = 0 };

	if (limits.max_prio < 1 || pipe2(pipefd, O_CLOEXEC) < 0)
		return;
	n_temp = limits.threads_max ? 2 * limits.threads_max + 4 : 24;
	if (n_temp > BURST_MAX - 8)
		n_temp = BURST_MAX - 8;
	/* start below the limits now and then, so that the whole burst passes
	 * the check before the wait */
	if (rng_chance(&w->rng, 50))
		reset_own_process(w);
	for (unsigned i = 0; i < n_temp; i++) {
		temp[i] = (Temp){ .fd = pipefd[0] };
		if (pthread_create(&temp[i].thread, NULL, temp_main, &temp[i]) != 0) {
			n_temp = i;
			break;
		}
	}
	for (unsigned i = 0; i < n_temp; i++)
		while (!temp[i].tid)
			usleep(100);
	/* after a Reload the user's groups are looked up again: the burst
	 * waits at the resolver (the Reload is answered first on the same
	 * connection, so it lands before the burst) */
	if (limits.sees_all && rng_chance(&w->rng, 50)) {
		m[n++] = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "Reload");
		desc_add(&d, "native.Reload(), then ");
	}
	for (unsigned i = 0; i < n_temp; i++)
		m[n++] = grant_msg(&w->rng, self_pid, temp[i].tid);
	/* and threads of the child processes, past ProcessesPerUserMax */
	n_targets = victims_targets(all, ELEMENTSOF(all));
	for (size_t i = 0; i < n_targets && n < ELEMENTSOF(m); i++)
		if (all[i].kind == TARGET_CHILD && rng_chance(&w->rng, 40))
			m[n++] = grant_msg(&w->rng, all[i].pid, all[i].tid);
	desc_add(&d, "%u grants at once (%u new threads, the rest on child processes) [burst]", n,
		 n_temp);
	call_record(w, &d);
	granted = send_all(w, m, n, ok);
	for (unsigned i = 0; i < n; i++)
		dbus_message_unref(m[i]);
	stats.bursts++;
	stats.burst_granted += granted;

	check_user_limits(w, &d);
	for (unsigned i = 0; i < n_temp; i++) {
		check_thread(&d, self_pid, temp[i].tid, temp[i].base_policy, temp[i].base_nice);
		stats.grants_checked++;
	}
	/* the threads go, their grants with them */
	for (unsigned i = 0; i < n_temp; i++)
		(void)!write(pipefd[1], "x", 1);
	for (unsigned i = 0; i < n_temp; i++)
		pthread_join(temp[i].thread, NULL);
	safe_close(pipefd[0]);
	safe_close(pipefd[1]);
}

/* Manage calls in flight at once: each asks polkit for anyone but root;
 * now and then more than realtimed's pending polkit checks, from several
 * connections. One who lacks org.realtimed.manage must see every one
 * refused; the probe user's grants must go on meanwhile. */
void client_manage_flood(Worker *w)
{
	static const uint32_t uids[] = { 0, 4101, 4102, 4103, 4111, 65534 };
	DBusMessage *m[MANAGE_MAX];
	bool ok[MANAGE_MAX];
	const char *what[MANAGE_MAX];
	unsigned n = rng_chance(&w->rng, 15) ? MANAGE_MAX - (unsigned)rng_below(&w->rng, 60)
					     : 16 + (unsigned)rng_below(&w->rng, 32);
	Desc d = { .len = 0 };

	for (unsigned i = 0; i < n; i++) {
		uint64_t x = rng_below(&w->rng, 100);

		if (x < 45) {
			m[i] = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ListAllGrants");
			what[i] = "ListAllGrants";
		} else if (x < 90 || !limits.sees_all) {
			uint32_t u = uids[rng_below(&w->rng, ELEMENTSOF(uids))];

			if (u == self_uid)
				u = 0;
			m[i] = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "Explain");
			call_append(m[i], DBUS_TYPE_UINT32, &u, DBUS_TYPE_INVALID);
			what[i] = "Explain of another uid";
		} else {
			/* a Reload that succeeds drops every cache: now and then */
			m[i] = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "Reload");
			what[i] = "Reload";
		}
	}
	if (!limits.sees_all)
		for (unsigned i = 0; i < n / 8; i++) {
			unsigned k = (unsigned)rng_below(&w->rng, n);

			dbus_message_unref(m[k]);
			m[k] = call_new(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "Reload");
			what[k] = "Reload";
		}
	desc_add(&d,
		 "%u manage calls at once (ListAllGrants, Explain of other uids, Reload) "
		 "[manage flood]",
		 n);
	call_record(w, &d);
	(void)send_all(w, m, n, ok);
	for (unsigned i = 0; i < n; i++) {
		dbus_message_unref(m[i]);
		if (ok[i] && !limits.sees_all)
			violation(&d, "%s succeeded for uid %u, who lacks org.realtimed.manage",
				  what[i], (unsigned)self_uid);
	}
	stats.manage_floods++;
}

/* A grant on a sleeper, which then sets itself back to SCHED_OTHER and
 * spins a few milliseconds at a time: CPU time of a granted thread that
 * no realtime policy used. The canary must not count it; the probe user's
 * grants show whether it did. */
void client_spin_other(Worker *w)
{
	DBusMessage *m, *reply;
	Desc d = { .len = 0 };
	uint64_t tid;
	uint32_t prio;
	int i;

	if (!pick_nice0_grant(&w->rng, 1, &i, &prio))
		return;
	tid = (uint64_t)victims_sleeper_tid(i);
	m = native_grant_call(tid, prio, &d,
			      ", then it lowers itself to SCHED_OTHER and spins [spin]");
	reply = call_send(w, w->bus, m, &d);
	dbus_message_unref(m);
	if (!reply)
		return;
	dbus_message_unref(reply);
	if (victims_lower_spin_sleeper(i, 2 + (unsigned)rng_below(&w->rng, 8), 3))
		stats.spins++;
	check_target(&d, (pid_t)tid);
}

/* One thread of the churn: reports its tid, lives ms_alive (about), drops
 * any realtime it got and exits. */
typedef struct Short {
	pthread_t thread;
	atomic_int tid;
	unsigned usec;
	atomic_bool go;
} Short;

static void *short_main(void *userdata)
{
	Short *s = userdata;

	s->tid = gettid();
	if (s->usec)
		usleep(s->usec);
	else
		while (!s->go)
			usleep(500);
	self_drop_realtime();
	return NULL;
}

/* A grant for a thread that exits right away, and new threads made at
 * once after it: none of them asked for anything, so none may be
 * realtime unless realtimed supervises it (a grant of a random call), and
 * one with the dead thread's tid must never be. */
void client_tid_churn(Worker *w)
{
	enum { AFTER = 3 };
	/* at least 1 us: 0 means "wait for go", which thread a never gets */
	Short a = { .usec = 1 + (unsigned)rng_below(&w->rng, 1500) }, b[AFTER];
	DBusPendingCall *p = NULL;
	DBusMessage *m;
	Desc d = { .len = 0 };

	if (limits.max_prio < 1 || pthread_create(&a.thread, NULL, short_main, &a) != 0)
		return;
	while (!a.tid)
		usleep(50);
	m = grant_msg(&w->rng, self_pid, a.tid);
	desc_add(&d, "%s for thread %d, which exits within %u us [tid churn]",
		 dbus_message_get_member(m), (int)a.tid, a.usec);
	call_record(w, &d);
	stats.calls++;
	if (!dbus_connection_send_with_reply(w->bus, m, &p, CALL_TIMEOUT_MS))
		p = NULL;
	dbus_connection_flush(w->bus);
	dbus_message_unref(m);
	pthread_join(a.thread, NULL);
	for (unsigned k = 0; k < AFTER; k++) {
		b[k] = (Short){ .usec = 0 };
		if (pthread_create(&b[k].thread, NULL, short_main, &b[k]) != 0)
			b[k].tid = -1;
	}
	for (unsigned k = 0; k < AFTER; k++)
		while (!b[k].tid)
			usleep(50);
	if (p) {
		DBusMessage *reply;

		dbus_pending_call_block(p);
		reply = dbus_pending_call_steal_reply(p);
		if (reply && dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR)
			call_note_error(dbus_message_get_error_name(reply));
		else if (reply)
			stats.ok++;
		if (reply)
			dbus_message_unref(reply);
		dbus_pending_call_unref(p);
	}
	self_drop_realtime();
	/* a moment for a change that landed late */
	usleep(2000);
	for (unsigned k = 0; k < AFTER; k++) {
		ThreadState s;

		if (b[k].tid <= 0)
			continue;
		if (b[k].tid == a.tid)
			stats.tid_reuses++;
		if (thread_state(b[k].tid, &s) < 0 || !is_rt(s.policy))
			continue;
		if (b[k].tid == a.tid)
			violation(&d,
				  "thread %d, which reused the tid of the thread the grant was "
				  "for, runs %s %d",
				  (int)b[k].tid, procfs_sched_policy_to_string(s.policy), s.prio);
		else {
			_cleanup_free_ ListedGrant *g = NULL;
			size_t n = 0;
			bool listed = false;
			char error[512];

			if (list_grants_full(w->bus, false, &g, &n, error, sizeof(error)) < 0)
				continue;
			for (size_t i = 0; i < n; i++)
				listed = listed || (g[i].pid == self_pid && g[i].tid == b[k].tid);
			if (!listed && thread_state(b[k].tid, &s) >= 0 && is_rt(s.policy))
				violation(&d,
					  "thread %d, made after the grant's thread exited and "
					  "never granted, runs %s %d unsupervised",
					  (int)b[k].tid, procfs_sched_policy_to_string(s.policy),
					  s.prio);
		}
	}
	for (unsigned k = 0; k < AFTER; k++)
		b[k].go = true;
	for (unsigned k = 0; k < AFTER; k++)
		if (b[k].tid > 0)
			pthread_join(b[k].thread, NULL);
	stats.tid_churns++;
}
