/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl check --latency[=TIME]: one more line after the table, from
 * a measurement (latency.h) rather than from reading the configuration:
 * the verdict at 64 and 256 frames at 48 kHz and the worst CPU. When it
 * fails, the hint is taken from what the other checks found (threadirqs,
 * the CPU governor) and from the worst wakeup's culprit IRQ when no [IRQ]
 * rule covers it.
 */
#include <stdio.h>
#include <string.h>

#include "ctl-check.h"
#include "latency.h"

#define CHECK_LATENCY_DEFAULT_USEC (5 * 1000 * 1000ull)

/* The hint of check id's result, when it warned or failed. */
static const char *hint_of(const CheckResult *res, const char *id)
{
	const Check *ch = check_find(id);
	const CheckResult *r = ch ? &res[ch - check_table] : NULL;

	return r && (r->status == CHECK_WARN || r->status == CHECK_FAIL) && r->hint[0] ? r->hint
										       : NULL;
}

static void hints(const CheckContext *c, const CheckResult *res, const LatCpu *w, CheckResult *r)
{
	const char *h;

	if ((h = hint_of(res, "threadirqs")))
		strbuf_append(r->hint, sizeof(r->hint), "%sthreadirqs: %s", r->hint[0] ? "; " : "",
			      h);
	if ((h = hint_of(res, "cpu-governor")))
		strbuf_append(r->hint, sizeof(r->hint), "%scpu-governor: %s",
			      r->hint[0] ? "; " : "", h);
	if (w->have_culprit && w->culprit.action[0] &&
	    (!c->policy || !policy_irq_match(c->policy, w->culprit.action)))
		strbuf_append(r->hint, sizeof(r->hint),
			      "%s%s fired most around the worst wakeup and no [IRQ] rule covers "
			      "%s: give it a priority below your audio threads in [IRQ] "
			      "(realtime.conf(5))",
			      r->hint[0] ? "; " : "", w->culprit.name, w->culprit.action);
	if (!r->hint[0])
		check_hint(r, "run realtimectl latency --svg FILE for the whole picture");
}

int check_latency(const Ctl *ctl, const CheckContext *c, const CheckResult *res, CheckResult *r)
{
	LatRun run;
	const LatCpu *w;
	LatVerdict v64, v256;
	char policy[32], value[CHECK_VALUE_MAX];
	int k;

	k = lat_run_init(&run, ctl, CHECK_LATENCY_DEFAULT_USEC);
	if (k < 0)
		k = lat_run_measure(&run);
	if (k >= 0) {
		lat_run_done(&run);
		return k;
	}
	w = lat_run_worst(&run);
	if (!w) {
		check_set(r, CHECK_SKIP, "no samples", "latency: nothing was measured");
		lat_run_done(&run);
		return -1;
	}
	v64 = lat_verdict(w->hist->max_ns, 64, 48000);
	v256 = lat_verdict(w->hist->max_ns, 256, 48000);
	lat_policy_string(&run, policy, sizeof(policy));
	snprintf(value, sizeof(value), "64:%s 256:%s max_us:%.1f cpu:%d",
		 lat_verdict_to_string(v64), lat_verdict_to_string(v256),
		 (double)w->hist->max_ns / 1000, w->cpu);
	check_set(
		r,
		v64 == LAT_VERDICT_OK	     ? CHECK_OK
		: v256 == LAT_VERDICT_GLITCH ? CHECK_FAIL
					     : CHECK_WARN,
		value,
		"64 frames at 48 kHz: %s, 256: %s; worst wakeup %.0f us on CPU %d (%s, %.0f s)%s%s",
		lat_verdict_to_string(v64), lat_verdict_to_string(v256),
		(double)w->hist->max_ns / 1000, w->cpu, policy, (double)run.elapsed_ns / 1e9,
		run.note[0] ? "; " : "", run.note);
	if (r->status != CHECK_OK)
		hints(c, res, w, r);
	lat_run_done(&run);
	return -1;
}
