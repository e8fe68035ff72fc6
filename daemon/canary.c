// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The canary, the main thread's side: the watchdog's class, starting and
 * stopping the threads, their targets, the reports, and the limits given back.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "canary-internal.h"
#include "log.h"
#include "macro.h"
#include "pidfd.h"
#include "proc.h"
#include "string-table.h"

/* Cheeps per window; the interval is clamped so that an idle canary stays
 * cheap and throttling's one wakeup a second is under 25% of what it asks. */
#define CHEEPS_PER_WINDOW 20
#define CHEEP_MIN_USEC (50ULL * USEC_PER_MSEC)
#define CHEEP_MAX_USEC (250ULL * USEC_PER_MSEC)
#define STARTUP_TIMEOUT_MS 5000 /* for the watchdog to report its class */

static const char *const class_names[_CANARY_CLASS_MAX] = {
	[CANARY_CLASS_DEADLINE] = "SCHED_DEADLINE",
	[CANARY_CLASS_FIFO] = "SCHED_FIFO 99",
	[CANARY_CLASS_OTHER] = "SCHED_OTHER",
};

const char *canary_class_to_string(CanaryClass k)
{
	return string_table_lookup(class_names, ELEMENTSOF(class_names), k);
}

static void watch_done(Watch *w)
{
	free(w->targets);
	free(w->demoted);
	free(w->clamped);
	free(w->blamed);
	free(w->users);
	*w = (Watch){};
}

