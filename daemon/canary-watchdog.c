// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The canary's two threads (canary.h has the design): the canary, which
 * cheeps, and the watchdog, which judges each window, and when the granted
 * threads starved the canary, demotes them and clamps their processes
 * (and, with CanaryDemoteUnknown=yes, every other realtime thread), moves
 * a canary stuck behind a runaway to another CPU, and hands the main
 * thread a report. Nothing here allocates or waits on the main thread.
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
/* A look in which granted threads used this share of every CPU the canary
 * may use (in 1/100) counts as held by them. */
#define HELD_PERCENT 90

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

/* Waits for the next expiry of the canary's timerfd and takes it, however
 * many intervals passed. A kick (canary_rescue() moved the canary) arms
 * the timer again first: on PREEMPT_RT a timerfd expires in the ktimers
 * thread of the CPU where it was last armed, and if that is the CPU a
 * runaway holds, the canary would sleep on there however often it is
 * moved. False once quit_fd is readable, or on an error: then the thread
 * ends. */
static bool wait_tick(Canary *c)
{
	struct pollfd pfd[3] = {
		{ .fd = c->canary_timer, .events = POLLIN },
		{ .fd = c->quit_fd, .events = POLLIN },
		{ .fd = c->kick_fd, .events = POLLIN },
	};
	uint64_t expirations;
	eventfd_t v;

	for (;;) {
		while (poll(pfd, 3, -1) < 0)
			if (errno != EINTR)
				return false;
		if (pfd[1].revents)
			return false;
		if (!pfd[2].revents)
			break;
		(void)eventfd_read(c->kick_fd, &v);
		(void)canary_timer_start(c);
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

	block_signals();
	(void)sched_apply(0, GRANT_NICE, CANARY_NICE);
	if (sched_getaffinity(0, sizeof(c->canary_cpus), &c->canary_cpus) >= 0)
		__atomic_store_n(&c->canary_tid, gettid(), __ATOMIC_RELEASE);
	/* One cheep however many intervals passed: a canary that was kept
	 * from running must not make up for it in a burst. */
	while (wait_tick(c))
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

/* A SCHED_FIFO/RR thread whose real and effective uid are not root? Run
 * after the granted threads were demoted: those that are realtime still
 * are others that reuse a granted tid, or took realtime with CAP_SYS_NICE. */
static bool thread_is_unknown_realtime(Canary *c, Watch *w, pid_t pid, pid_t tid)
{
	SchedState s;
	ProcUids u;

	if (sched_get_state(tid, &s) < 0 || (s.policy != SCHED_FIFO && s.policy != SCHED_RR))
		return false;
	if (proc_get_uids(c->proc, pid, tid, &u) < 0)
		return false;
	return u.ruid != 0 && u.euid != 0;
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

/* Runs in the watchdog thread, on a Watch that only it holds now. */
static void watch_fire(Canary *c, Watch *w, bool demote_unknown)
{
	pid_t clamped = 0;

	for (size_t i = 0; i < w->n_targets; i++) {
		CanaryTarget *t = &w->targets[i];
		uint64_t st;

		if (procfs_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time)
			continue;
		if (t->pid != clamped) {
			clamp_process(c, w, t->pid);
			clamped = t->pid;
		}
		(void)sched_reset(t->tid);
		w->demoted[w->n_demoted++] = *t;
	}
	if (demote_unknown)
		(void)proc_foreach(c, w, 0, demote_unknown_process);
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

/* Did the granted threads use HELD_PERCENT of every CPU the canary may use
 * since the last look? Where a fair deadline server (6.12) serves the
 * canary's short wakeups at once, this is what shows runaways: the canary
 * alone cannot tell them from an idle machine. */
static bool watch_held(Canary *c, uint64_t slot_usec)
{
	uint64_t used = 0;
	int ncpus;

	if (__atomic_load_n(&c->canary_tid, __ATOMIC_ACQUIRE) == 0)
		return false;
	ncpus = CPU_COUNT(&c->canary_cpus);
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->watch.n_targets; i++) {
		const CanaryTarget *t = &c->watch.targets[i];
		uint64_t r = thread_runtime(c, t->pid, t->tid), *last = &c->watch.runtime[i];

		/* none the first time, nor from a thread that reuses the tid */
		if (*last != 0 && r > *last)
			used += r - *last;
		*last = r;
	}
	pthread_mutex_unlock(&c->lock);
	return ncpus > 0 && used / NSEC_PER_USEC * 100 >= HELD_PERCENT * slot_usec * ncpus;
}

/* The watchdog's view of the last window: per slot, how long it was, how
 * many cheeps came, and how long granted threads held every CPU. */
typedef struct Window {
	uint64_t elapsed[SLOTS];
	uint64_t held[SLOTS];
	unsigned cheeps[SLOTS];
	unsigned next;
	uint64_t last;	      /* CLOCK_MONOTONIC of the previous look */
	uint64_t boot_offset; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC then */
} Window;

static void window_reset(Window *win, uint64_t now, uint64_t boot_offset)
{
	*win = (Window){ .last = now, .boot_offset = boot_offset };
}

/* How long in the window the canary was kept from running: per slot, the
 * time its cheeps do not cover, or the whole slot where granted threads
 * held every CPU. In microseconds. */
static uint64_t window_missing(const Window *win, uint64_t cheep_usec, unsigned *ret_percent,
			       uint64_t *ret_held)
{
	uint64_t elapsed = 0, covered = 0, missing = 0, held = 0;

	for (unsigned i = 0; i < SLOTS; i++) {
		uint64_t c = u64_min(win->cheeps[i] * cheep_usec, win->elapsed[i]);

		elapsed += win->elapsed[i];
		covered += c;
		held += win->held[i];
		missing += u64_max(win->elapsed[i] - c, win->held[i]);
	}
	*ret_percent = elapsed ? (unsigned)(covered * 100 / elapsed) : 100;
	*ret_held = held;
	return missing;
}

static void watchdog_fire(Canary *c, unsigned percent, uint64_t held)
{
	Watch w;
	bool demote_unknown;

	pthread_mutex_lock(&c->lock);
	w = c->watch;
	c->watch = (Watch){};
	demote_unknown = c->demote_unknown;
	pthread_mutex_unlock(&c->lock);

	/* without the lock: the main thread may install new targets meanwhile */
	w.cheeps_percent = percent;
	w.held_usec = held;
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

void *canary_watchdog_main(void *data)
{
	Canary *c = data;
	uint64_t now = now_usec(CLOCK_MONOTONIC), next;
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
			continue;
		}
		slot = now - win.last;
		win.elapsed[win.next] = slot;
		win.held[win.next] = watch_held(c, slot) ? slot : 0;
		win.cheeps[win.next] = (unsigned)u64_min(cheeps, UINT32_MAX);
		win.next = (win.next + 1) % SLOTS;
		win.last = now;
		missing = window_missing(&win, c->cheep_usec, &percent, &held);
		if (missing >= c->watchdog_usec / 2) {
			watchdog_fire(c, percent, held);
			window_reset(&win, now_usec(CLOCK_MONOTONIC), boot_offset);
		} else if ((cheeps + 2) * c->cheep_usec <= slot)
			canary_rescue(c); /* two cheeps short since the last look */
	}
	return NULL;
}
