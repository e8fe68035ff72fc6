/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency's measurement: one thread per CPU, pinned, waking at
 * absolute times one interval apart (clock_nanosleep(TIMER_ABSTIME) on
 * CLOCK_MONOTONIC, as an audio thread waits for its period) and recording
 * how late it woke into its own histogram: no allocation, no I/O, no lock
 * in that loop. The main thread stays SCHED_OTHER: it reads the interrupt
 * counts once per window, hands them to latency-culprit.c, and prints the
 * progress line.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "latency.h"

/* Small stacks: a thread needs little, and locked memory is counted
 * against RLIMIT_MEMLOCK. */
#define LAT_STACK_SIZE (64 * 1024)

typedef struct LatShared {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t n_ready;
	bool go;
	uint64_t start_ns;
} LatShared;

typedef struct LatThread {
	LatShared *shared;
	LatCpu *cpu;
	uint64_t interval_ns, end_ns, offset_ns;
} LatThread;

#define SWAP_TWO(a, b)              \
	do {                        \
		typeof(a) _t = (a); \
		(a) = (b);          \
		(b) = _t;           \
	} while (0)

/* Ctrl-C ends the measurement early, with figures. */
static atomic_bool lat_stop;

static void on_sigint(int sig)
{
	atomic_store(&lat_stop, true);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec ts_of(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}

static void *measure_thread(void *arg)
{
	LatThread *t = arg;
	LatShared *s = t->shared;
	LatHist *h = t->cpu->hist;
	LatTally tally;
	struct timespec ts;
	uint64_t next, end, interval = t->interval_ns;
	bool go;

	t->cpu->tid = (pid_t)syscall(SYS_gettid);
	/* the loop's path once, so that the memory lock finds its pages mapped */
	ts = ts_of(0);
	(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	(void)now_ns();
	pthread_mutex_lock(&s->lock);
	s->n_ready++;
	pthread_cond_broadcast(&s->cond);
	while (!s->go)
		pthread_cond_wait(&s->cond, &s->lock);
	go = s->start_ns > 0;
	next = s->start_ns + t->offset_ns;
	pthread_mutex_unlock(&s->lock);
	if (!go)
		return NULL;

	end = next + t->end_ns;
	/* what a wakeup touches: the stack, its bucket, lat_stop */
	tally = lat_tally_start(h);
	for (;;) {
		uint64_t now, late;

		next += interval;
		if (next > end || atomic_load_explicit(&lat_stop, memory_order_relaxed))
			break;
		ts = ts_of(next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = now_ns();
		late = now > next ? now - next : 0;
		if (lat_tally_add(h, &tally, late)) {
			atomic_store_explicit(&t->cpu->worst_ns, late, memory_order_relaxed);
			atomic_store_explicit(&t->cpu->worst_at_ns, now, memory_order_release);
		}
		/* a wakeup later than a whole interval: skip the periods it
		 * missed, as an audio thread does after an xrun, rather than
		 * count each as one more late wakeup */
		while (next + interval <= now)
			next += interval;
	}
	/* read by the main thread once this thread is joined */
	lat_tally_done(h, &tally);
	return NULL;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads both files into ret (an unreadable one is left out). Returns the
 * window that reading so costs allows (see LAT_WINDOW_MIN_NS). */
static uint64_t irq_snapshot(const LatRun *run, const int *cpus, IrqCounts *ret)
{
	uint64_t cost = thread_cpu_ns(), window;

	procfs_irq_counts_done(ret);
	if (procfs_irq_counts_read("/proc/interrupts", false, cpus, run->n_cpus, ret) < 0)
		procfs_irq_counts_done(ret);
	(void)procfs_irq_counts_read("/proc/softirqs", true, cpus, run->n_cpus, ret);
	window = (thread_cpu_ns() - cost) * LAT_WINDOW_COST_FACTOR;
	return window < LAT_WINDOW_MIN_NS   ? LAT_WINDOW_MIN_NS
	       : window > LAT_WINDOW_MAX_NS ? LAT_WINDOW_MAX_NS
					    : window;
}

static void progress(const LatRun *run, uint64_t elapsed_ns, bool last)
{
	/* the line is cleared at the end, so the figures start on a clean one */
	if (last) {
		fputs("\r\033[K", stdout);
		fflush(stdout);
		return;
	}
	printf("\r%.1f of %.1f s; worst so far:", (double)elapsed_ns / 1e9,
	       (double)run->duration_ns / 1e9);
	for (size_t k = 0; k < run->n_cpus && k < 16; k++)
		printf("%s CPU%d %llu us", k ? "," : "", run->cpus[k].cpu,
		       (unsigned long long)(atomic_load(&run->cpus[k].worst_ns) + 999) / 1000);
	if (run->n_cpus > 16)
		fputs(", ...", stdout);
	fputs("\033[K", stdout);
	fflush(stdout);
}

/* The main thread's loop: a window at a time until the threads' end. */
static void watch(LatRun *run, const int *cpus, uint64_t start_ns)
{
	IrqCounts prev = {}, cur = {};
	uint64_t end = start_ns + run->duration_ns, from = now_ns(), next = start_ns;
	uint64_t window, shown = start_ns;

	irq_snapshot(run, cpus, &run->first);
	window = irq_snapshot(run, cpus, &prev);
	for (size_t k = 0; k < run->n_cpus; k++)
		run->cpus[k].window_delta = calloc(run->first.n_sources ?: 1, sizeof(uint64_t));
	while (!atomic_load(&lat_stop)) {
		struct timespec ts;
		uint64_t to;

		next += window;
		if (next > end)
			next = end;
		ts = ts_of(next);
		/* Ctrl-C: the loop's condition ends it */
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;
		to = now_ns();
		window = irq_snapshot(run, cpus, &cur);
		lat_window_take(run, &prev, &cur, from, to);
		SWAP_TWO(prev, cur);
		from = to;
		if (run->progress && to - shown >= 1000000000u) {
			progress(run, to - start_ns, false);
			shown = to;
		}
		if (next >= end)
			break;
	}
	run->elapsed_ns = now_ns() - start_ns;
	/* a last window for a worst wakeup after the last snapshot */
	irq_snapshot(run, cpus, &cur);
	lat_window_take(run, &prev, &cur, from, UINT64_MAX);
	lat_culprits_find(run, &cur, run->elapsed_ns);
	if (run->progress)
		progress(run, run->elapsed_ns, true);
	procfs_irq_counts_done(&prev);
	procfs_irq_counts_done(&cur);
}

int lat_measure(LatRun *run, int (*start)(LatRun *run))
{
	LatShared shared = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
	_cleanup_free_ pthread_t *threads = calloc(run->n_cpus, sizeof(pthread_t));
	_cleanup_free_ LatThread *args = calloc(run->n_cpus, sizeof(LatThread));
	_cleanup_free_ int *cpus = calloc(run->n_cpus, sizeof(int));
	struct sigaction sa = { .sa_handler = on_sigint }, old_sa;
	pthread_attr_t attr;
	size_t n = 0;
	int r = -1;

	if (!threads || !args || !cpus)
		return ctl_oom();
	pthread_attr_init(&attr);
	for (; n < run->n_cpus; n++) {
		LatCpu *c = &run->cpus[n];
		cpu_set_t set;
		int k;

		cpus[n] = c->cpu;
		/* stack and histogram in one mapping, to lock alone if need be */
		c->mem_size = LAT_STACK_SIZE + sizeof(LatHist);
		c->mem = mmap(NULL, c->mem_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (c->mem == MAP_FAILED) {
			c->mem = NULL;
			r = ctl_oom();
			break;
		}
		c->hist = (LatHist *)((char *)c->mem + LAT_STACK_SIZE);
		lat_hist_init(c->hist);
		pthread_attr_setstack(&attr, c->mem, LAT_STACK_SIZE);
		CPU_ZERO(&set);
		CPU_SET(c->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		args[n] = (LatThread){ .shared = &shared,
				       .cpu = c,
				       .interval_ns = run->interval_ns,
				       .end_ns = run->duration_ns,
				       .offset_ns = lat_thread_offset_ns(run->interval_ns, n,
									 run->n_cpus) };
		k = pthread_create(&threads[n], &attr, measure_thread, &args[n]);
		if (k != 0) {
			fprintf(stderr, "Failed to start a measuring thread on CPU %d: %s\n",
				c->cpu, strerror(k));
			r = CTL_EXIT_FAILED;
			break;
		}
	}
	pthread_attr_destroy(&attr);

	pthread_mutex_lock(&shared.lock);
	while (shared.n_ready < n)
		pthread_cond_wait(&shared.cond, &shared.lock);
	pthread_mutex_unlock(&shared.lock);

	if (r < 0)
		r = start(run);
	atomic_store(&lat_stop, false);
	sigaction(SIGINT, &sa, &old_sa);
	pthread_mutex_lock(&shared.lock);
	/* the first wakeups from one interval from now, spread over it */
	shared.start_ns = r < 0 ? now_ns() + run->interval_ns : 0;
	shared.go = true;
	pthread_cond_broadcast(&shared.cond);
	pthread_mutex_unlock(&shared.lock);

	if (r < 0)
		watch(run, cpus, shared.start_ns);
	for (size_t i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	sigaction(SIGINT, &old_sa, NULL);
	return r;
}
