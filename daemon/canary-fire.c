// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The watchdog's firing, in its thread: the blame, the clamps, the demotions
 * and the report; and the note of realtime threads realtimed did not grant.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "canary-internal.h"
#include "macro.h"
#include "proc.h"
#include "procfs-stat.h"
#include "sched-util.h"

/* RLIMIT_RTPRIO 0 on pid, its old limit kept in the report. */
static void clamp_process(Canary *c, Watch *w, pid_t pid)
{
	static const struct rlimit zero = { 0, 0 };
	struct rlimit old;
	uint64_t st;

	if (w->report.n_clamped >= w->n_targets + CANARY_UNKNOWN_CLAMP_MAX ||
	    procfs_start_time(c->proc, pid, 0, &st) < 0)
		return;
	if (prlimit(pid, RLIMIT_RTPRIO, &zero, &old) < 0)
		return; /* gone, or no CAP_SYS_RESOURCE: demoted all the same */
	if (old.rlim_cur == 0 && old.rlim_max == 0)
		return; /* nothing to give back later */
	w->clamped[w->report.n_clamped++] =
		(CanaryClamp){ .pid = pid, .start_time = st, .old = old };
}

/* f(c, w, pid, tid) for each thread of pid, or each process when pid == 0,
 * until f() returns true. getdents64() into the stack: opendir() allocates. */
static bool proc_foreach(Canary *c, Watch *w, pid_t pid,
			 bool (*f)(Canary *c, Watch *w, pid_t pid, pid_t tid))
{
	char path[64], buf[4096] __attribute__((aligned(8)));
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	if (pid == 0)
		snprintf(path, sizeof(path), "%s", c->proc);
	else
		snprintf(path, sizeof(path), "%s/%d/task", c->proc, (int)pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			char *end;
			long id = strtol(de->d_name, &end, 10);

			off += de->d_reclen;
			if (*end || id <= 0 || id > INT_MAX)
				continue; /* not a process or thread */
			if (pid == 0 ? f(c, w, (pid_t)id, 0) : f(c, w, pid, (pid_t)id))
				return true;
		}
	return false;
}

static bool blamed(const Watch *w, uid_t uid)
{
	for (size_t i = 0; i < w->report.n_blamed; i++)
		if (w->blamed[i].uid == uid)
			return true;
	return false;
}

/* A SCHED_FIFO/RR thread, real and effective uid not root (the real one in
 * *ret_uid), and with w, of a blamed user unless the firing escalated? Run
 * after the granted threads' demotion: a granted tid still realtime was
 * reused, or its thread has CAP_SYS_NICE. */
static bool unknown_realtime(Canary *c, const Watch *w, pid_t pid, pid_t tid, uid_t *ret_uid)
{
	SchedState s;
	ProcUids u;

	if (sched_get_state(tid, &s) < 0 || (s.policy != SCHED_FIFO && s.policy != SCHED_RR))
		return false;
	if (proc_get_uids(c->proc, pid, tid, &u) < 0 || u.ruid == 0 || u.euid == 0)
		return false;
	*ret_uid = u.ruid;
	return !w || w->report.escalated || blamed(w, u.ruid);
}

static bool has_unknown_realtime(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	uid_t uid;

	return unknown_realtime(c, w, pid, tid, &uid);
}

/* Demotes it, and lists it for the report while there is room. */
static bool demote_unknown_thread(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	CanaryReport *r = &w->report;
	uint64_t st;
	uid_t uid;

	if (!unknown_realtime(c, w, pid, tid, &uid) ||
	    procfs_start_time(c->proc, pid, tid, &st) < 0 || sched_reset(tid) < 0)
		return false;
	r->n_unknown++;
	if (r->n_unknown_listed < CANARY_UNKNOWN_CLAMP_MAX)
		w->demoted[r->n_demoted + r->n_unknown_listed++] =
			(CanaryTarget){ .pid = pid, .tid = tid, .start_time = st, .uid = uid };
	return false;
}

/* Clamps, then demotes: a thread that took realtime meanwhile is caught by
 * the second scan, and none can take it again. */
