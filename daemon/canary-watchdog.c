// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The canary's two threads (canary.h has the design): the canary, which
 * cheeps (and probes what CPU time a fair thread gets, when asked), and
 * the watchdog, which judges each window, and when the canary starved,
 * blames the users whose granted threads held the CPUs, demotes their
 * threads and clamps their processes (everyone's, when starvation
 * persists), moves a canary stuck behind a runaway to another CPU, and
 * hands the main thread a report. Nothing here allocates or waits on the
 * main thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "canary-internal.h"
#include "macro.h"
#include "proc.h"
#include "procfs-stat.h"
#include "sched-util.h"

/* The canary runs SCHED_OTHER at this nice level: ordinary fair load does
 * not delay it. */
#define CANARY_NICE (-20)
/* CLOCK_BOOTTIME moving ahead of CLOCK_MONOTONIC by more than this is a
 * suspend and resume. */
#define SUSPEND_SLACK_USEC (100ULL * USEC_PER_MSEC)
/* A look in which granted threads ran realtime for this share of every
 * CPU the canary may use (in 1/100) counts as held by them; a user whose
 * granted threads ran realtime for this share of one CPU over the window
 * is blamed for it. */
#define HELD_PERCENT 90
/* Escalation: a firing this many windows after the last one finds that
 * starvation persisted. */
#define ESCALATE_WINDOWS 2

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
	if (sched_apply(0, GRANT_FIFO, WATCHDOG_FIFO_PRIORITY) >= 0)
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

static uint64_t thread_cpu_nsec(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * USEC_PER_SEC * NSEC_PER_USEC + (uint64_t)ts.tv_nsec;
}

/* The probe (canary.h) number gen: spins, pinned to the CPU it is on (so
 * that it measures what one CPU leaves the fair class, not the sum of
 * what all of them do), until it got probe_nsec of CPU time, cheeping
 * on each expiry of its timer; stops early when the watchdog asks for
 * another probe or none. False once quit_fd is readable. */
static bool canary_probe(Canary *c, unsigned gen)
{
	struct pollfd pfd = { .fd = c->quit_fd, .events = POLLIN };
	uint64_t start = thread_cpu_nsec(), expirations;
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
		if (read(c->canary_timer, &expirations, sizeof(expirations)) > 0 &&
		    eventfd_write(c->cheep_fd, 1) < 0 && errno != EAGAIN)
			return false;
		if (thread_cpu_nsec() - start >= c->probe_nsec) {
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

/* Waits for the next expiry of the canary's timerfd and takes it, however
 * many intervals passed. A kick (canary_rescue() moved the canary, or the
 * watchdog asks for a probe) arms the timer again first where the canary
 * moved to another CPU since it was armed: on PREEMPT_RT a
 * timerfd expires in the ktimers thread of the CPU where it was last
 * armed, and if that is the CPU a runaway holds, the canary would sleep on
 * there however often it is moved; then runs the probe asked for, if any.
 * False once quit_fd is readable, or on an error: then the thread ends. */
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
		/* moved: armed again where it runs now; a kick for a probe
		 * alone keeps the timer's phase (re-arming loses a part of an
		 * interval, a cheep short each time) */
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

/* Waits until *next_usec (CLOCK_MONOTONIC), the watchdog's next look on a
 * grid of slot_usec, then moves *next_usec past now, however many slots
 * went by. The timeout of ppoll(), not a timerfd: on PREEMPT_RT a timerfd
 * expires in the ktimers threads (SCHED_FIFO 1), which the very runaways
 * the watchdog must catch starve, while the sleep of a deadline or
 * realtime task expires in hard interrupt context. False once quit_fd is
 * readable, or on an error: then the thread ends. */
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
	(void)sched_apply(0, GRANT_NICE, CANARY_NICE);
	if (sched_getaffinity(0, sizeof(c->canary_cpus), &c->canary_cpus) >= 0)
		__atomic_store_n(&c->canary_tid, gettid(), __ATOMIC_RELEASE);
	/* One cheep however many intervals passed: a canary that was kept
	 * from running must not make up for it in a burst. */
	while (wait_tick(c, &armed_cpu))
		if (eventfd_write(c->cheep_fd, 1) < 0 && errno != EAGAIN)
			break;
	return NULL;
}

/* Sets RLIMIT_RTPRIO 0 on process pid and keeps its old limit in the report. */
static void clamp_process(Canary *c, Watch *w, pid_t pid)
{
	static const struct rlimit zero = { 0, 0 };
	struct rlimit old;
	uint64_t st;

	if (w->n_clamped >= w->max_clamped || procfs_start_time(c->proc, pid, 0, &st) < 0)
		return;
	if (prlimit(pid, RLIMIT_RTPRIO, &zero, &old) < 0)
		return; /* gone, or no CAP_SYS_RESOURCE: demoted all the same */
	if (old.rlim_cur == 0 && old.rlim_max == 0)
		return; /* nothing to give back later */
	w->clamped[w->n_clamped++] = (CanaryClamp){ .pid = pid, .start_time = st, .old = old };
}

static bool is_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Calls f(c, w, pid, tid) for each thread of process pid, or for each
 * process when pid == 0; stops at the first f() that returns true. Reads the
 * directory with getdents64() into a stack buffer: opendir() allocates. */
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

			off += de->d_reclen;
			if (!is_digits(de->d_name))
				continue;
			if (pid == 0 ? f(c, w, (pid_t)atoi(de->d_name), 0)
				     : f(c, w, pid, (pid_t)atoi(de->d_name)))
				return true;
		}
	return false;
}

