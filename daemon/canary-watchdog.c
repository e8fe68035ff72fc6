// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The canary, which cheeps and probes, and the watchdog, which looks at each
 * slot, moves a stuck canary and fires (canary-fire.c). Nothing here
 * allocates or waits on the main thread.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "canary-internal.h"
#include "macro.h"
#include "procfs-stat.h"
#include "sched-util.h"

#define CANARY_NICE (-20) /* ordinary fair load does not delay it */
/* CLOCK_BOOTTIME ahead of CLOCK_MONOTONIC by more: a suspend */
#define SUSPEND_SLACK_USEC (100ULL * USEC_PER_MSEC)
#define ESCALATE_WINDOWS 2 /* a firing this soon after one escalates */

static void block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

CanaryClass canary_become_watchdog(int *ret_error)
{
	int r;

	r = sched_apply_deadline(0, WATCHDOG_RUNTIME_NSEC, WATCHDOG_PERIOD_NSEC);
	*ret_error = -r;
	if (r >= 0)
		return CANARY_CLASS_DEADLINE;
	if (sched_apply(0, POLICY_GRANT_FIFO, WATCHDOG_FIFO_PRIORITY) >= 0)
		return CANARY_CLASS_FIFO;
	return CANARY_CLASS_OTHER;
}

int canary_timer_start(Canary *c)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = (time_t)(c->cheep_usec / USEC_PER_SEC),
				 .tv_nsec = (long)(c->cheep_usec % USEC_PER_SEC * NSEC_PER_USEC) },
	};

	its.it_value = its.it_interval;
	return RET_NERRNO(timerfd_settime(c->canary_timer, 0, &its, NULL));
}

/* Probe gen: spins, pinned (to measure what one CPU leaves the fair class),
 * cheeping, until it got probe_nsec of CPU time or another probe is asked.
 * False once quit_fd is readable. */
static bool canary_probe(Canary *c, unsigned gen)
{
	struct pollfd pfd = { .fd = c->quit_fd, .events = POLLIN };
	uint64_t start = now_usec(CLOCK_THREAD_CPUTIME_ID), expirations;
	cpu_set_t saved, one;
	bool pinned;
	int cpu;

	pinned = sched_getaffinity(0, sizeof(saved), &saved) >= 0 && (cpu = sched_getcpu()) >= 0;
	if (pinned) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) >= 0;
	}
	for (;;) {
		if (poll(&pfd, 1, 0) != 0)
			return false; /* quit_fd, or poll() failed: the thread ends */
		if (read(c->canary_timer, &expirations, sizeof(expirations)) > 0)
			__atomic_add_fetch(&c->cheeps, 1, __ATOMIC_RELAXED);
		if ((now_usec(CLOCK_THREAD_CPUTIME_ID) - start) * NSEC_PER_USEC >= c->probe_nsec) {
			__atomic_store_n(&c->probe_done, gen, __ATOMIC_RELEASE);
			break;
		}
		if (__atomic_load_n(&c->probe_gen, __ATOMIC_ACQUIRE) != gen)
			break;
	}
	if (pinned)
		(void)sched_setaffinity(0, sizeof(saved), &saved);
	return true;
}

/* Takes the timerfd's next expiry, however many intervals passed. A kick
 * re-arms the timer if the canary moved CPU (on PREEMPT_RT a timerfd expires
 * in the arming CPU's ktimers thread, which a runaway there starves), then
 * runs the probe asked for. False on quit_fd or an error: the thread ends. */
