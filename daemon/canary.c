// SPDX-License-Identifier: GPL-2.0-or-later
/* The canary watchdog threads; see canary.h for the design. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "canary.h"
#include "log.h"
#include "macro.h"
#include "pidfd.h"
#include "proc.h"
#include "sched-util.h"
#include "time-util.h"

/* SCHED_DEADLINE reservation of the watchdog: it needs microseconds per look,
 * more only while demoting; 10% of one CPU at most, and never late by more
 * than a period behind a runaway. */
#define WATCHDOG_RUNTIME_NSEC (5ULL * 1000000ULL)
#define WATCHDOG_PERIOD_NSEC (50ULL * 1000000ULL)
#define WATCHDOG_FIFO_PRIORITY 99
#define CANARY_NICE (-20)

/* The canary cheeps this often per window; the interval is clamped so that
 * an idle supervisor stays cheap (at most 100 wakeups per second) and so
 * that the one wakeup per second that throttling leaves a starving canary
 * is clearly less than half of what it asks for (at most 25%). */
#define CHEEPS_PER_WINDOW 20
#define CHEEP_MIN_USEC (50ULL * USEC_PER_MSEC)
#define CHEEP_MAX_USEC (250ULL * USEC_PER_MSEC)
/* The watchdog looks four times per window. */
#define SLOTS 4
/* CLOCK_BOOTTIME moving ahead of CLOCK_MONOTONIC by more than this is a
 * suspend and resume. */
#define SUSPEND_SLACK_USEC (100ULL * USEC_PER_MSEC)
/* How long a start waits for the watchdog to report its class. */
#define STARTUP_TIMEOUT_MS 5000
/* A look in which granted threads used this share of every CPU the canary
 * may use (in 1/100) counts as held by them. */
#define HELD_PERCENT 90

/* What the watchdog works on. The main thread allocates it with each update,
 * with room for what the watchdog may write when it fires, so that the
 * watchdog never allocates (a main thread starved while holding the malloc
 * lock must not block it). */
typedef struct Watch {
	CanaryTarget *targets; /* sorted by pid, so one process's threads are adjacent */
	size_t n_targets;
	CanaryTarget *demoted; /* room for n_targets */
	size_t n_demoted;
	CanaryClamp *clamped; /* room for max_clamped */
	size_t n_clamped, max_clamped;
	size_t n_unknown;
	unsigned cheeps_percent;
	uint64_t held_usec;
	uint64_t *runtime; /* per target: CPU time (ns) at the last look, 0 before */
} Watch;

struct Canary {
	sd_event *event;
	sd_event_source *fired_source;
	sd_event_source *restore_source;
	char *proc;
	canary_fired_t fired;
	void *userdata;

	pthread_mutex_t lock; /* priority inheritance: the watchdog may wait on it */
	Watch watch;	      /* under lock */
	Watch report;	      /* under lock: filled when the watchdog fired */
	bool report_pending;  /* under lock: until the main thread collected it */
	bool demote_unknown;  /* under lock */

	/* main thread only */
	CanaryClass klass;
	int class_error; /* why SCHED_DEADLINE was refused */
	CanaryClamp *restore;
	size_t n_restore;
	uint64_t refuse_usec;
	bool running;
	uint64_t watchdog_usec;
	int quit_fd;  /* main -> both threads */
	int fired_fd; /* watchdog -> main */

	/* set before the threads start, read-only while they run */
	uint64_t cheep_usec, slot_usec;
	int cheep_fd;			  /* canary -> watchdog: the count of cheeps */
	int started_fd;			  /* watchdog -> main: class reported */
	int canary_timer;		  /* timerfd, every cheep_usec */
	int watchdog_timer;		  /* timerfd, every slot_usec */
	int started_class, started_error; /* atomic: what the watchdog became */
	pthread_t canary_thread, watchdog_thread;
	/* written by the canary before it publishes its tid (atomic), then
	 * read by the watchdog only */
	cpu_set_t canary_cpus;
	pid_t canary_tid;
};

static const char *const class_names[_CANARY_CLASS_MAX] = {
	[CANARY_CLASS_DEADLINE] = "SCHED_DEADLINE",
	[CANARY_CLASS_FIFO] = "SCHED_FIFO 99",
	[CANARY_CLASS_OTHER] = "SCHED_OTHER",
};

const char *canary_class_to_string(CanaryClass k)
{
	if (k < 0 || k >= _CANARY_CLASS_MAX)
		return NULL;
	return class_names[k];
}