static bool blamed(const Watch *w, uid_t uid)
{
	for (size_t i = 0; i < w->n_blamed; i++)
		if (w->blamed[i].uid == uid)
			return true;
	return false;
}

/* A SCHED_FIFO/RR thread whose real and effective uid are not root, of a
 * blamed user unless the firing escalated? Run after the granted threads
 * were demoted: those that are realtime still are others that reuse a
 * granted tid, or took realtime with CAP_SYS_NICE. */
static bool thread_is_unknown_realtime(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	SchedState s;
	ProcUids u;

	if (sched_get_state(tid, &s) < 0 || (s.policy != SCHED_FIFO && s.policy != SCHED_RR))
		return false;
	if (proc_get_uids(c->proc, pid, tid, &u) < 0)
		return false;
	return u.ruid != 0 && u.euid != 0 && (w->escalated || blamed(w, u.ruid));
}

static bool demote_unknown_thread(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	if (thread_is_unknown_realtime(c, w, pid, tid) && sched_reset(tid) >= 0)
		w->n_unknown++;
	return false;
}

/* Clamps first, then demotes: a thread that took realtime between the two
 * looks is caught by the second, and none can take it again afterwards. */
static bool demote_unknown_process(Canary *c, Watch *w, pid_t pid, pid_t tid_unused)
{
	if (pid == getpid() || !proc_foreach(c, w, pid, thread_is_unknown_realtime))
		return false;
	clamp_process(c, w, pid);
	(void)proc_foreach(c, w, pid, demote_unknown_thread);
	return false;
}

/* The watchdog's view of the last window: per slot, how long it was, how
 * many cheeps came, how long granted threads held every CPU, and whether
 * the probe that ran in it found the fair class deprived. */
typedef struct Window {
	uint64_t elapsed[SLOTS];
	uint64_t held[SLOTS];
	bool deprived[SLOTS];
	bool measured[SLOTS]; /* the granted threads' realtime time is known */
	unsigned cheeps[SLOTS];
	unsigned next;
	uint64_t last;	      /* CLOCK_MONOTONIC of the previous look */
	uint64_t boot_offset; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC then */
} Window;

/* How long in slot i the canary was kept from running: the time its
 * cheeps do not cover, or the whole slot where granted threads held every
 * CPU and the probe that ran in it or in the next slot found the fair
 * class deprived (a held look starts the probe that runs in the next
 * slot). In microseconds. */
static uint64_t slot_missing(const Window *win, unsigned i, uint64_t cheep_usec)
{
	uint64_t c = u64_min(win->cheeps[i] * cheep_usec, win->elapsed[i]);
	unsigned next = (i + 1) % SLOTS;
	/* the newest slot has no next one yet */
	bool deprived = win->deprived[i] || (next != win->next && win->deprived[next]);

	return u64_max(win->elapsed[i] - c, deprived ? win->held[i] : 0);
}