static bool wait_tick(Canary *c, int *armed_cpu)
{
	struct pollfd pfd[3] = {
		{ .fd = c->canary_timer, .events = POLLIN },
		{ .fd = c->quit_fd, .events = POLLIN },
		{ .fd = c->kick_fd, .events = POLLIN },
	};
	uint64_t expirations;
	eventfd_t v;
	unsigned gen;
	int cpu;

	for (;;) {
		while (poll(pfd, 3, -1) < 0)
			if (errno != EINTR)
				return false;
		if (pfd[1].revents)
			return false;
		if (!pfd[2].revents)
			break;
		(void)eventfd_read(c->kick_fd, &v);
		/* only when moved: re-arming loses part of an interval */
		cpu = sched_getcpu();
		if (cpu != *armed_cpu) {
			(void)canary_timer_start(c);
			*armed_cpu = cpu;
		}
		gen = __atomic_load_n(&c->probe_gen, __ATOMIC_ACQUIRE);
		if (gen != 0 && gen != __atomic_load_n(&c->probe_done, __ATOMIC_ACQUIRE) &&
		    !canary_probe(c, gen))
			return false;
	}
	return read(c->canary_timer, &expirations, sizeof(expirations)) >= 0 || errno == EAGAIN;
}

/* Waits until *next_usec, the next look on a grid of slot_usec, and moves it
 * past now. A ppoll() timeout, not a timerfd (realtimed(8), SAFETY). False on
 * quit_fd or an error: the thread ends. */
static bool wait_slot(Canary *c, uint64_t *next_usec)
{
	struct pollfd pfd = { .fd = c->quit_fd, .events = POLLIN };
	uint64_t now = now_usec(CLOCK_MONOTONIC);

	while (now < *next_usec) {
		uint64_t left = *next_usec - now;
		struct timespec ts = { .tv_sec = (time_t)(left / USEC_PER_SEC),
				       .tv_nsec = (long)(left % USEC_PER_SEC * NSEC_PER_USEC) };
		int n = ppoll(&pfd, 1, &ts, NULL);

		if (n < 0 && errno != EINTR)
			return false;
		if (n > 0)
			return false; /* quit_fd */
		now = now_usec(CLOCK_MONOTONIC);
	}
	*next_usec += ((now - *next_usec) / c->slot_usec + 1) * c->slot_usec;
	return true;
}

void *canary_thread_main(void *data)
{
	Canary *c = data;
	int armed_cpu = -1; /* where canary_start() armed the timer: not known */

	block_signals();
	(void)sched_apply(0, POLICY_GRANT_NICE, CANARY_NICE);
	if (sched_getaffinity(0, sizeof(c->canary_cpus), &c->canary_cpus) >= 0)
		__atomic_store_n(&c->canary_tid, gettid(), __ATOMIC_RELEASE);
	/* one cheep however many intervals passed: no catching up in a burst */
	while (wait_tick(c, &armed_cpu))
		__atomic_add_fetch(&c->cheeps, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* Moves a canary that fell behind off the CPUs where granted threads run
 * realtime now (unless that is all of them): the fair scheduler may leave it
 * behind a runaway while another CPU is free. */
static void canary_rescue(Canary *c)
{
	pid_t tid = __atomic_load_n(&c->canary_tid, __ATOMIC_ACQUIRE);
	cpu_set_t busy, cpus;

	if (tid == 0)
		return;
	CPU_ZERO(&busy);
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->watch.n_targets; i++) {
		const CanaryTarget *t = &c->watch.targets[i].target;
		ProcfsStat s;

		/* running SCHED_FIFO/RR now (fields 3, 39 and 41 of its stat) */
		if (procfs_stat_read(c->proc, t->pid, t->tid, &s) >= 0 && s.n_fields >= 41 &&
		    s.state == 'R' && (s.policy == SCHED_FIFO || s.policy == SCHED_RR) &&
		    s.processor >= 0 && s.processor < CPU_SETSIZE)
			CPU_SET(s.processor, &busy);
	}
	pthread_mutex_unlock(&c->lock);
	CPU_XOR(&cpus, &c->canary_cpus, &busy);
	CPU_AND(&cpus, &cpus, &c->canary_cpus);
	(void)sched_setaffinity(tid, sizeof(cpus), CPU_COUNT(&cpus) > 0 ? &cpus : &c->canary_cpus);
	/* woken, so that it moves now and re-arms its timer there */
	(void)eventfd_write(c->kick_fd, 1);
}

uint64_t canary_thread_runtime(const char *proc, pid_t pid, pid_t tid)
{
	char line[128];

	if (procfs_read_task_file(proc, pid, tid, "schedstat", line, sizeof(line)) < 0)
		return 0;
	return strtoull(line, NULL, 10); /* its first field */
}

/* Does the thread run SCHED_FIFO, RR or DEADLINE now (stat field 41)? */
static bool thread_realtime(Canary *c, pid_t pid, pid_t tid)
{
	ProcfsStat s;

	if (procfs_stat_read(c->proc, pid, tid, &s) < 0 || s.n_fields < 41)
		return false;
	s.policy &= ~SCHED_RESET_ON_FORK;
	return s.policy == SCHED_FIFO || s.policy == SCHED_RR || s.policy == SCHED_DEADLINE;
}

/* Whether (pid, tid) is a target; under the lock. */
static bool watch_has_target(const Watch *w, pid_t pid, pid_t tid)
{
	size_t lo = 0, hi = w->n_targets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->targets[mid].target.pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < w->n_targets && w->targets[lo].target.pid == pid; lo++)
		if (w->targets[lo].target.tid == tid)
			return true;
	return false;
}