static bool demote_unknown_process(Canary *c, Watch *w, pid_t pid, pid_t tid_unused)
{
	if (pid == getpid() || !proc_foreach(c, w, pid, has_unknown_realtime))
		return false;
	clamp_process(c, w, pid);
	(void)proc_foreach(c, w, pid, demote_unknown_thread);
	return false;
}

/* How long (usec) in slot i the canary was kept from running: what its cheeps
 * do not cover, or the held time when the probe of this slot or the next (a
 * held look starts one) found the fair class deprived. */
static uint64_t slot_missing(const Window *win, unsigned i, uint64_t cheep_usec)
{
	uint64_t c = u64_min(win->cheeps[i] * cheep_usec, win->elapsed[i]);
	unsigned next = (i + 1) % SLOTS;
	/* the newest slot has no next one yet */
	bool deprived = win->deprived[i] || (next != win->next && win->deprived[next]);

	return u64_max(win->elapsed[i] - c, deprived ? win->held[i] : 0);
}

/* Blames by each user's realtime time in the starved, measured slots
 * (realtimed(8), SAFETY). No qsort() (it may allocate): quadratic in the
 * users blamed, at a firing only. Returns the CPUs kept busy, on average. */
static double watch_blame(Watch *w, const Window *win, uint64_t cheep_usec, int ncpus)
{
	bool starved[SLOTS];
	uint64_t window = 0, all = 0, rest = 0;
	size_t n = 0;

	for (unsigned k = 0; k < SLOTS; k++) {
		starved[k] = win->measured[k] && win->elapsed[k] > 0 &&
			     slot_missing(win, k, cheep_usec) * 2 >= win->elapsed[k];
		if (starved[k])
			window += win->elapsed[k];
	}
	if (window == 0)
		return 0;
	for (size_t i = 0; i < w->n_targets; i++) {
		uint64_t t = 0;

		for (unsigned k = 0; k < SLOTS; k++)
			if (starved[k])
				t += w->targets[i].slot_nsec[k] / NSEC_PER_USEC;
		/* targets are sorted by user: a new user starts a new sum */
		if (n == 0 || w->users[n - 1].uid != w->targets[i].target.uid)
			w->users[n++] = (CanaryBlame){ .uid = w->targets[i].target.uid };
		w->users[n - 1].realtime_usec += t;
		all += t;
	}
	/* HELD_PERCENT of one CPU, then the largest until the rest is below
	 * half of all CPUs */
	for (size_t i = 0; i < n; i++) {
		if (w->users[i].realtime_usec * 100 >= HELD_PERCENT * window) {
			w->blamed[w->report.n_blamed++] = w->users[i];
			w->users[i].realtime_usec = 0; /* taken */
		} else
			rest += w->users[i].realtime_usec;
	}
	while (rest > 0 && rest * 2 >= window * (uint64_t)u64_max(ncpus, 1)) {
		size_t max = 0;

		for (size_t i = 1; i < n; i++)
			if (w->users[i].realtime_usec > w->users[max].realtime_usec)
				max = i;
		w->blamed[w->report.n_blamed++] = w->users[max];
		rest -= w->users[max].realtime_usec;
		w->users[max].realtime_usec = 0;
	}
	return (double)all / (double)window;
}

static bool note_unknown_thread(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	uint64_t st, r;
	uid_t uid;

	if (c->n_unknown_seen >= CANARY_UNKNOWN_CLAMP_MAX)
		return true;
	if (!unknown_realtime(c, NULL, pid, tid, &uid) ||
	    procfs_start_time(c->proc, pid, tid, &st) < 0)
		return false;
	r = canary_thread_runtime(c->proc, pid, tid);
	c->unknown[c->n_unknown_seen++] = (UnknownThread){
		.pid = pid, .tid = tid, .uid = uid, .start_time = st, .runtime = r, .looked = r
	};
	return false;
}

static bool note_unknown_process(Canary *c, Watch *w, pid_t pid, pid_t tid_unused)
{
	return pid != getpid() && proc_foreach(c, w, pid, note_unknown_thread);
}

void canary_note_unknown(Canary *c, uint64_t now)
{
	c->n_unknown_seen = 0;
	c->unknown_usec = now;
	(void)proc_foreach(c, NULL, 0, note_unknown_process);
}

