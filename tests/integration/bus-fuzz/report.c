// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What bus-fuzz prints: violations as they are found (the first few of each
 * kind), notes, the last calls sent when realtimed stops answering, and the
 * counters and D-Bus error names at the end, which test-bus-fuzz.sh reads.
 * Every line starts "bus-fuzz[LABEL]:", LABEL telling the users apart.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz.h"

#define VIOLATIONS_SHOWN 5 /* of each kind */

Stats stats;
const char *report_label = "bus-fuzz";

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char name[128];
	unsigned long n;
} errors[128];
static size_t n_errors;
static struct {
	const char *format;
	unsigned long n;
} kinds[64];
static size_t n_kinds;

void count_error(const char *name)
{
	size_t i;

	pthread_mutex_lock(&report_lock);
	for (i = 0; i < n_errors; i++)
		if (streq(errors[i].name, name))
			break;
	if (i == n_errors && n_errors < ELEMENTSOF(errors))
		snprintf(errors[n_errors++].name, sizeof(errors[0].name), "%s", name);
	if (i < n_errors)
		errors[i].n++;
	pthread_mutex_unlock(&report_lock);
}

void violation(const Desc *call, const char *format, ...)
{
	char text[600];
	va_list ap;
	size_t i;

	va_start(ap, format);
	vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	stats.violations++;
	pthread_mutex_lock(&report_lock);
	/* a kind is the format string: the first few of each are shown, so
	 * that one finding repeated at every call does not hide another */
	for (i = 0; i < n_kinds && kinds[i].format != format; i++)
		;
	if (i == n_kinds && n_kinds < ELEMENTSOF(kinds))
		kinds[n_kinds++].format = format;
	if (i < n_kinds && ++kinds[i].n <= VIOLATIONS_SHOWN) {
		printf("bus-fuzz[%s]: VIOLATION: %s\n", report_label, text);
		if (call)
			printf("bus-fuzz[%s]:   after %s\n", report_label, call->text);
		fflush(stdout);
	}
	pthread_mutex_unlock(&report_lock);
}

void note(const char *format, ...)
{
	char text[600];
	va_list ap;

	va_start(ap, format);
	vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	pthread_mutex_lock(&report_lock);
	printf("bus-fuzz[%s]: %s\n", report_label, text);
	fflush(stdout);
	pthread_mutex_unlock(&report_lock);
}

void report_recent(Worker *workers, unsigned n_workers)
{
	uint64_t now = now_usec();
	/* the last calls of all workers, oldest first */
	for (;;) {
		Worker *best = NULL;
		unsigned bi = 0;
		uint64_t bt = UINT64_MAX;

		for (unsigned i = 0; i < n_workers; i++) {
			Worker *w = &workers[i];
			unsigned n = w->n_recent < ELEMENTSOF(w->recent) ? w->n_recent
									 : ELEMENTSOF(w->recent);

			for (unsigned k = 0; k < n; k++)
				if (w->recent_usec[k] && w->recent_usec[k] < bt) {
					bt = w->recent_usec[k];
					best = w;
					bi = k;
				}
		}
		if (!best)
			break;
		printf("bus-fuzz[%s]:   %7.3f s ago, worker %u: %s\n", report_label,
		       (double)(now - bt) / 1e6, best->index, best->recent[bi].text);
		best->recent_usec[bi] = 0;
	}
}

static int cmp_errors(const void *a, const void *b)
{
	const typeof(errors[0]) *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

void report_print(double secs, unsigned long batches)
{
	printf("bus-fuzz[%s]: stat seconds %.1f\n", report_label, secs);
	printf("bus-fuzz[%s]: stat batches %lu\n", report_label, batches);
#define STAT(f) printf("bus-fuzz[%s]: stat " #f " %lu\n", report_label, (unsigned long)stats.f)
	STAT(calls);
	STAT(ok);
	STAT(grants_checked);
	STAT(limits_checked);
	STAT(supervised_checks);
	STAT(violations);
	STAT(crashes);
	STAT(timeouts);
	STAT(disconnects);
	STAT(connections);
	STAT(floods);
	STAT(flood_rate_limited);
	STAT(renames);
	STAT(races);
	STAT(bursts);
	STAT(burst_granted);
	STAT(limit_checks);
	STAT(manage_floods);
	STAT(spins);
	STAT(tid_churns);
	STAT(tid_reuses);
	STAT(probes);
	STAT(probe_refused);
	STAT(supervision_scans);
	STAT(execs);
#undef STAT
	for (size_t i = 0; i < n_kinds; i++)
		printf("bus-fuzz[%s]: violation %lu x \"%.100s\"\n", report_label, kinds[i].n,
		       kinds[i].format);
	qsort(errors, n_errors, sizeof(errors[0]), cmp_errors);
	for (size_t i = 0; i < n_errors; i++)
		printf("bus-fuzz[%s]: error %s %lu\n", report_label, errors[i].name, errors[i].n);
}
