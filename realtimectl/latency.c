/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency [--duration TIME] [--interval TIME] [--cpu LIST]
 * [--priority N] [--json] [--svg FILE]: measures how late a realtime
 * thread of this user wakes on each CPU, and says at which audio buffer
 * sizes that is safe. The verb, the CPU list, and what the process does
 * itself where realtimed cannot help (lat_grant_self()); see latency.h for
 * the other parts.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "latency.h"
#include "parse.h"

#define LAT_DEFAULT_DURATION_USEC (10 * 1000 * 1000ull)
#define LAT_DEFAULT_INTERVAL_USEC 1000ull
#define LAT_MIN_INTERVAL_USEC 100ull
#define LAT_MAX_INTERVAL_USEC (1000 * 1000ull)
#define LAT_MAX_DURATION_USEC (24 * 3600 * 1000 * 1000ull)
/* Root without realtimed and without --priority: high, but under the
 * kernel's own threads at 99 (watchdog, migration on older kernels). */
#define LAT_ROOT_PRIORITY 95

static int add_cpu(LatRun *run, const cpu_set_t *allowed, uint64_t cpu)
{
	LatCpu *a;

	if (cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, allowed)) {
		fprintf(stderr, "CPU %llu is not one this process may run on.\n",
			(unsigned long long)cpu);
		return CTL_EXIT_USAGE;
	}
	for (size_t k = 0; k < run->n_cpus; k++)
		if ((uint64_t)run->cpus[k].cpu == cpu)
			return -1;
	a = reallocarray(run->cpus, run->n_cpus + 1, sizeof(*a));
	if (!a)
		return ctl_oom();
	run->cpus = a;
	memset(&a[run->n_cpus], 0, sizeof(*a));
	a[run->n_cpus++].cpu = (int)cpu;
	return -1;
}

int lat_run_set_cpus(LatRun *run, const char *list)
{
	cpu_set_t allowed;
	const char *p = list;
	int r;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		fprintf(stderr, "Failed to read which CPUs this process may use: %m\n");
		return CTL_EXIT_FAILED;
	}
	if (!list) {
		for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &allowed) && (r = add_cpu(run, &allowed, cpu)) >= 0)
				return r;
		return -1;
	}
	/* "0-3,6" */
	for (;;) {
		uint64_t a, b;

		if (parse_decimal_prefix(p, CPU_SETSIZE, &a, &p) < 0)
			goto invalid;
		b = a;
		if (*p == '-' && parse_decimal_prefix(p + 1, CPU_SETSIZE, &b, &p) < 0)
			goto invalid;
		if (b < a)
			goto invalid;
		for (uint64_t cpu = a; cpu <= b; cpu++)
			if ((r = add_cpu(run, &allowed, cpu)) >= 0)
				return r;
		if (*p == '\0')
			return -1;
		if (*p++ != ',')
			goto invalid;
	}
invalid:
	return ctl_usage_error("invalid CPU list '%s': give e.g. 0-3,6.", list);
}