/* Whom to blame (canary.h): from the realtime CPU time of each user's
 * granted threads in the starved slots of the window (the canary missed
 * half of the slot or more) where it was measured, every user with
 * HELD_PERCENT of one CPU over those slots, then, largest first, as many
 * more as it takes for the others' realtime time to fall below half of
 * ncpus CPUs' time. Only the starved slots: a runaway that started in the
 * middle of the window is judged by the time it ran. Sorts nothing
 * (qsort() may allocate); the second part is quadratic in the users
 * blamed, at a firing only. */
static void watch_blame(Watch *w, const Window *win, uint64_t cheep_usec, int ncpus)
{
	bool starved[SLOTS];
	uint64_t window = 0, rest = 0;
	size_t n = 0;

	w->n_blamed = 0;
	w->realtime_usec = w->starved_usec = 0;
	for (unsigned k = 0; k < SLOTS; k++) {
		starved[k] = win->measured[k] && win->elapsed[k] > 0 &&
			     slot_missing(win, k, cheep_usec) * 2 >= win->elapsed[k];
		if (starved[k])
			window += win->elapsed[k];
	}
	w->starved_usec = window;
	if (window == 0)
		return;
	for (size_t i = 0; i < w->n_targets; i++) {
		uint64_t t = 0;

		for (unsigned k = 0; k < SLOTS; k++)
			if (starved[k])
				t += w->slot_nsec[i * SLOTS + k] / NSEC_PER_USEC;
		/* targets are sorted by user: a new user starts a new sum */
		if (n == 0 || w->users[n - 1].uid != w->targets[i].uid)
			w->users[n++] = (CanaryBlame){ .uid = w->targets[i].uid };
		w->users[n - 1].realtime_usec += t;
		w->realtime_usec += t;
	}
	for (size_t i = 0; i < n; i++) {
		if (w->users[i].realtime_usec * 100 >= HELD_PERCENT * window) {
			w->blamed[w->n_blamed++] = w->users[i];
			w->users[i].realtime_usec = 0; /* taken */
		} else
			rest += w->users[i].realtime_usec;
	}
	while (rest > 0 && rest * 2 >= window * (uint64_t)u64_max(ncpus, 1)) {
		size_t max = 0;

		for (size_t i = 1; i < n; i++)
			if (w->users[i].realtime_usec > w->users[max].realtime_usec)
				max = i;
		w->blamed[w->n_blamed++] = w->users[max];
		rest -= w->users[max].realtime_usec;
		w->users[max].realtime_usec = 0;
	}
}

static uint64_t thread_runtime(Canary *c, pid_t pid, pid_t tid);

/* Notes each realtime thread of a user other than root, for the blame at
 * an escalation; stops the scan once the list is full. */
static bool note_unknown_thread(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	SchedState s;
	ProcUids u;
	uint64_t st;

	if (c->n_unknown_seen >= CANARY_UNKNOWN_CLAMP_MAX)
		return true;
	if (sched_get_state(tid, &s) < 0 || (s.policy != SCHED_FIFO && s.policy != SCHED_RR))
		return false;
	if (proc_get_uids(c->proc, pid, tid, &u) < 0 || u.ruid == 0 || u.euid == 0 ||
	    procfs_start_time(c->proc, pid, tid, &st) < 0)
		return false;
	c->unknown[c->n_unknown_seen++] = (UnknownThread){
		.pid = pid,
		.tid = tid,
		.uid = u.ruid,
		.start_time = st,
		.runtime = thread_runtime(c, pid, tid),
	};
	return false;
}

static bool note_unknown_process(Canary *c, Watch *w, pid_t pid, pid_t tid_unused)
{
	return pid != getpid() && proc_foreach(c, w, pid, note_unknown_thread);
}