/* Blames, besides, each user whose noted threads used HELD_PERCENT of one CPU
 * since the note (w->users is free again). Returns the CPUs they kept busy. */
static double blame_unknown(Canary *c, Watch *w, uint64_t now)
{
	uint64_t total = 0;
	uint64_t span = now > c->unknown_usec ? now - c->unknown_usec : 0;
	size_t n = 0;

	for (size_t i = 0; i < c->n_unknown_seen; i++) {
		const UnknownThread *t = &c->unknown[i];
		uint64_t st, r;
		size_t k;

		if (procfs_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time ||
		    (r = canary_thread_runtime(c->proc, t->pid, t->tid)) <= t->runtime)
			continue;
		for (k = 0; k < n && w->users[k].uid != t->uid; k++)
			;
		if (k == n)
			w->users[n++] = (CanaryBlame){ .uid = t->uid };
		w->users[k].realtime_usec += (r - t->runtime) / NSEC_PER_USEC;
		total += (r - t->runtime) / NSEC_PER_USEC;
	}
	for (size_t k = 0; k < n; k++)
		if (span > 0 && w->users[k].realtime_usec * 100 >= HELD_PERCENT * span &&
		    !blamed(w, w->users[k].uid))
			w->blamed[w->report.n_blamed++] = w->users[k];
	c->n_unknown_seen = 0;
	return span > 0 ? (double)total / (double)span : 0;
}

uint64_t canary_window_missing(const Window *win, uint64_t cheep_usec)
{
	uint64_t missing = 0;

	for (unsigned i = 0; i < SLOTS; i++)
		missing += slot_missing(win, i, cheep_usec);
	return missing;
}

/* An escalation stands only while realtime threads (granted, and unknown
 * ones noted) kept half of the CPUs busy. */
bool canary_watchdog_fire(Canary *c, const Window *win, bool escalate, unsigned probe_percent)
{
	int ncpus = CPU_COUNT(&c->canary_cpus);
	uint64_t elapsed = 0, covered = 0;
	bool demote_unknown;
	CanaryReport *r;
	pid_t clamped = 0;
	double busy;
	Watch w;

	pthread_mutex_lock(&c->lock);
	w = c->watch;
	c->watch = (Watch){};
	demote_unknown = c->demote_unknown;
	pthread_mutex_unlock(&c->lock);

	/* without the lock: the main thread may install new targets meanwhile */
	r = &w.report;
	for (unsigned i = 0; i < SLOTS; i++) {
		elapsed += win->elapsed[i];
		covered += u64_min(win->cheeps[i] * c->cheep_usec, win->elapsed[i]);
		r->held_usec += win->held[i];
	}
	r->cheeps_percent = elapsed ? (unsigned)(covered * 100 / elapsed) : 100;
	r->probe_percent = probe_percent;
	r->window_usec = c->watchdog_usec;
	busy = watch_blame(&w, win, c->cheep_usec, ncpus);
	if (demote_unknown && c->n_unknown_seen > 0)
		busy += blame_unknown(c, &w, now_usec(CLOCK_MONOTONIC));
	r->escalated = escalate && busy * 2 >= (double)(ncpus > 0 ? ncpus : 1);

	for (size_t i = 0; i < w.n_targets; i++) {
		const CanaryTarget *t = &w.targets[i].target;
		uint64_t st;

		if (!r->escalated && !blamed(&w, t->uid))
			continue;
		if (procfs_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time)
			continue;
		if (t->pid != clamped) {
			clamp_process(c, &w, t->pid);
			clamped = t->pid;
		}
		(void)sched_reset(t->tid);
		w.demoted[r->n_demoted++] = *t;
	}
	if (demote_unknown && (r->escalated || r->n_blamed > 0))
		(void)proc_foreach(c, &w, 0, demote_unknown_process);
	if (demote_unknown && !r->escalated)
		canary_note_unknown(c, now_usec(CLOCK_MONOTONIC));

	pthread_mutex_lock(&c->lock);
	c->firing = w;
	c->report_pending = true;
	pthread_mutex_unlock(&c->lock);
	(void)eventfd_write(c->fired_fd, 1);
	return r->n_demoted > 0 || r->n_unknown > 0;
}
