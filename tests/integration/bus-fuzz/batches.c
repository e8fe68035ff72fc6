// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bus-fuzz's run in batches: each worker thread sends BATCH calls on its own
 * connection, then all wait while the controller thread checks every
 * thread of the fuzzer against policy, checks that each realtime one is
 * supervised (listed by ListGrants), and that the daemon still answers
 * Peer.Ping; now and then it also replaces a child, looks at /proc again,
 * has a worker flood or burst (bursts.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-fuzz.h"
#include "procfs-stat.h"

#define BATCH 24

static Worker workers[WORKERS_MAX];
static unsigned n_workers;
static pthread_barrier_t batch_done, batch_go;
static atomic_bool stop;

static void *worker_main(void *userdata)
{
	Worker *w = userdata;

	while (!stop) {
		for (unsigned i = 0; i < BATCH && !daemon_suspect; i++)
			worker_call(w);
		if (w->flood && !daemon_suspect)
			worker_flood(w);
		w->flood = false;
		if (w->burst && !daemon_suspect)
			client_burst(w);
		w->burst = false;
		pthread_barrier_wait(&batch_done);
		pthread_barrier_wait(&batch_go);
	}
	return NULL;
}

static bool listed(pid_t (*pairs)[2], size_t n, pid_t pid, pid_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (pairs[i][0] == pid && pairs[i][1] == tid)
			return true;
	return false;
}

/* The same thread in the same state as at the last check of this kind
 * (0: policy, 1: supervision): reported then already. */
static bool seen_before(int kind, const Target *t, const ThreadState *s)
{
	static struct {
		pid_t tid;
		ThreadState s;
	} seen[2][TARGETS_MAX];
	size_t h = (size_t)t->tid % TARGETS_MAX;
	bool same = seen[kind][h].tid == t->tid && seen[kind][h].s.policy == s->policy &&
		    seen[kind][h].s.prio == s->prio && seen[kind][h].s.nice == s->nice;

	seen[kind][h].tid = t->tid;
	seen[kind][h].s = *s;
	return same;
}

/* Is t, with the start time it had, realtime now? */
static bool still_rt(const Target *t, ThreadState *ret)
{
	uint64_t st;

	return thread_start_time(t->pid, t->tid, &st) >= 0 && st == t->start &&
	       thread_state(t->tid, ret) >= 0 && is_rt(ret->policy);
}

/* Every realtime thread of the fuzzer must be one the daemon supervises: a
 * grant is either in the table or undone. A grant in flight (a client that
 * hung up, a caller's credentials or polkit still being asked) may land at
 * any moment, after a list was answered and before the thread is looked
 * at. So a missing thread is looked at first and listed after, in
 * SUPERVISION_ROUNDS rounds 300 ms apart: a grant that lands before a look
 * is in the list that follows it (realtimed applies and records a grant in
 * one step), and only a thread realtime before each list and missing from
 * every list is a violation. */
#define SUPERVISION_ROUNDS 3
static bool check_supervised(DBusConnection *bus, const Target *rt, size_t n_rt)
{
	pid_t(*pairs)[2] = NULL;
	size_t n = 0, n_missing = 0;
	Target missing[TARGETS_MAX];
	ThreadState s[TARGETS_MAX];
	char error[512];

	if (list_grants(bus, &pairs, &n, error, sizeof(error)) < 0) {
		printf("bus-fuzz[%s]: ListGrants failed: %s\n", report_label, error);
		return !strstr(error, "NoReply") && !strstr(error, "ServiceUnknown") &&
		       !strstr(error, "NameHasNoOwner") && !strstr(error, "Disconnected");
	}
	for (size_t i = 0; i < n_rt; i++)
		if (!listed(pairs, n, rt[i].pid, rt[i].tid))
			missing[n_missing++] = rt[i];
	free(pairs);
	stats.supervised_checks++;

	for (unsigned round = 0; round < SUPERVISION_ROUNDS && n_missing > 0; round++) {
		size_t k = 0;

		usleep(300 * 1000);
		for (size_t i = 0; i < n_missing; i++)
			if (still_rt(&missing[i], &s[k]))
				missing[k++] = missing[i];
		n_missing = k;
		pairs = NULL;
		if (n_missing == 0 || list_grants(bus, &pairs, &n, error, sizeof(error)) < 0)
			return true;
		k = 0;
		for (size_t i = 0; i < n_missing; i++)
			if (!listed(pairs, n, missing[i].pid, missing[i].tid)) {
				s[k] = s[i];
				missing[k++] = missing[i];
			}
		n_missing = k;
		free(pairs);
	}
	for (size_t i = 0; i < n_missing; i++) {
		const Target *t = &missing[i];

		if (seen_before(1, t, &s[i]))
			continue;
		violation(NULL,
			  "thread %d of process %d runs %s %d, but realtimed does not supervise it "
			  "(realtime before each of %u lists 300 ms apart, in none of them)",
			  (int)t->tid, (int)t->pid, procfs_sched_policy_to_string(s[i].policy),
			  s[i].prio, SUPERVISION_ROUNDS);
	}
	return true;
}

/* Between batches: every thread of ours within policy (or no higher than it
 * started), realtime ones supervised, and the daemon answering. false when
 * the daemon is gone. */
static bool check_batch(DBusConnection *bus)
{
	Target all[TARGETS_MAX], rt[TARGETS_MAX];
	size_t n, n_rt = 0;
	char error[512];
	Desc d = { .len = 0 };

	desc_add(&d, "(the check between batches)");
	victims_refresh();
	n = victims_targets(all, ELEMENTSOF(all));
	for (size_t i = 0; i < n; i++) {
		uint64_t st, soft, rttime = FUZZ_INFINITY;
		ThreadState s;
		char why[400];

		if (thread_state(all[i].tid, &s) < 0 ||
		    thread_start_time(all[i].pid, all[i].tid, &st) < 0 || st != all[i].start)
			continue;
		(void)process_limit(all[i].pid, "Max realtime timeout", &soft, &rttime);
		if (state_violates(&limits, &s, all[i].base_policy, all[i].base_nice, rttime, why,
				   sizeof(why)) &&
		    !seen_before(0, &all[i], &s))
			violation(&d, "thread %d of process %d runs %s", (int)all[i].tid,
				  (int)all[i].pid, why);
		if (is_rt(s.policy))
			rt[n_rt++] = all[i];
	}
	if (n_rt > 0 && !check_supervised(bus, rt, n_rt))
		return false;
	if (!daemon_ping(bus, error, sizeof(error))) {
		printf("bus-fuzz[%s]: realtimed does not answer Peer.Ping: %s\n", report_label,
		       error);
		return false;
	}
	daemon_suspect = false;
	return true;
}

typedef struct Run {
	DBusConnection *bus;
	unsigned seconds;
	uint64_t start;
	unsigned long batches;
} Run;

/* The batches: between two, the checks, and now and then new children,
 * a new look at /proc, a flood. Not a target of the calls. */
static void *controller_main(void *userdata)
{
	Run *run = userdata;
	uint64_t last_churn, last_scan, last_flood, last_burst;

	last_churn = last_scan = last_flood = last_burst = run->start;
	while (!stop) {
		uint64_t now;

		pthread_barrier_wait(&batch_done);
		run->batches++;
		if (!check_batch(run->bus)) {
			stats.crashes++;
			printf("bus-fuzz[%s]: CRASH: realtimed stopped answering after %.1f s; the "
			       "last calls sent:\n",
			       report_label, (double)(now_usec() - run->start) / 1e6);
			report_recent(workers, n_workers);
			stop = true;
		}
		now = now_usec();
		if (now - run->start >= run->seconds * 1000000ULL)
			stop = true;
		if (!stop && now - last_churn > 3000000) {
			victims_churn();
			last_churn = now;
		}
		if (!stop && now - last_scan > 5000000) {
			victims_scan_system(self_uid);
			last_scan = now;
		}
		if (!stop && now - last_flood > 10000000) {
			workers[run->batches % n_workers].flood = true;
			last_flood = now;
		}
		/* a burst every 4 s: more often would meet the rate limit,
		 * which refuses before the limits could be passed */
		if (!stop && now - last_burst > 4000000 && call_kind_enabled(CALL_BURST)) {
			workers[(run->batches + 1) % n_workers].burst = true;
			last_burst = now;
		}
		pthread_barrier_wait(&batch_go);
	}
	return NULL;
}

int batches_run(DBusConnection *bus, unsigned n, uint64_t seed, unsigned seconds,
		uint64_t *ret_start, unsigned long *ret_batches)
{
	Run run = { 0 };
	pthread_t controller;
	DBusError e;
	int r;

	n_workers = n;
	dbus_error_init(&e);
	pthread_barrier_init(&batch_done, NULL, n_workers + 1);
	pthread_barrier_init(&batch_go, NULL, n_workers + 1);
	for (unsigned i = 0; i < n_workers; i++) {
		Worker *w = &workers[i];

		w->index = i;
		rng_seed(&w->rng, seed, i);
		w->bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &e);
		if (!w->bus) {
			fprintf(stderr, "bus-fuzz: cannot connect to the system bus: %s\n",
				e.message);
			return -EIO;
		}
		dbus_connection_set_exit_on_disconnect(w->bus, FALSE);
		r = pthread_create(&w->thread, NULL, worker_main, w);
		if (r != 0) {
			fprintf(stderr, "bus-fuzz: pthread_create: %s\n", strerror(r));
			return -r;
		}
	}

	run.bus = bus;
	run.seconds = seconds;
	run.start = now_usec();
	/* the main thread only waits: as pid 0, tid 0 it is a target, and it
	 * must not work (allocate, lock) while a grant makes it realtime */
	r = pthread_create(&controller, NULL, controller_main, &run);
	if (r != 0) {
		fprintf(stderr, "bus-fuzz: pthread_create: %s\n", strerror(r));
		return -r;
	}
	pthread_join(controller, NULL);
	self_drop_realtime();
	for (unsigned i = 0; i < n_workers; i++) {
		pthread_join(workers[i].thread, NULL);
		bus_close_private(workers[i].bus);
	}
	*ret_start = run.start;
	*ret_batches = run.batches;
	return 0;
}