static uint64_t u64_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t u64_max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static void watch_done(Watch *w)
{
	free(w->targets);
	free(w->demoted);
	free(w->clamped);
	free(w->runtime);
	*w = (Watch){};
}

static int target_compare(const void *a, const void *b)
{
	const CanaryTarget *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int watch_alloc(Watch *w, const CanaryTarget *targets, size_t n)
{
	*w = (Watch){
		.targets = calloc(n, sizeof(CanaryTarget)),
		.demoted = calloc(n, sizeof(CanaryTarget)),
		.clamped = calloc(n + CANARY_UNKNOWN_CLAMP_MAX, sizeof(CanaryClamp)),
		.runtime = calloc(n, sizeof(uint64_t)),
		.n_targets = n,
		.max_clamped = n + CANARY_UNKNOWN_CLAMP_MAX,
	};
	if (!w->targets || !w->demoted || !w->clamped || !w->runtime) {
		watch_done(w);
		return -ENOMEM;
	}
	memcpy(w->targets, targets, n * sizeof(CanaryTarget));
	qsort(w->targets, n, sizeof(CanaryTarget), target_compare);
	return 0;
}

/* Tries SCHED_DEADLINE, then SCHED_FIFO 99, for the calling thread. */
static CanaryClass become_watchdog(int *ret_error)
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

static void *canary_main(void *data)
{
	Canary *c = data;
	struct pollfd pfd[2] = {
		{ .fd = c->canary_timer, .events = POLLIN },
		{ .fd = c->quit_fd, .events = POLLIN },
	};

	block_signals();
	(void)sched_apply(0, GRANT_NICE, CANARY_NICE);
	if (sched_getaffinity(0, sizeof(c->canary_cpus), &c->canary_cpus) >= 0)
		__atomic_store_n(&c->canary_tid, gettid(), __ATOMIC_RELEASE);
	for (;;) {
		uint64_t expirations;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		/* One cheep however many intervals passed: a canary that was
		 * kept from running must not make up for it in a burst. */
		if (read(c->canary_timer, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
			break;
		if (eventfd_write(c->cheep_fd, 1) < 0 && errno != EAGAIN)
			break;
	}
	return NULL;
}

/* Sets RLIMIT_RTPRIO 0 on process pid and keeps its old limit in the report. */
static void clamp_process(Canary *c, Watch *w, pid_t pid)
{
	static const struct rlimit zero = { 0, 0 };
	struct rlimit old;
	uint64_t st;

	if (w->n_clamped >= w->max_clamped || proc_get_start_time(c->proc, pid, 0, &st) < 0)
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
	const char *policy;
	ProcUids u;
	int prio;

	if (sched_get(tid, &policy, &prio) < 0 || (!streq(policy, "fifo") && !streq(policy, "rr")))
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

		if (proc_get_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time)
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
	char path[96], line[1024];
	const char *p;
	int field = 2, cpu = -1;
	char state = 0;

	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", c->proc, (int)pid, (int)tid);
	if (proc_read_file(path, line, sizeof(line)) < 0 || !(p = strrchr(line, ')')))
		return -1;
	for (p++; *p && field < 41;) {
		while (*p == ' ')
			p++;
		field++;
		if (field == 3)
			state = *p;
		else if (field == 39)
			cpu = atoi(p);
		else if (field == 41)
			return state == 'R' && (atoi(p) == SCHED_FIFO || atoi(p) == SCHED_RR) ? cpu
											      : -1;
		while (*p && *p != ' ')
			p++;
	}
	return -1;
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
}

/* CPU time (ns) a thread has used (the first field of its schedstat); 0
 * when it cannot be read. */
static uint64_t thread_runtime(Canary *c, pid_t pid, pid_t tid)
{
	char path[96], line[128];

	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", c->proc, (int)pid, (int)tid);
	if (proc_read_file(path, line, sizeof(line)) < 0)
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

static void *watchdog_main(void *data)
{
	Canary *c = data;
	struct pollfd pfd[2] = {
		{ .fd = c->watchdog_timer, .events = POLLIN },
		{ .fd = c->quit_fd, .events = POLLIN },
	};
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	CanaryClass k;
	Window win;
	int error;

	block_signals();
	k = become_watchdog(&error);
	__atomic_store_n(&c->started_error, error, __ATOMIC_RELEASE);
	__atomic_store_n(&c->started_class, (int)k, __ATOMIC_RELEASE);
	(void)eventfd_write(c->started_fd, 1);

	window_reset(&win, now, now_usec(CLOCK_BOOTTIME) - now);
	for (;;) {
		uint64_t expirations, boot_offset, missing, slot, held;
		eventfd_t cheeps = 0;
		unsigned percent;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (read(c->watchdog_timer, &expirations, sizeof(expirations)) < 0 &&
		    errno != EAGAIN)
			break;
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

/* Gives a clamped process its RLIMIT_RTPRIO back, if it is still the same
 * process and still has the 0 the watchdog set. */
static int restore_one(Canary *c, const CanaryClamp *e)
{
	_cleanup_close_ int pidfd = -EBADF;
	struct rlimit cur;
	uint64_t st;

	/* opened first: while it shows the process alive, the pid is not reused */
	pidfd = pidfd_open_cloexec(e->pid);
	if (pidfd < 0)
		return 0;
	if (proc_get_start_time(c->proc, e->pid, 0, &st) < 0 || st != e->start_time)
		return 0;
	if (prlimit(e->pid, RLIMIT_RTPRIO, NULL, &cur) < 0)
		return -errno;
	if (cur.rlim_cur != 0 || cur.rlim_max != 0)
		return 0; /* someone set another limit meanwhile */
	if (prlimit(e->pid, RLIMIT_RTPRIO, &e->old, NULL) < 0)
		return -errno;
	if (pidfd_alive(pidfd) < 0)
		log_debug("Process %d exited while its RLIMIT_RTPRIO was restored", (int)e->pid);
	return 1;
}

static void canary_restore_limits(Canary *c)
{
	unsigned restored = 0;
	int r;

	for (size_t i = 0; i < c->n_restore; i++) {
		r = restore_one(c, &c->restore[i]);
		if (r > 0)
			restored++;
		else if (r < 0)
			log_warning_errno(r,
					  "Failed to give process %d its RLIMIT_RTPRIO back: %m "
					  "(raising a hard limit needs CAP_SYS_RESOURCE)",
					  (int)c->restore[i].pid);
	}
	if (restored > 0)
		log_info("Gave %u processes the RLIMIT_RTPRIO they had before the canary fired",
			 restored);
	c->restore = mfree(c->restore);
	c->n_restore = 0;
	c->restore_source = sd_event_source_disable_unref(c->restore_source);
}

static int on_restore(sd_event_source *s, uint64_t usec, void *userdata)
{
	canary_restore_limits(userdata);
	return 0;
}

static int clamp_compare(const void *a, const void *b)
{
	const CanaryClamp *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start_time < y->start_time ? -1 : x->start_time > y->start_time;
}

/* Adds a report's clamps to the list given back after CanaryRefuseSec (kept
 * sorted), and restarts its timer. A process is listed once, with the limit
 * it had before it was first clamped: clamping it again finds 0 and records
 * nothing. */
static void canary_add_restore(Canary *c, const CanaryClamp *clamped, size_t n)
{
	CanaryClamp *list;
	size_t m = c->n_restore;
	int r;

	if (n == 0)
		return;
	list = reallocarray(c->restore, c->n_restore + n, sizeof(CanaryClamp));
	if (!list) {
		log_error("Out of memory: %zu processes keep RLIMIT_RTPRIO 0 after CanaryRefuseSec",
			  n);
		return;
	}
	c->restore = list;
	for (size_t i = 0; i < n; i++)
		if (!bsearch(&clamped[i], list, c->n_restore, sizeof(CanaryClamp), clamp_compare))
			list[m++] = clamped[i];
	c->n_restore = m;
	qsort(list, m, sizeof(CanaryClamp), clamp_compare);

	c->restore_source = sd_event_source_disable_unref(c->restore_source);
	r = sd_event_add_time_relative(c->event, &c->restore_source, CLOCK_MONOTONIC,
				       c->refuse_usec, 0, on_restore, c);
	if (r < 0)
		log_error_errno(r, "Failed to arm the RLIMIT_RTPRIO restore timer: %m");
}

static int on_fired(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Canary *c = userdata;
	CanaryReport report;
	eventfd_t v;
	Watch w;

	(void)eventfd_read(c->fired_fd, &v);
	pthread_mutex_lock(&c->lock);
	w = c->report;
	c->report = (Watch){};
	c->report_pending = false;
	pthread_mutex_unlock(&c->lock);

	canary_add_restore(c, w.clamped, w.n_clamped);
	report = (CanaryReport){
		.demoted = w.demoted,
		.n_demoted = w.n_demoted,
		.n_unknown = w.n_unknown,
		.n_clamped = w.n_clamped,
		.cheeps_percent = w.cheeps_percent,
		.held_usec = w.held_usec,
		.window_usec = c->watchdog_usec,
	};
	c->fired(&report, c->userdata);
	watch_done(&w);
	return 0;
}

static void canary_set_class(Canary *c, CanaryClass k, int error)
{
	if (k == c->klass)
		return;
	c->klass = k;
	c->class_error = error;
	if (k == CANARY_CLASS_DEADLINE)
		log_debug("The canary watchdog runs SCHED_DEADLINE (%llu ms every %llu ms)",
			  WATCHDOG_RUNTIME_NSEC / 1000000ULL, WATCHDOG_PERIOD_NSEC / 1000000ULL);
	else if (k == CANARY_CLASS_FIFO)
		log_warning_errno(error,
				  "The kernel refused SCHED_DEADLINE for the canary watchdog: %m; "
				  "it runs at SCHED_FIFO 99, so realtime grants above priority 98 "
				  "are refused (realtimed needs CAP_SYS_NICE and a CPU affinity "
				  "that spans all CPUs)");
	else
		log_warning("The canary watchdog cannot run realtime (no CAP_SYS_NICE?): "
			    "every realtime grant is refused");
}

static void *class_probe_main(void *data)
{
	int *result = data;

	result[0] = become_watchdog(&result[1]);
	return NULL;
}

/* Which class a watchdog gets here, from a short-lived thread. */
static void canary_probe_class(Canary *c)
{
	int result[2] = { CANARY_CLASS_OTHER, EPERM };
	pthread_t t;

	if (pthread_create(&t, NULL, class_probe_main, result) != 0) {
		canary_set_class(c, CANARY_CLASS_OTHER, EAGAIN);
		return;
	}
	pthread_join(t, NULL);
	canary_set_class(c, result[0], result[1]);
}

int canary_new(sd_event *e, const char *proc, canary_fired_t fired, void *userdata, Canary **ret)
{
	pthread_mutexattr_t attr;
	Canary *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cheep_fd = c->quit_fd = c->fired_fd = c->started_fd = -EBADF;
	c->canary_timer = c->watchdog_timer = -EBADF;
	c->klass = _CANARY_CLASS_INVALID;
	c->event = sd_event_ref(e);
	c->fired = fired;
	c->userdata = userdata;
	c->proc = strdup(proc);
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&c->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	c->fired_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!c->proc || c->fired_fd < 0) {
		r = c->proc ? -errno : -ENOMEM;
		canary_free(c);
		return r;
	}
	r = sd_event_add_io(e, &c->fired_source, c->fired_fd, EPOLLIN, on_fired, c);
	if (r < 0) {
		canary_free(c);
		return r;
	}
	canary_probe_class(c);
	*ret = c;
	return 0;
}

static void canary_close_fds(Canary *c)
{
	c->cheep_fd = safe_close(c->cheep_fd);
	c->quit_fd = safe_close(c->quit_fd);
	c->started_fd = safe_close(c->started_fd);
	c->canary_timer = safe_close(c->canary_timer);
	c->watchdog_timer = safe_close(c->watchdog_timer);
}

static void canary_stop(Canary *c)
{
	if (!c->running)
		return;
	(void)eventfd_write(c->quit_fd, 1);
	pthread_join(c->canary_thread, NULL);
	pthread_join(c->watchdog_thread, NULL);
	canary_close_fds(c);
	c->running = false;
	log_debug("Canary watchdog stopped");
}

static int timer_start(int fd, uint64_t usec)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = usec / USEC_PER_SEC,
				 .tv_nsec = (long)(usec % USEC_PER_SEC * NSEC_PER_USEC) },
	};

	its.it_value = its.it_interval;
	return RET_NERRNO(timerfd_settime(fd, 0, &its, NULL));
}

/* Starts the watchdog, waits for the class it got, then starts the canary. */
static int canary_start(Canary *c)
{
	struct pollfd pfd;
	eventfd_t v;
	int r;

	c->cheep_usec = u64_min(u64_max(c->watchdog_usec / CHEEPS_PER_WINDOW, CHEEP_MIN_USEC),
				CHEEP_MAX_USEC);
	/* a CanaryWatchdogSec below 20 ms still gets two cheeps per window */
	c->cheep_usec = u64_max(u64_min(c->cheep_usec, c->watchdog_usec / 2), 1);
	c->slot_usec = u64_max(c->watchdog_usec / SLOTS, 1);
	c->cheep_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->quit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->started_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->canary_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	c->watchdog_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c->cheep_fd < 0 || c->quit_fd < 0 || c->started_fd < 0 || c->canary_timer < 0 ||
	    c->watchdog_timer < 0) {
		r = -errno;
		goto fail;
	}
	r = timer_start(c->canary_timer, c->cheep_usec);
	if (r >= 0)
		r = timer_start(c->watchdog_timer, c->slot_usec);
	if (r < 0)
		goto fail;

	r = -pthread_create(&c->watchdog_thread, NULL, watchdog_main, c);
	if (r < 0)
		goto fail;
	pfd = (struct pollfd){ .fd = c->started_fd, .events = POLLIN };
	if (poll(&pfd, 1, STARTUP_TIMEOUT_MS) != 1 || eventfd_read(c->started_fd, &v) < 0) {
		r = -ETIMEDOUT;
		goto fail_watchdog;
	}
	canary_set_class(c, __atomic_load_n(&c->started_class, __ATOMIC_ACQUIRE),
			 __atomic_load_n(&c->started_error, __ATOMIC_ACQUIRE));
	r = -pthread_create(&c->canary_thread, NULL, canary_main, c);
	if (r < 0)
		goto fail_watchdog;
	/* Named here, not in the threads, so they carry their names from the start. */
	(void)pthread_setname_np(c->canary_thread, "rtd-canary");
	(void)pthread_setname_np(c->watchdog_thread, "rtd-watchdog");
	c->running = true;
	log_debug("Canary watchdog started (%llu ms, a cheep every %llu ms, %s)",
		  (unsigned long long)(c->watchdog_usec / USEC_PER_MSEC),
		  (unsigned long long)(c->cheep_usec / USEC_PER_MSEC),
		  canary_class_to_string(c->klass));
	return 0;
fail_watchdog:
	(void)eventfd_write(c->quit_fd, 1);
	pthread_join(c->watchdog_thread, NULL);
fail:
	canary_close_fds(c);
	return log_error_errno(r, "Failed to start the canary watchdog: %m");
}

int canary_update(Canary *c, const CanaryTarget *targets, size_t n, const CanarySettings *s)
{
	uint64_t watchdog_usec = s ? s->watchdog_usec : 0;
	Watch w = {}, old;
	size_t watched;
	int r;

	if (n > 0 && watchdog_usec > 0) {
		r = watch_alloc(&w, targets, n);
		if (r < 0)
			return r;
	}
	if (c->running && c->watchdog_usec != watchdog_usec)
		canary_stop(c);
	if (s)
		c->refuse_usec = s->refuse_usec;

	/* The old Watch goes; a report the main thread has not collected yet
	 * is kept apart, so nothing here grows with the number of updates. */
	pthread_mutex_lock(&c->lock);
	old = c->watch;
	c->watch = w;
	c->demote_unknown = s && s->demote_unknown;
	watched = c->watch.n_targets;
	pthread_mutex_unlock(&c->lock);
	watch_done(&old);

	if (watched == 0) {
		canary_stop(c);
		return 0;
	}
	if (c->running)
		return 0;
	c->watchdog_usec = watchdog_usec;
	return canary_start(c);
}

bool canary_running(const Canary *c)
{
	return c->running;
}

CanaryClass canary_class(const Canary *c)
{
	return c->klass;
}

int canary_max_grant_priority(const Canary *c)
{
	switch (c->klass) {
	case CANARY_CLASS_DEADLINE:
		return 99;
	case CANARY_CLASS_FIFO:
		return WATCHDOG_FIFO_PRIORITY - 1;
	case CANARY_CLASS_OTHER:
	case _CANARY_CLASS_MAX:
	case _CANARY_CLASS_INVALID:
		break;
	}
	return 0;
}

Canary *canary_free(Canary *c)
{
	if (!c)
		return NULL;
	canary_stop(c);
	/* The limits were taken for CanaryRefuseSec, not for longer than realtimed runs. */
	if (c->n_restore > 0)
		canary_restore_limits(c);
	sd_event_source_disable_unref(c->fired_source);
	sd_event_source_disable_unref(c->restore_source);
	safe_close(c->fired_fd);
	pthread_mutex_destroy(&c->lock);
	watch_done(&c->watch);
	watch_done(&c->report);
	free(c->restore);
	free(c->proc);
	sd_event_unref(c->event);
	free(c);
	return NULL;
}