/* By user (the blame adds them up), then process (clamped once). */
static int target_compare(const void *a, const void *b)
{
	const CanaryTarget *x = &((const Watched *)a)->target, *y = &((const Watched *)b)->target;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int watch_alloc(Watch *w, const CanaryTarget *targets, size_t n)
{
	size_t room = n + CANARY_UNKNOWN_CLAMP_MAX;

	*w = (Watch){
		.targets = calloc(n, sizeof(Watched)),
		.demoted = calloc(room, sizeof(CanaryTarget)),
		.clamped = calloc(room, sizeof(CanaryClamp)),
		.blamed = calloc(room, sizeof(CanaryBlame)),
		.users = calloc(room, sizeof(CanaryBlame)),
		.n_targets = n,
	};
	if (!w->targets || !w->demoted || !w->clamped || !w->blamed || !w->users) {
		watch_done(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		w->targets[i].target = targets[i];
	qsort(w->targets, n, sizeof(Watched), target_compare);
	w->report.demoted = w->demoted;
	w->report.blamed = w->blamed;
	return 0;
}

/* Gives RLIMIT_RTPRIO back if it is still the same process with the 0 set. */
static int restore_one(Canary *c, const CanaryClamp *e)
{
	_cleanup_close_ int pidfd = -EBADF;
	struct rlimit cur;
	uint64_t st;

	/* opened first: while it shows the process alive, the pid is not reused */
	pidfd = pidfd_open_cloexec(e->pid);
	if (pidfd < 0)
		return 0;
	if (procfs_start_time(c->proc, e->pid, 0, &st) < 0 || st != e->start_time)
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

/* Adds clamps to give back after CanaryRefuseSec, and restarts the timer. A
 * process clamped again is recorded only if its limit was raised since; its
 * first entry then restores, and the later ones find no 0. */
static void canary_add_restore(Canary *c, const CanaryClamp *clamped, size_t n)
{
	CanaryClamp *list;
	int r;

	if (n == 0)
		return;
	list = reallocarray(c->restore, c->n_restore + n, sizeof(CanaryClamp));
	if (!list) {
		log_error("Out of memory: %zu processes keep RLIMIT_RTPRIO 0 after CanaryRefuseSec",
			  n);
		return;
	}
	memcpy(list + c->n_restore, clamped, n * sizeof(CanaryClamp));
	c->restore = list;
	c->n_restore += n;

	c->restore_source = sd_event_source_disable_unref(c->restore_source);
	r = sd_event_add_time_relative(c->event, &c->restore_source, CLOCK_MONOTONIC,
				       c->refuse_usec, 0, on_restore, c);
	if (r < 0)
		log_error_errno(r, "Failed to arm the RLIMIT_RTPRIO restore timer: %m");
}

static int on_fired(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Canary *c = userdata;
	eventfd_t v;
	Watch w;

	(void)eventfd_read(c->fired_fd, &v);
	pthread_mutex_lock(&c->lock);
	w = c->firing;
	c->firing = (Watch){};
	c->report_pending = false;
	pthread_mutex_unlock(&c->lock);

	canary_add_restore(c, w.clamped, w.report.n_clamped);
	c->fired(&w.report, c->userdata);
	watch_done(&w);
	return 0;
}

static void canary_set_class(Canary *c, CanaryClass k, int error)
{
	if (k == c->klass)
		return;
	c->klass = k;
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

	result[0] = canary_become_watchdog(&result[1]);
	return NULL;
}

int canary_new(sd_event *e, const char *proc, canary_fired_t fired, void *userdata, Canary **ret)
{
	int result[2] = { CANARY_CLASS_OTHER, EPERM };
	pthread_mutexattr_t attr;
	pthread_t t;
	Canary *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->quit_fd = c->fired_fd = c->started_fd = c->kick_fd = c->canary_timer = -EBADF;
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
	if (c->fired_fd < 0)
		r = -errno;
	else if (!c->proc)
		r = -ENOMEM;
	else
		r = sd_event_add_io(e, &c->fired_source, c->fired_fd, EPOLLIN, on_fired, c);
	if (r < 0) {
		canary_free(c);
		return r;
	}
	/* which class a watchdog gets here, from a short-lived thread */
	if (pthread_create(&t, NULL, class_probe_main, result) != 0)
		result[1] = EAGAIN;
	else
		pthread_join(t, NULL);
	canary_set_class(c, result[0], result[1]);
	*ret = c;
	return 0;
}

static void canary_close_fds(Canary *c)
{
	c->quit_fd = safe_close(c->quit_fd);
	c->started_fd = safe_close(c->started_fd);
	c->canary_timer = safe_close(c->canary_timer);
	c->kick_fd = safe_close(c->kick_fd);
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
	c->probe_nsec = c->slot_usec * NSEC_PER_USEC / PROBE_SHARE;
	c->cheeps = c->probe_gen = c->probe_done = 0;
	c->quit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->started_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->canary_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	c->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->quit_fd < 0 || c->started_fd < 0 || c->canary_timer < 0 || c->kick_fd < 0) {
		r = -errno;
		goto fail;
	}
	r = canary_timer_start(c);
	if (r < 0)
		goto fail;

	r = -pthread_create(&c->watchdog_thread, NULL, canary_watchdog_main, c);
	if (r < 0)
		goto fail;
	pfd = (struct pollfd){ .fd = c->started_fd, .events = POLLIN };
	if (poll(&pfd, 1, STARTUP_TIMEOUT_MS) != 1 || eventfd_read(c->started_fd, &v) < 0) {
		r = -ETIMEDOUT;
		goto fail_watchdog;
	}
	canary_set_class(c, __atomic_load_n(&c->started_class, __ATOMIC_ACQUIRE),
			 __atomic_load_n(&c->started_error, __ATOMIC_ACQUIRE));
	r = -pthread_create(&c->canary_thread, NULL, canary_thread_main, c);
	if (r < 0)
		goto fail_watchdog;
	/* named here so that they carry their names from the start */
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
	Watch w = {}, old;
	int r;

	if (n > 0 && s->watchdog_usec > 0) {
		r = watch_alloc(&w, targets, n);
		if (r < 0)
			return r;
	}
	if (c->running && c->watchdog_usec != s->watchdog_usec)
		canary_stop(c);
	c->refuse_usec = s->refuse_usec;

	/* an uncollected report is kept apart (c->firing): nothing grows */
	pthread_mutex_lock(&c->lock);
	old = c->watch;
	c->watch = w;
	c->demote_unknown = s->demote_unknown;
	pthread_mutex_unlock(&c->lock);
	watch_done(&old);

	if (w.n_targets == 0) {
		canary_stop(c);
		return 0;
	}
	if (c->running)
		return 0;
	c->watchdog_usec = s->watchdog_usec;
	return canary_start(c);
}

CanaryClass canary_class(const Canary *c)
{
	return c->klass;
}

int canary_max_grant_priority(const Canary *c)
{
	if (c->klass == CANARY_CLASS_DEADLINE)
		return 99;
	return c->klass == CANARY_CLASS_FIFO ? WATCHDOG_FIFO_PRIORITY - 1 : 0;
}

Canary *canary_free(Canary *c)
{
	if (!c)
		return NULL;
	canary_stop(c);
	/* the limits were taken for CanaryRefuseSec, not beyond realtimed's life */
	canary_restore_limits(c);
	sd_event_source_disable_unref(c->fired_source);
	safe_close(c->fired_fd);
	pthread_mutex_destroy(&c->lock);
	watch_done(&c->watch);
	watch_done(&c->firing);
	free(c->proc);
	sd_event_unref(c->event);
	free(c);
	return NULL;
}