/* CPU time (ns) the noted unknown threads (not targets) ran realtime since
 * the last look; under the lock. */
static uint64_t unknown_used(Canary *c)
{
	uint64_t used = 0;

	for (size_t i = 0; i < c->n_unknown_seen; i++) {
		UnknownThread *t = &c->unknown[i];
		uint64_t st, r;

		if (watch_has_target(&c->watch, t->pid, t->tid) ||
		    procfs_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time)
			continue;
		r = canary_thread_runtime(c->proc, t->pid, t->tid);
		if (thread_realtime(c, t->pid, t->tid) && r > t->looked)
			used += r - t->looked;
		t->looked = r;
	}
	return used;
}

/* Did realtime threads (granted and noted) run HELD_PERCENT of every CPU the
 * canary may use since the last look? A thread counts when realtime at both
 * looks; each target's time is kept per slot for the blame. *ret_measured:
 * not the first look at these targets. */
static bool watch_held(Canary *c, uint64_t slot_usec, unsigned slot, bool *ret_measured)
{
	uint64_t used = 0;
	int ncpus;

	*ret_measured = false;
	if (__atomic_load_n(&c->canary_tid, __ATOMIC_ACQUIRE) == 0)
		return false;
	ncpus = CPU_COUNT(&c->canary_cpus);
	pthread_mutex_lock(&c->lock);
	*ret_measured = c->watch.looked;
	c->watch.looked = true;
	for (size_t i = 0; i < c->watch.n_targets; i++) {
		Watched *w = &c->watch.targets[i];
		bool rt = thread_realtime(c, w->target.pid, w->target.tid);
		uint64_t r = canary_thread_runtime(c->proc, w->target.pid, w->target.tid), d = 0;

		/* none the first time, nor from a thread that reuses the tid */
		if (rt && w->realtime && w->runtime != 0 && r > w->runtime)
			d = r - w->runtime;
		w->slot_nsec[slot] = d;
		used += d;
		w->runtime = r;
		w->realtime = rt;
	}
	used += unknown_used(c);
	pthread_mutex_unlock(&c->lock);
	return ncpus > 0 && used / NSEC_PER_USEC * 100 >= HELD_PERCENT * slot_usec * ncpus;
}

/* The canary's CPU time (ns), from the real /proc whatever c->proc is. */
static uint64_t canary_cpu(Canary *c)
{
	pid_t tid = __atomic_load_n(&c->canary_tid, __ATOMIC_ACQUIRE);

	return tid == 0 ? 0 : canary_thread_runtime("/proc/self/task", tid, 0);
}

/* The share (%) of the probe's CPU time the canary got since start. */
static unsigned probe_share(Canary *c, uint64_t start)
{
	uint64_t now = canary_cpu(c);

	if (now < start)
		return 0;
	return (unsigned)u64_min((now - start) * 100 / u64_max(c->probe_nsec, 1), 100);
}

/* Asks the canary for probe gen (0: none). */
static void probe_ask(Canary *c, unsigned gen)
{
	__atomic_store_n(&c->probe_gen, gen, __ATOMIC_RELEASE);
	if (gen != 0)
		(void)eventfd_write(c->kick_fd, 1);
}

