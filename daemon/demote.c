// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Demotions that touch several parts at once: a client's reset, a reload
 * whose policy no longer allows a grant, the canary firing. Each removes
 * the grants, resets the threads that are still the same threads, and emits
 * Demoted(threads, reason). Also keeps the canary's list of watched threads
 * and the state file in step with the grant table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "bus-object.h"
#include "canary.h"
#include "irq.h"
#include "log.h"
#include "polkit.h"
#include "proc.h"

int daemon_canary_sync(Daemon *d, const CanaryTarget *pending)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);
	CanarySettings settings = {
		.watchdog_usec = pd->canary ? pd->canary_watchdog_usec : 0,
		.refuse_usec = pd->canary_refuse_usec,
		.demote_unknown = pd->canary_demote_unknown,
	};
	CanaryTarget *targets = NULL;
	size_t n = 0;
	int r;

	if (!d->canary)
		return 0;
	if (pd->canary && (d->grants->n_grants > 0 || pending)) {
		targets = calloc(d->grants->n_grants + 1, sizeof(*targets));
		if (!targets)
			return log_error_errno(-ENOMEM, "Failed to update the canary watchdog: %m");
		GRANT_TABLE_FOREACH(p, g, d->grants)
		{
			/* Nice grants cannot starve anyone; only realtime ones are watched. */
			if (g->kind == GRANT_NICE)
				continue;
			targets[n++] = (CanaryTarget){ .pid = p->pid,
						       .tid = g->tid,
						       .start_time = g->start_time };
		}
		if (pending)
			targets[n++] = *pending;
	}
	r = canary_update(d->canary, targets, n, &settings);
	free(targets);
	if (r < 0)
		return log_error_errno(r, "Failed to update the canary watchdog: %m");
	return 0;
}

int daemon_canary_max_priority(Daemon *d)
{
	if (!d->canary || !policy_daemon(d->policy)->canary)
		return 99;
	return canary_max_grant_priority(d->canary);
}

void daemon_grants_changed(GrantTable *t, void *userdata)
{
	Daemon *d = userdata;

	daemon_state_schedule_save(d);
	daemon_canary_sync(d, NULL);
	sd_notifyf(false, "STATUS=Supervising %u threads of %u processes", t->n_grants,
		   t->n_processes);
}

/* Removes the grants listed in (pid, tid) pairs, emits Demoted(reason)
 * (reason NULL: no signal, for grants whose thread is gone). */
static void demote_list(Daemon *d, pid_t (*list)[2], size_t n, const char *reason)
{
	for (size_t i = 0; i < n; i++) {
		Grant *g = grant_table_find(d->grants, list[i][0], list[i][1]);

		if (g)
			grant_table_remove(d->grants, g);
	}
	if (n > 0 && reason)
		bus_native_emit_demoted(d, (const pid_t(*)[2])list, n, reason);
}

/* The (pid, tid) lists of a demotion pass: the threads it demotes, and the
 * grants it finds stale (the thread gone, or its tid another thread's now),
 * which are dropped without touching anything. */
typedef struct DemotePass {
	pid_t (*demoted)[2], (*stale)[2];
	size_t n_demoted, n_stale;
} DemotePass;

static int demote_pass_begin(Daemon *d, DemotePass *ret)
{
	size_t n = d->grants->n_grants;

	*ret = (DemotePass){};
	if (n == 0)
		return 0;
	ret->demoted = calloc(n, sizeof(*ret->demoted));
	ret->stale = calloc(n, sizeof(*ret->stale));
	if (!ret->demoted || !ret->stale) {
		free(ret->demoted);
		free(ret->stale);
		*ret = (DemotePass){};
		return log_error_errno(ENOMEM, "Out of memory demoting grants");
	}
	return 1;
}

/* Demotes g (back to what it had before the grant) if its tid is still the
 * granted thread, else notes it stale. */
static bool demote_pass_one(Daemon *d, DemotePass *dp, GrantProcess *p, Grant *g)
{
	if (grant_table_check(d->grants, g) < 0) {
		dp->stale[dp->n_stale][0] = p->pid;
		dp->stale[dp->n_stale++][1] = g->tid;
		return false;
	}
	(void)sched_restore(g->tid, g->kind, &g->before);
	dp->demoted[dp->n_demoted][0] = p->pid;
	dp->demoted[dp->n_demoted++][1] = g->tid;
	return true;
}