void lat_lock_memory(const LatRun *run)
{
	struct rlimit rl;
	char limit[32] = "unlimited";
	size_t k = 0;
	int e;

	/* The measuring threads' stacks and histograms, populated now: no
	 * first touch of theirs may fault while measuring. */
	while (k < run->n_cpus && mlock(run->cpus[k].mem, run->cpus[k].mem_size) == 0)
		k++;
	e = k < run->n_cpus ? errno : 0;
	/* Then every page in use, and any page of these mappings faulted in
	 * later (later mappings are the main thread's), without
	 * populating the rest: the libraries' pages that no measuring thread
	 * runs (libdbus pulls in libsystemd, libgcrypt, the compressors) would
	 * cost start-up time and locked memory for nothing. */
	if (mlockall(MCL_CURRENT | MCL_ONFAULT) < 0 && e == 0)
		e = errno;
	if (e == 0)
		return;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(limit, sizeof(limit), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	/* a small RLIMIT_MEMLOCK (8 MiB is common) holds what the threads touch */
	if (k == run->n_cpus)
		fprintf(stderr,
			"Could not lock all memory (%s; RLIMIT_MEMLOCK is %s): locked the "
			"measuring "
			"threads' stacks and histograms only.\n",
			strerror(e), limit);
	else
		fprintf(stderr,
			"Could not lock memory (%s; RLIMIT_MEMLOCK is %s): a page fault may show "
			"as "
			"latency. Measuring anyway.\n",
			strerror(e), limit);
}

int lat_grant_self(LatRun *run, const char *why)
{
	struct rlimit rl = {};
	int priority = run->priority;

	lat_lock_memory(run);
	if (priority <= 0) {
		(void)getrlimit(RLIMIT_RTPRIO, &rl);
		priority = rl.rlim_cur > 99 ? 99 : (int)rl.rlim_cur;
		if (priority == 0 && geteuid() == 0)
			priority = LAT_ROOT_PRIORITY;
	}
	for (size_t k = 0; priority > 0 && k < run->n_cpus; k++) {
		struct sched_param p = { .sched_priority = priority };

		if (sched_setscheduler(run->cpus[k].tid, SCHED_FIFO | SCHED_RESET_ON_FORK, &p) <
		    0) {
			int e = errno;

			for (size_t i = 0; i < k; i++) {
				struct sched_param o = {};

				(void)sched_setscheduler(run->cpus[i].tid, SCHED_OTHER, &o);
			}
			snprintf(run->note, sizeof(run->note),
				 "measured without realtime: %s, and this process may not set "
				 "SCHED_FIFO %d itself (%s)",
				 why, priority, strerror(e));
			return -1;
		}
	}
	if (priority <= 0)
		snprintf(run->note, sizeof(run->note),
			 "measured without realtime: %s, and RLIMIT_RTPRIO is 0", why);
	else
		snprintf(run->note, sizeof(run->note),
			 "%s: SCHED_FIFO %d was set by this process itself", why, priority);
	return -1;
}

/* lat_measure()'s start: realtime, then what each thread really got. */
static int start(LatRun *run)
{
	int r = lat_grant(run);

	for (size_t k = 0; k < run->n_cpus; k++) {
		LatCpu *c = &run->cpus[k];
		struct sched_param p = {};
		int policy = sched_getscheduler(c->tid);

		c->policy = policy < 0 ? SCHED_OTHER : policy & ~SCHED_RESET_ON_FORK;
		c->priority = sched_getparam(c->tid, &p) == 0 ? p.sched_priority : 0;
	}
	if (run->note[0])
		fprintf(stderr, "Note: %s.\n", run->note);
	return r;
}

int lat_run_measure(LatRun *run)
{
	return lat_measure(run, start);
}

void lat_run_done(LatRun *run)
{
	for (size_t k = 0; k < run->n_cpus; k++) {
		if (run->cpus[k].mem)
			munmap(run->cpus[k].mem, run->cpus[k].mem_size);
		free(run->cpus[k].window_delta);
	}
	free(run->cpus);
	procfs_irq_counts_done(&run->first);
	*run = (LatRun){};
}

const LatCpu *lat_run_worst(const LatRun *run)
{
	const LatCpu *worst = NULL;

	for (size_t k = 0; k < run->n_cpus; k++) {
		const LatCpu *c = &run->cpus[k];

		if (c->hist && c->hist->samples > 0 &&
		    (!worst || c->hist->max_ns > worst->hist->max_ns))
			worst = c;
	}
	return worst;
}

/* Fills run from the options; -1 to go on, or an exit status. */
int lat_run_init(LatRun *run, const Ctl *ctl, uint64_t default_duration_usec)
{
	uint64_t duration = ctl->lat_duration_usec ?: default_duration_usec;
	uint64_t interval = ctl->lat_interval_usec ?: LAT_DEFAULT_INTERVAL_USEC;

	*run = (LatRun){ .duration_ns = duration * 1000,
			 .interval_ns = interval * 1000,
			 .priority = ctl->lat_priority };
	if (interval < LAT_MIN_INTERVAL_USEC || interval > LAT_MAX_INTERVAL_USEC)
		return ctl_usage_error("the interval must be from 100us to 1s.");
	if (duration < interval || duration > LAT_MAX_DURATION_USEC)
		return ctl_usage_error("the duration must be from one interval to 24 hours.");
	return lat_run_set_cpus(run, ctl->lat_cpus);
}

int verb_latency(Ctl *ctl, int argc, char **argv)
{
	LatRun run;
	int r;

	if (argc > 0)
		return ctl_usage_error("'latency' takes no arguments.");
	r = lat_run_init(&run, ctl, LAT_DEFAULT_DURATION_USEC);
	if (r >= 0) {
		lat_run_done(&run);
		return r;
	}
	/* people watch a terminal; a pipe or file gets the figures only */
	run.progress = !ctl->json && isatty(STDOUT_FILENO);
	r = lat_run_measure(&run);
	if (r >= 0) {
		lat_run_done(&run);
		return r;
	}
	r = CTL_EXIT_OK;
	if (ctl->lat_svg) {
		int k = lat_write_svg(&run, ctl->lat_svg);

		if (k < 0) {
			fprintf(stderr, "Failed to write %s: %s\n", ctl->lat_svg, strerror(-k));
			r = CTL_EXIT_FAILED;
		}
	}
	if ((ctl->json ? lat_print_json(&run, stdout) : lat_print_text(&run, stdout)) < 0)
		r = CTL_EXIT_FAILED;
	lat_run_done(&run);
	return r;
}
