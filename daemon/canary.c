// SPDX-License-Identifier: GPL-2.0-or-later
/* The canary watchdog threads; see canary.h. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "canary.h"
#include "log.h"
#include "macro.h"
#include "proc.h"
#include "sched-util.h"

#define WATCHDOG_PRIORITY 99
#define SUSPEND_SLACK_USEC 100000ULL

struct Canary {
	sd_event *event;
	sd_event_source *fired_source;
	char *proc;
	canary_fired_t fired;
	void *userdata;

	pthread_mutex_t lock; /* priority inheritance: the watchdog may wait on it */
	CanaryTarget *targets;
	size_t n_targets;
	CanaryTarget *demoted;
	size_t n_demoted;
	size_t demoted_max;

	bool running;
	uint64_t watchdog_usec;
	int cheep_fd; /* canary -> watchdog */
	int quit_fd;  /* main -> both */
	int fired_fd; /* watchdog -> main */
	pthread_t canary_thread, watchdog_thread;
};

static uint64_t clock_usec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

static void block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

static void *canary_main(void *data)
{
	Canary *c = data;
	struct pollfd pfd = { .fd = c->quit_fd, .events = POLLIN };
	/* Twice per period: half a period of slack for the canary to be scheduled. */
	int timeout_ms = (int)(c->watchdog_usec / 2000ULL);

	block_signals();
	(void)sched_reset(0);
	if (timeout_ms < 1)
		timeout_ms = 1;
	for (;;) {
		int r = poll(&pfd, 1, timeout_ms);

		if (r < 0 && errno != EINTR)
			break;
		if (r > 0)
			break; /* quit */
		if (eventfd_write(c->cheep_fd, 1) < 0 && errno != EAGAIN)
			break;
	}
	return NULL;
}

/* Runs in the watchdog thread at SCHED_FIFO 99. */
static void demote_all(Canary *c)
{
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->n_targets; i++) {
		CanaryTarget *t = &c->targets[i];
		uint64_t st;

		if (proc_get_start_time(c->proc, t->pid, t->tid, &st) < 0 || st != t->start_time)
			continue;
		(void)sched_reset(t->tid);
		if (c->n_demoted < c->demoted_max)
			c->demoted[c->n_demoted++] = *t;
	}
	pthread_mutex_unlock(&c->lock);
	(void)eventfd_write(c->fired_fd, 1);
}

static void *watchdog_main(void *data)
{
	Canary *c = data;
	struct pollfd pfd[2] = {
		{ .fd = c->cheep_fd, .events = POLLIN },
		{ .fd = c->quit_fd, .events = POLLIN },
	};
	uint64_t w = c->watchdog_usec;
	uint64_t last = clock_usec(CLOCK_MONOTONIC);
	uint64_t offset = clock_usec(CLOCK_BOOTTIME) - last;

	block_signals();
	if (sched_apply(0, GRANT_FIFO, WATCHDOG_PRIORITY) < 0)
		log_warning_errno(
			errno,
			"Failed to make the canary watchdog SCHED_FIFO: %m; "
			"it cannot preempt a runaway thread (does realtimed have CAP_SYS_NICE?)");
	for (;;) {
		uint64_t before = clock_usec(CLOCK_MONOTONIC), now, boot_offset;
		uint64_t deadline = last + w;
		int timeout_ms = deadline > before ? (int)((deadline - before + 999) / 1000) : 0;
		int r = poll(pfd, 2, timeout_ms);

		now = clock_usec(CLOCK_MONOTONIC);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0 && (pfd[1].revents & POLLIN))
			break;
		if (r > 0 && (pfd[0].revents & POLLIN)) {
			eventfd_t v;

			(void)eventfd_read(c->cheep_fd, &v);
			last = now;
			continue;
		}
		/* Woke far later than asked: the whole daemon was stopped, not starved. */
		if (now > before + (uint64_t)timeout_ms * 1000ULL + w / 2) {
			last = now;
			continue;
		}
		boot_offset = clock_usec(CLOCK_BOOTTIME) - now;
		if (boot_offset > offset + SUSPEND_SLACK_USEC) {
			offset = boot_offset; /* resumed from suspend: give the canary time to thaw
					       */
			last = now;
			continue;
		}
		if (now - last >= w) {
			demote_all(c);
			last = now;
		}
	}
	return NULL;
}

