/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl latency's figures as text for people (per CPU figures, where
 * each CPU's worst came from, a histogram, the verdict table and its rule)
 * and as one JSON object for scripts, with the keys realtimectl(1) lists.
 */
#include <sched.h>
#include <stdio.h>

#include "latency.h"
#include "output.h"

static const char *policy_name(int policy)
{
	return policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" : "other";
}

void lat_policy_string(const LatRun *run, char *buf, size_t size)
{
	const LatCpu *c = run->n_cpus > 0 ? &run->cpus[0] : NULL;

	if (!c || c->policy == SCHED_OTHER)
		snprintf(buf, size, "SCHED_OTHER");
	else
		snprintf(buf, size, "SCHED_%s %d", c->policy == SCHED_FIFO ? "FIFO" : "RR",
			 c->priority);
}

/* 1800 as "1,800": counts people read at a glance. */
static void thousands(uint64_t v, char *buf, size_t size)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	size_t l = 0;

	for (int i = 0; i < n && l + 2 < size; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[l++] = ',';
		buf[l++] = digits[i];
	}
	buf[l] = '\0';
}

/* The histogram's rows for people: ranges of lateness in µs. */
static const unsigned ranges[] = { 0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000 };

static uint64_t range_count(const LatHist *h, size_t i)
{
	unsigned to = i + 1 < ELEMENTSOF(ranges) ? ranges[i + 1] : LAT_HIST_BUCKETS;
	uint64_t n = 0;

	for (unsigned us = ranges[i]; us < to; us++)
		n += h->count[us];
	return n;
}

static void print_histogram(const LatRun *run, FILE *f)
{
	size_t last = 0;

	for (size_t i = 0; i < ELEMENTSOF(ranges); i++)
		for (size_t k = 0; k < run->n_cpus; k++)
			if (range_count(run->cpus[k].hist, i) > 0)
				last = i;
	fprintf(f, "\nWakeups by lateness:\n  %-12s", "US");
	for (size_t k = 0; k < run->n_cpus; k++) {
		char head[16];

		snprintf(head, sizeof(head), "CPU%d", run->cpus[k].cpu);
		fprintf(f, " %12s", head);
	}
	fputc('\n', f);
	for (size_t i = 0; i <= last; i++) {
		char range[24];

		if (i + 1 < ELEMENTSOF(ranges))
			snprintf(range, sizeof(range), "%u-%u", ranges[i], ranges[i + 1]);
		else
			snprintf(range, sizeof(range), "%u+", ranges[i]);
		fprintf(f, "  %-12s", range);
		for (size_t k = 0; k < run->n_cpus; k++)
			fprintf(f, " %12llu",
				(unsigned long long)range_count(run->cpus[k].hist, i));
		fputc('\n', f);
	}
}

static void print_verdicts(const LatRun *run, FILE *f)
{
	const LatCpu *w = lat_run_worst(run);
	uint64_t worst = w ? w->hist->max_ns : 0;

	if (w)
		fprintf(f, "\nVerdict, from the worst wakeup: %.1f us late, on CPU %d\n",
			(double)worst / 1000, w->cpu);
	fprintf(f, "  %-7s", "FRAMES");
	for (size_t j = 0; j < ELEMENTSOF(lat_rates); j++)
		fprintf(f, j + 1 < ELEMENTSOF(lat_rates) ? "  %-20s" : "  %s",
			j == 0	 ? "44.1 kHz"
			: j == 1 ? "48 kHz"
				 : "96 kHz");
	fputc('\n', f);
	for (size_t i = 0; i < ELEMENTSOF(lat_frames); i++) {
		fprintf(f, "  %-7u", lat_frames[i]);
		for (size_t j = 0; j < ELEMENTSOF(lat_rates); j++) {
			char cell[32];

			snprintf(cell, sizeof(cell), "%7.0f us %s",
				 (double)lat_period_ns(lat_frames[i], lat_rates[j]) / 1000,
				 lat_verdict_to_string(
					 lat_verdict(worst, lat_frames[i], lat_rates[j])));
			fprintf(f, j + 1 < ELEMENTSOF(lat_rates) ? "  %-20s" : "  %s", cell);
		}
		fputc('\n', f);
	}
	fprintf(f,
		"Rule: ok when the worst wakeup takes at most 1/%d of the period, leaving the "
		"rest\n"
		"for the audio work; tight up to 1/%d (light processing only); glitch beyond.\n",
		LAT_VERDICT_OK_SHARE, LAT_VERDICT_TIGHT_SHARE);
}