static size_t demote_pass_end(Daemon *d, DemotePass *dp, const char *reason)
{
	size_t n = dp->n_demoted;

	demote_list(d, dp->stale, dp->n_stale, NULL);
	demote_list(d, dp->demoted, dp->n_demoted, reason);
	free(dp->demoted);
	free(dp->stale);
	*dp = (DemotePass){};
	return n;
}

unsigned daemon_reset_grants(Daemon *d, pid_t pid, pid_t tid)
{
	DemotePass dp;

	if (demote_pass_begin(d, &dp) <= 0)
		return 0;
	GRANT_TABLE_FOREACH(p, g, d->grants)
	{
		if ((pid && p->pid != pid) || (tid && g->tid != tid))
			continue;
		demote_pass_one(d, &dp, p, g);
	}
	return (unsigned)demote_pass_end(d, &dp, "reset");
}

void daemon_canary_fired(const CanaryReport *report, void *userdata)
{
	Daemon *d = userdata;
	const PolicyDaemon *pd = policy_daemon(d->policy);
	size_t n = report->n_demoted;
	pid_t(*list)[2] = n ? calloc(n, sizeof(*list)) : NULL;

	d->refuse_until_usec = now_usec(CLOCK_MONOTONIC) + pd->canary_refuse_usec;
	log_id(LOG_WARNING, LOG_ID_DEMOTION,
	       "The canary thread got %u%% of its wakeups, and granted threads held every CPU "
	       "for %llu ms, in %llu ms: demoted %zu granted and %zu other realtime threads, "
	       "RLIMIT_RTPRIO 0 for %zu processes; refusing new grants for %llu s",
	       report->cheeps_percent, (unsigned long long)(report->held_usec / 1000),
	       (unsigned long long)(report->window_usec / 1000), n, report->n_unknown,
	       report->n_clamped, (unsigned long long)(pd->canary_refuse_usec / 1000000));
	for (size_t i = 0; i < n; i++) {
		const CanaryTarget *t = &report->demoted[i];
		uint64_t st;

		/* Again from here: the thread of a grant under way when the
		 * watchdog fired (daemon_canary_sync()'s pending) may have turned
		 * realtime after the watchdog demoted it. */
		if (proc_get_start_time(d->grants->proc, t->pid, t->tid, &st) >= 0 &&
		    st == t->start_time)
			(void)sched_reset(t->tid);
		if (list) {
			list[i][0] = t->pid;
			list[i][1] = t->tid;
		}
	}
	if (list)
		demote_list(d, list, n, "canary");
	else if (n > 0)
		log_error("Out of memory: %zu demoted threads stay in the grant table", n);
	free(list);
}

void daemon_demote_disallowed(Daemon *d, const char *which)
{
	DemotePass dp;

	if (demote_pass_begin(d, &dp) <= 0)
		return;
	GRANT_TABLE_FOREACH(p, g, d->grants)
	{
		const PolicyGrant *pg;
		const char *user;
		PolicyRefusal why;
		char text[512];
		int k;

		k = daemon_policy_eval(d, p->uid, &pg, &user);
		if (k >= 0) {
			k = policy_grant_allows(pg, (PolicyGrantKind)g->kind, g->value, &why);
			if (k >= 0)
				continue;
			(void)policy_refusal_format(&why, user, text, sizeof(text));
		} else
			snprintf(text, sizeof(text), "uid %u is not a known user",
				 (unsigned)p->uid);
		if (demote_pass_one(d, &dp, p, g))
			log_id(LOG_NOTICE, LOG_ID_DEMOTION,
			       "Demoted thread %d of process %d (%s %d): %s no longer allows it: "
			       "%s",
			       (int)g->tid, (int)p->pid, grant_kind_to_string(g->kind), g->value,
			       which, text);
	}
	demote_pass_end(d, &dp, "policy");
}

void daemon_apply_settings(Daemon *d)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);

	if (pd->rtkit_compat)
		(void)bus_rtkit_register(d);
	else
		bus_rtkit_unregister(d);
	daemon_irq_apply(d);
	daemon_canary_sync(d, NULL);
}

int daemon_reload(Daemon *d, char **ret_error)
{
	int r;

	sd_notify(false, "RELOADING=1");
	r = daemon_policy_load(d, false, ret_error);
	if (r >= 0) {
		polkit_flush(d->polkit);
		daemon_demote_disallowed(d, "the reloaded policy");
		daemon_apply_settings(d);
		log_id(LOG_INFO, LOG_ID_RELOAD, "Policy reloaded from %zu files",
		       policy_n_files(d->policy));
	}
	sd_notify(false, "READY=1");
	return r;
}