void *canary_watchdog_main(void *data)
{
	Canary *c = data;
	uint64_t now = now_usec(CLOCK_MONOTONIC), next, escalate_until = 0, probe_cpu = 0;
	unsigned probe = 0, gen = 0, probe_percent = 100;
	CanaryClass k;
	Window win;
	int error;

	block_signals();
	k = canary_become_watchdog(&error);
	__atomic_store_n(&c->started_error, error, __ATOMIC_RELEASE);
	__atomic_store_n(&c->started_class, (int)k, __ATOMIC_RELEASE);
	(void)eventfd_write(c->started_fd, 1);

	win = (Window){ .last = now, .boot_offset = now_usec(CLOCK_BOOTTIME) - now };
	next = now + c->slot_usec;
	while (wait_slot(c, &next)) {
		uint64_t boot_offset, missing, slot;
		unsigned cheeps;
		bool deprived, demote_unknown, idle;

		now = now_usec(CLOCK_MONOTONIC);
		boot_offset = now_usec(CLOCK_BOOTTIME) - now;
		cheeps = __atomic_exchange_n(&c->cheeps, 0, __ATOMIC_RELAXED);
		pthread_mutex_lock(&c->lock);
		idle = c->report_pending || c->watch.n_targets == 0;
		demote_unknown = c->demote_unknown;
		pthread_mutex_unlock(&c->lock);

		/* Restart instead of judging: no targets or a report not yet
		 * collected, the watchdog itself half a slot late (SIGSTOP, a
		 * paused VM), or a suspend. */
		if (idle || now - win.last > c->slot_usec + c->slot_usec / 2 ||
		    boot_offset > win.boot_offset + SUSPEND_SLACK_USEC) {
			win = (Window){ .last = now, .boot_offset = boot_offset };
			probe_ask(c, probe = 0);
			continue;
		}
		slot = now - win.last;
		/* did the probe asked at the last look get its time? */
		deprived = probe != 0 && __atomic_load_n(&c->probe_done, __ATOMIC_ACQUIRE) != probe;
		if (probe != 0)
			probe_percent = deprived ? probe_share(c, probe_cpu) : 100;
		win.elapsed[win.next] = slot;
		win.held[win.next] =
			watch_held(c, slot, win.next, &win.measured[win.next]) ? slot : 0;
		win.deprived[win.next] = deprived;
		win.cheeps[win.next] = cheeps;
		/* held: ask the canary whether a fair thread still gets CPU time */
		if (win.held[win.next] > 0) {
			gen = gen + 1 ? gen + 1 : 1;
			probe_cpu = canary_cpu(c);
			probe_ask(c, probe = gen);
		} else if (probe != 0)
			probe_ask(c, probe = 0);
		win.next = (win.next + 1) % SLOTS;
		win.last = now;
		missing = canary_window_missing(&win, c->cheep_usec);
		if (missing >= c->watchdog_usec / 2) {
			probe_ask(c, probe = 0);
			/* escalation follows only a firing that demoted someone */
			if (canary_watchdog_fire(c, &win, now < escalate_until, probe_percent))
				escalate_until = now_usec(CLOCK_MONOTONIC) +
						 ESCALATE_WINDOWS * c->watchdog_usec;
			else
				escalate_until = 0;
			now = now_usec(CLOCK_MONOTONIC);
			win = (Window){ .last = now, .boot_offset = boot_offset };
		} else {
			/* half way to a firing: note the unknown threads, once a
			 * window (a look when the last note found none) */
			if (missing >= c->watchdog_usec / 4 && demote_unknown &&
			    now - c->unknown_usec >=
				    (c->n_unknown_seen > 0 ? c->watchdog_usec : c->slot_usec))
				canary_note_unknown(c, now);
			if (probe == 0 && (cheeps + 2) * c->cheep_usec <= slot)
				canary_rescue(c); /* two cheeps short since the last look */
		}
	}
	probe_ask(c, 0);
	return NULL;
}