/* At a firing after one that noted realtime threads realtimed did not
 * grant (note_unknown_thread()): blames, besides, each user whose noted
 * threads used HELD_PERCENT of one CPU since, so that a user whose runaway
 * took realtime through its own RLIMIT_RTPRIO (GrantLimits) is demoted and
 * refused too and cannot take the limit back at once. Returns how many
 * CPUs those threads kept busy since, on average. */
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
		    (r = thread_runtime(c, t->pid, t->tid)) <= t->runtime)
			continue;
		for (k = 0; k < n && c->unknown_users[k].uid != t->uid; k++)
			;
		if (k == n)
			c->unknown_users[n++] = (CanaryBlame){ .uid = t->uid };
		c->unknown_users[k].realtime_usec += (r - t->runtime) / NSEC_PER_USEC;
		total += (r - t->runtime) / NSEC_PER_USEC;
	}
	for (size_t k = 0; k < n; k++)
		if (span > 0 && c->unknown_users[k].realtime_usec * 100 >= HELD_PERCENT * span &&
		    !blamed(w, c->unknown_users[k].uid))
			w->blamed[w->n_blamed++] = c->unknown_users[k];
	c->n_unknown_seen = 0;
	return span > 0 ? (double)total / (double)span : 0;
}

/* Runs in the watchdog thread, on a Watch that only it holds now: demotes
 * the blamed users' granted threads (every user's, escalated) and clamps
 * their processes. An escalation stands only while realtime threads, the
 * granted ones in the starved slots and the unknown ones noted at the
 * last firing, kept at least half of the CPUs busy: a canary starved by
 * fair load alone (a crowd of processes, a loaded machine) is no reason
 * to take realtime from anyone, and demoting would not feed it. A firing
 * that does not escalate notes the realtime threads left
 * (blame_unknown()). */
static void watch_fire(Canary *c, Watch *w, bool demote_unknown)
{
	int ncpus = CPU_COUNT(&c->canary_cpus);
	double busy = w->starved_usec ? (double)w->realtime_usec / (double)w->starved_usec : 0;
	pid_t clamped = 0;

	if (demote_unknown && c->n_unknown_seen > 0)
		busy += blame_unknown(c, w, now_usec(CLOCK_MONOTONIC));
	if (w->escalated && busy * 2 < (double)(ncpus > 0 ? ncpus : 1))
		w->escalated = false;

	for (size_t i = 0; i < w->n_targets; i++) {
		CanaryTarget *t = &w->targets[i];
		uint64_t st;

		if (!w->escalated && !blamed(w, t->uid))
			continue;
		if (procfs_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time)
			continue;
		if (t->pid != clamped) {
			clamp_process(c, w, t->pid);
			clamped = t->pid;
		}
		(void)sched_reset(t->tid);
		w->demoted[w->n_demoted++] = *t;
	}
	if (!demote_unknown)
		return;
	if (w->escalated || w->n_blamed > 0)
		(void)proc_foreach(c, w, 0, demote_unknown_process);
	if (!w->escalated) {
		c->n_unknown_seen = 0;
		c->unknown_usec = now_usec(CLOCK_MONOTONIC);
		(void)proc_foreach(c, w, 0, note_unknown_process);
	}
}

/* The CPU a thread is on, if it runs SCHED_FIFO/RR now (fields 3, state,
 * 39, processor, and 41, policy, of its stat file); -1 otherwise. */
static int realtime_thread_cpu(Canary *c, pid_t pid, pid_t tid)
{
	ProcfsStat s;

	if (procfs_stat_read(c->proc, pid, tid, &s) < 0 || s.n_fields < 41)
		return -1;
	return s.state == 'R' && (s.policy == SCHED_FIFO || s.policy == SCHED_RR) ? s.processor
										  : -1;
}

/* The fair scheduler places a waking thread blind to realtime load: the
 * canary may wait on a CPU that a granted runaway holds while another CPU
 * could run it, and a busy CPU does not pull it over (only an idle one
 * does). That is not starvation: when the canary falls behind, the
 * watchdog moves it off the CPUs where granted threads run realtime now,
 * unless they hold every CPU it may use. */
static void canary_rescue(Canary *c)
{
	pid_t tid = __atomic_load_n(&c->canary_tid, __ATOMIC_ACQUIRE);
	cpu_set_t busy, cpus;

	if (tid == 0)
		return;
	CPU_ZERO(&busy);
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->watch.n_targets; i++) {
		int cpu = realtime_thread_cpu(c, c->watch.targets[i].pid, c->watch.targets[i].tid);

		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_SET(cpu, &busy);
	}
	pthread_mutex_unlock(&c->lock);
	CPU_XOR(&cpus, &c->canary_cpus, &busy);
	CPU_AND(&cpus, &cpus, &c->canary_cpus);
	(void)sched_setaffinity(tid, sizeof(cpus), CPU_COUNT(&cpus) > 0 ? &cpus : &c->canary_cpus);
	/* a sleeping canary stays asleep where it is: wake it, so that it
	 * moves now and arms its timer on a CPU it can have */
	(void)eventfd_write(c->kick_fd, 1);
}