static int on_fired(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Canary *c = userdata;
	CanaryTarget *copy = NULL;
	size_t n;
	eventfd_t v;

	(void)eventfd_read(c->fired_fd, &v);
	pthread_mutex_lock(&c->lock);
	n = c->n_demoted;
	if (n > 0) {
		copy = malloc(n * sizeof(*copy));
		if (copy)
			memcpy(copy, c->demoted, n * sizeof(*copy));
	}
	c->n_demoted = 0;
	pthread_mutex_unlock(&c->lock);
	c->fired(copy, copy ? n : 0, c->userdata);
	free(copy);
	return 0;
}

int canary_new(sd_event *e, const char *proc, canary_fired_t fired, void *userdata, Canary **ret)
{
	pthread_mutexattr_t attr;
	Canary *c;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->cheep_fd = c->quit_fd = c->fired_fd = -EBADF;
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
	*ret = c;
	return 0;
}

static void canary_stop(Canary *c)
{
	if (!c->running)
		return;
	(void)eventfd_write(c->quit_fd, 1);
	pthread_join(c->canary_thread, NULL);
	pthread_join(c->watchdog_thread, NULL);
	c->cheep_fd = safe_close(c->cheep_fd);
	c->quit_fd = safe_close(c->quit_fd);
	c->running = false;
	log_debug("Canary watchdog stopped");
}

static int canary_start(Canary *c)
{
	int r;

	c->cheep_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c->quit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->cheep_fd < 0 || c->quit_fd < 0) {
		r = -errno;
		goto fail;
	}
	r = -pthread_create(&c->canary_thread, NULL, canary_main, c);
	if (r < 0)
		goto fail;
	r = -pthread_create(&c->watchdog_thread, NULL, watchdog_main, c);
	if (r < 0) {
		(void)eventfd_write(c->quit_fd, 1);
		pthread_join(c->canary_thread, NULL);
		goto fail;
	}
	/* Named here, not in the threads, so they carry their names from the start. */
	(void)pthread_setname_np(c->canary_thread, "rtd-canary");
	(void)pthread_setname_np(c->watchdog_thread, "rtd-watchdog");
	c->running = true;
	log_debug("Canary watchdog started (%llu ms)",
		  (unsigned long long)(c->watchdog_usec / 1000));
	return 0;
fail:
	c->cheep_fd = safe_close(c->cheep_fd);
	c->quit_fd = safe_close(c->quit_fd);
	return log_error_errno(r, "Failed to start the canary watchdog: %m");
}

int canary_update(Canary *c, const CanaryTarget *targets, size_t n, uint64_t watchdog_usec)
{
	CanaryTarget *copy = NULL, *demoted = NULL;
	size_t keep;

	/* Demotions the main thread has not collected yet survive the update:
	 * room for them, not for the old capacity, or every update would add
	 * n slots to the list. Allocated without the lock, so the watchdog
	 * may have demoted more meanwhile: then again. */
	for (;;) {
		pthread_mutex_lock(&c->lock);
		keep = c->n_demoted;
		pthread_mutex_unlock(&c->lock);

		if (n > 0 && watchdog_usec > 0) {
			copy = malloc(n * sizeof(*copy));
			demoted = malloc((n + keep) * sizeof(*demoted));
			if (!copy || !demoted) {
				free(copy);
				free(demoted);
				return -ENOMEM;
			}
			memcpy(copy, targets, n * sizeof(*copy));
		}
		if (c->running && c->watchdog_usec != watchdog_usec)
			canary_stop(c);

		pthread_mutex_lock(&c->lock);
		if (c->n_demoted <= keep)
			break; /* with the lock held */
		pthread_mutex_unlock(&c->lock);
		free(copy);
		free(demoted);
		copy = demoted = NULL;
	}
	if (demoted && c->n_demoted > 0)
		memcpy(demoted, c->demoted, c->n_demoted * sizeof(*demoted));
	free(c->targets);
	free(c->demoted);
	c->targets = copy;
	c->demoted = demoted;
	c->n_targets = copy ? n : 0;
	c->n_demoted = demoted ? c->n_demoted : 0;
	c->demoted_max = copy ? n + c->n_demoted : 0;
	pthread_mutex_unlock(&c->lock);

	if (c->n_targets == 0) {
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

Canary *canary_free(Canary *c)
{
	if (!c)
		return NULL;
	canary_stop(c);
	sd_event_source_disable_unref(c->fired_source);
	safe_close(c->fired_fd);
	pthread_mutex_destroy(&c->lock);
	free(c->targets);
	free(c->demoted);
	free(c->proc);
	sd_event_unref(c->event);
	free(c);
	return NULL;
}