int lat_print_text(const LatRun *run, FILE *f)
{
	char policy[32];

	lat_policy_string(run, policy, sizeof(policy));
	fprintf(f, "Measured %.1f s at %s, a wakeup every %llu us per CPU%s.\n",
		(double)run->elapsed_ns / 1e9, policy,
		(unsigned long long)(run->interval_ns / 1000),
		run->realtimed && !run->note[0] ? ", granted by realtimed" : "");
	if (run->note[0])
		fprintf(f, "Note: %s.\n", run->note);
	fprintf(f, "\n  %-4s %-6s %4s %10s %8s %8s %7s %7s %8s  (us)\n", "CPU", "POLICY", "PRIO",
		"SAMPLES", "MIN", "AVG", "P99", "P99.9", "MAX");
	for (size_t k = 0; k < run->n_cpus; k++) {
		const LatCpu *c = &run->cpus[k];
		const LatHist *h = c->hist;

		fprintf(f, "  %-4d %-6s %4d %10llu %8.1f %8.1f %7llu %7llu %8.1f\n", c->cpu,
			policy_name(c->policy), c->priority, (unsigned long long)h->samples,
			h->samples ? (double)h->min_ns / 1000 : 0.0, lat_hist_avg_us(h),
			(unsigned long long)lat_hist_percentile_us(h, 0.99),
			(unsigned long long)lat_hist_percentile_us(h, 0.999),
			(double)h->max_ns / 1000);
	}
	fprintf(f, "\nWhere each CPU's worst wakeup came from (interrupt counts around it):\n");
	for (size_t k = 0; k < run->n_cpus; k++) {
		const LatCpu *c = &run->cpus[k];
		char count[32], usual[32];

		if (!c->have_culprit) {
			fprintf(f,
				"  CPU %d's %.0f us: no interrupt or softirq fired above its usual "
				"rate\n",
				c->cpu, (double)c->hist->max_ns / 1000);
			continue;
		}
		thousands(c->culprit_count, count, sizeof(count));
		thousands(c->culprit_usual, usual, sizeof(usual));
		fprintf(f,
			"  CPU %d's %.0f us came while %s fired %s times in %.0f ms (usually %s)\n",
			c->cpu, (double)c->hist->max_ns / 1000, c->culprit.name, count,
			(double)c->window_ns / 1e6, usual);
	}
	print_histogram(run, f);
	print_verdicts(run, f);
	return ferror(f) ? -EIO : 0;
}

static void json_cpu(const LatCpu *c, FILE *f)
{
	const LatHist *h = c->hist;
	bool first = true;

	fprintf(f,
		"{\"cpu\":%d,\"policy\":\"%s\",\"priority\":%d,\"samples\":%llu,"
		"\"min_us\":%.1f,\"avg_us\":%.1f,\"p99_us\":%llu,\"p999_us\":%llu,"
		"\"max_us\":%.1f,\"histogram\":[",
		c->cpu, policy_name(c->policy), c->priority, (unsigned long long)h->samples,
		h->samples ? (double)h->min_ns / 1000 : 0.0, lat_hist_avg_us(h),
		(unsigned long long)lat_hist_percentile_us(h, 0.99),
		(unsigned long long)lat_hist_percentile_us(h, 0.999), (double)h->max_ns / 1000);
	for (unsigned us = 0; us < LAT_HIST_BUCKETS; us++)
		if (h->count[us]) {
			fprintf(f, "%s[%u,%llu]", first ? "" : ",", us,
				(unsigned long long)h->count[us]);
			first = false;
		}
	fputs("],\"culprit\":", f);
	if (c->have_culprit) {
		fputs("{\"name\":", f);
		json_print_string(f, c->culprit.name);
		fprintf(f, ",\"count\":%llu,\"usual\":%llu,\"window_ms\":%.0f}",
			(unsigned long long)c->culprit_count, (unsigned long long)c->culprit_usual,
			(double)c->window_ns / 1e6);
	} else
		fputs("null", f);
	fputc('}', f);
}

int lat_print_json(const LatRun *run, FILE *f)
{
	const LatCpu *w = lat_run_worst(run);
	uint64_t worst = w ? w->hist->max_ns : 0;
	bool first = true;

	fprintf(f, "{\"duration_s\":%.1f,\"interval_us\":%llu,\"realtimed\":%s,\"note\":",
		(double)run->elapsed_ns / 1e9, (unsigned long long)(run->interval_ns / 1000),
		run->realtimed ? "true" : "false");
	json_print_string(f, run->note[0] ? run->note : NULL);
	fputs(",\"cpus\":[", f);
	for (size_t k = 0; k < run->n_cpus; k++) {
		if (k)
			fputc(',', f);
		json_cpu(&run->cpus[k], f);
	}
	fputs("],\"verdicts\":[", f);
	for (size_t i = 0; i < ELEMENTSOF(lat_frames); i++)
		for (size_t j = 0; j < ELEMENTSOF(lat_rates); j++) {
			fprintf(f,
				"%s{\"frames\":%u,\"rate\":%u,\"period_us\":%.1f,\"verdict\":\"%"
				"s\"}",
				first ? "" : ",", lat_frames[i], lat_rates[j],
				(double)lat_period_ns(lat_frames[i], lat_rates[j]) / 1000,
				lat_verdict_to_string(
					lat_verdict(worst, lat_frames[i], lat_rates[j])));
			first = false;
		}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}