/* CPU time (ns) a thread has used (the first field of its schedstat); 0
 * when it cannot be read. */
static uint64_t thread_runtime(Canary *c, pid_t pid, pid_t tid)
{
	char path[96], line[128];

	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", c->proc, (int)pid, (int)tid);
	if (procfs_read_file(path, line, sizeof(line)) < 0)
		return 0;
	return strtoull(line, NULL, 10);
}

/* Does the thread run SCHED_FIFO, SCHED_RR or SCHED_DEADLINE now (field
 * 41 of its stat)? */
static bool thread_realtime(Canary *c, pid_t pid, pid_t tid)
{
	ProcfsStat s;

	if (procfs_stat_read(c->proc, pid, tid, &s) < 0 || s.n_fields < 41)
		return false;
	s.policy &= ~SCHED_RESET_ON_FORK;
	return s.policy == SCHED_FIFO || s.policy == SCHED_RR || s.policy == SCHED_DEADLINE;
}

/* Did the granted threads run realtime for HELD_PERCENT of every CPU the
 * canary may use since the last look? A thread's CPU time counts when it
 * ran realtime at this look and at the last: one that set itself back to
 * SCHED_OTHER competes with the canary as any fair thread and holds
 * nothing. Each target's share is kept for slot, to blame its user;
 * *ret_measured: the shares are measured (not the first look at these
 * targets, which only takes their CPU time so far). */
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
		Watch *w = &c->watch;
		const CanaryTarget *t = &w->targets[i];
		bool rt = thread_realtime(c, t->pid, t->tid);
		uint64_t r = thread_runtime(c, t->pid, t->tid), d = 0;

		/* none the first time, nor from a thread that reuses the tid */
		if (rt && w->realtime[i] && w->runtime[i] != 0 && r > w->runtime[i])
			d = r - w->runtime[i];
		w->slot_nsec[i * SLOTS + slot] = d;
		used += d;
		w->runtime[i] = r;
		w->realtime[i] = rt;
	}
	pthread_mutex_unlock(&c->lock);
	return ncpus > 0 && used / NSEC_PER_USEC * 100 >= HELD_PERCENT * slot_usec * ncpus;
}

static void window_reset(Window *win, uint64_t now, uint64_t boot_offset)
{
	*win = (Window){ .last = now, .boot_offset = boot_offset };
}

/* How long in the window the canary was kept from running (slot_missing()
 * of each slot), in microseconds. */
static uint64_t window_missing(const Window *win, uint64_t cheep_usec, unsigned *ret_percent,
			       uint64_t *ret_held)
{
	uint64_t elapsed = 0, covered = 0, missing = 0, held = 0;

	for (unsigned i = 0; i < SLOTS; i++) {
		elapsed += win->elapsed[i];
		covered += u64_min(win->cheeps[i] * cheep_usec, win->elapsed[i]);
		held += win->held[i];
		missing += slot_missing(win, i, cheep_usec);
	}
	*ret_percent = elapsed ? (unsigned)(covered * 100 / elapsed) : 100;
	*ret_held = held;
	return missing;
}

static void watchdog_fire(Canary *c, const Window *win, bool escalate, unsigned probe_percent)
{
	unsigned percent;
	uint64_t held;
	Watch w;
	bool demote_unknown;

	pthread_mutex_lock(&c->lock);
	w = c->watch;
	c->watch = (Watch){};
	demote_unknown = c->demote_unknown;
	pthread_mutex_unlock(&c->lock);

	/* without the lock: the main thread may install new targets meanwhile */
	(void)window_missing(win, c->cheep_usec, &percent, &held);
	w.cheeps_percent = percent;
	w.held_usec = held;
	w.probe_percent = probe_percent;
	w.escalated = escalate;
	watch_blame(&w, win, c->cheep_usec, CPU_COUNT(&c->canary_cpus));
	watch_fire(c, &w, demote_unknown);

	pthread_mutex_lock(&c->lock);
	c->report = w;
	c->report_pending = true;
	pthread_mutex_unlock(&c->lock);
	(void)eventfd_write(c->fired_fd, 1);
}

/* Nothing to judge: no targets, or the last report not yet collected. */
static bool watch_idle(Canary *c)
{
	bool idle;

	pthread_mutex_lock(&c->lock);
	idle = c->report_pending || c->watch.n_targets == 0;
	pthread_mutex_unlock(&c->lock);
	return idle;
}

/* The canary's CPU time (ns): of the real thread, whatever c->proc is. */
static uint64_t canary_cpu(Canary *c)
{
	pid_t tid = __atomic_load_n(&c->canary_tid, __ATOMIC_ACQUIRE);
	char path[64], line[128];

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	if (tid == 0 || procfs_read_file(path, line, sizeof(line)) < 0)
		return 0;
	return strtoull(line, NULL, 10);
}

/* How much of the CPU time a probe asked for the canary got since it had
 * used start, in percent (for the report). */
static unsigned probe_share(Canary *c, uint64_t start)
{
	uint64_t now = canary_cpu(c);

	if (now < start)
		return 0;
	return (unsigned)u64_min((now - start) * 100 / u64_max(c->probe_nsec, 1), 100);
}

/* Asks the canary for probe gen (0: none); a probe is asked by a kick. */
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

	window_reset(&win, now, now_usec(CLOCK_BOOTTIME) - now);
	next = now + c->slot_usec;
	while (wait_slot(c, &next)) {
		uint64_t boot_offset, missing, slot, held;
		eventfd_t cheeps = 0;
		unsigned percent;
		bool deprived;

		now = now_usec(CLOCK_MONOTONIC);
		boot_offset = now_usec(CLOCK_BOOTTIME) - now;
		if (eventfd_read(c->cheep_fd, &cheeps) < 0)
			cheeps = 0;

		/* Restart the count instead of judging: nothing to demote, or
		 * the main thread has not collected the last report yet; the
		 * watchdog itself looks half a slot late, so nobody ran (SIGSTOP,
		 * a paused VM; nothing that realtimed grants delays it); or the
		 * machine was suspended. */
		if (watch_idle(c) || now - win.last > c->slot_usec + c->slot_usec / 2 ||
		    boot_offset > win.boot_offset + SUSPEND_SLACK_USEC) {
			window_reset(&win, now, boot_offset);
			probe_ask(c, probe = 0);
			continue;
		}
		slot = now - win.last;
		/* the probe asked at the last look ran in this slot: did the
		 * canary get its CPU time? */
		deprived = probe != 0 && __atomic_load_n(&c->probe_done, __ATOMIC_ACQUIRE) != probe;
		if (probe != 0)
			probe_percent = deprived ? probe_share(c, probe_cpu) : 100;
		win.elapsed[win.next] = slot;
		win.held[win.next] =
			watch_held(c, slot, win.next, &win.measured[win.next]) ? slot : 0;
		win.deprived[win.next] = deprived;
		win.cheeps[win.next] = (unsigned)u64_min(cheeps, UINT32_MAX);
		/* held: ask the canary whether a fair thread still gets CPU time */
		if (win.held[win.next] > 0) {
			gen = gen + 1 ? gen + 1 : 1;
			probe_cpu = canary_cpu(c);
			probe_ask(c, probe = gen);
		} else if (probe != 0)
			probe_ask(c, probe = 0);
		win.next = (win.next + 1) % SLOTS;
		win.last = now;
		missing = window_missing(&win, c->cheep_usec, &percent, &held);
		if (missing >= c->watchdog_usec / 2) {
			probe_ask(c, probe = 0);
			watchdog_fire(c, &win, now < escalate_until, probe_percent);
			now = now_usec(CLOCK_MONOTONIC);
			escalate_until = now + ESCALATE_WINDOWS * c->watchdog_usec;
			window_reset(&win, now, boot_offset);
		} else if (probe == 0 && (cheeps + 2) * c->cheep_usec <= slot)
			canary_rescue(c); /* two cheeps short since the last look */
	}
	probe_ask(c, 0);
	return NULL;
}
