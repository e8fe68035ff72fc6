// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Demotions that touch several parts at once: a client's reset, a reload
 * whose policy no longer allows a grant, the canary firing. Each removes
 * the grants, resets the threads that are still the same threads, and emits
 * Demoted(threads, reason). Also keeps the canary's list of watched threads
 * and the state file in step with the grant table.
 */
#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "bus-object.h"
#include "canary.h"
#include "irq.h"
#include "log.h"
#include "polkit.h"
#include "proc.h"

void daemon_canary_sync(Daemon *d, const CanaryTarget *pending)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);
	CanaryTarget *targets = NULL;
	size_t n = 0;

	if (!d->canary)
		return;
	if (pd->canary && (d->grants->n_grants > 0 || pending)) {
		targets = calloc(d->grants->n_grants + 1, sizeof(*targets));
		if (!targets) {
			log_error("Out of memory updating the canary watchdog");
			return;
		}
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
	(void)canary_update(d->canary, targets, n, pd->canary ? pd->canary_watchdog_usec : 0);
	free(targets);
}

void daemon_grants_changed(GrantTable *t, void *userdata)
{
	Daemon *d = userdata;

	daemon_state_schedule_save(d);
	daemon_canary_sync(d, NULL);
	sd_notifyf(false, "STATUS=Supervising %u threads of %u processes", t->n_grants,
		   t->n_processes);
}

/* Removes the grants listed in (pid, tid) pairs, emits Demoted(reason). */
static void demote_list(Daemon *d, pid_t (*list)[2], size_t n, const char *reason)
{
	for (size_t i = 0; i < n; i++) {
		Grant *g = grant_table_find(d->grants, list[i][0], list[i][1]);

		if (g)
			grant_table_remove(d->grants, g);
	}
	if (n > 0)
		bus_native_emit_demoted(d, (const pid_t(*)[2])list, n, reason);
}

unsigned daemon_reset_grants(Daemon *d, pid_t pid, pid_t tid)
{
	pid_t(*list)[2] = NULL;
	size_t n = 0;

	if (d->grants->n_grants == 0)
		return 0;
	list = calloc(d->grants->n_grants, sizeof(*list));
	if (!list)
		return 0;
	GRANT_TABLE_FOREACH(p, g, d->grants)
	{
		uint64_t st;

		if ((pid && p->pid != pid) || (tid && g->tid != tid))
			continue;
		if (proc_get_start_time(d->grants->proc, p->pid, g->tid, &st) >= 0 &&
		    st == g->start_time)
			(void)sched_restore(g->tid, g->kind, &g->before);
		list[n][0] = p->pid;
		list[n][1] = g->tid;
		n++;
	}
	demote_list(d, list, n, "reset");
	free(list);
	return (unsigned)n;
}

void daemon_canary_fired(const CanaryTarget *demoted, size_t n, void *userdata)
{
	Daemon *d = userdata;
	const PolicyDaemon *pd = policy_daemon(d->policy);
	pid_t(*list)[2] = n ? calloc(n, sizeof(*list)) : NULL;

	d->refuse_until_usec = now_usec(CLOCK_MONOTONIC) + pd->canary_refuse_usec;
	log_id(LOG_WARNING, LOG_ID_DEMOTION,
	       "The canary thread starved for %llu ms: demoted %zu realtime threads; refusing new "
	       "grants for %llu s",
	       (unsigned long long)(pd->canary_watchdog_usec / 1000), n,
	       (unsigned long long)(pd->canary_refuse_usec / 1000000));
	for (size_t i = 0; list && i < n; i++) {
		list[i][0] = demoted[i].pid;
		list[i][1] = demoted[i].tid;
	}
	if (list)
		demote_list(d, list, n, "canary");
	free(list);
}

/* After a reload: grants the new policy no longer allows are demoted. */
static void demote_disallowed(Daemon *d)
{
	pid_t(*list)[2] = NULL;
	size_t n = 0;

	if (d->grants->n_grants == 0)
		return;
	list = calloc(d->grants->n_grants, sizeof(*list));
	if (!list)
		return;
	GRANT_TABLE_FOREACH(p, g, d->grants)
	{
		const PolicyGrant *pg;
		const char *user;

		if (daemon_policy_eval(d, p->uid, &pg, &user) >= 0 &&
		    policy_grant_allows(pg, (PolicyGrantKind)g->kind, g->value, NULL) >= 0)
			continue;
		(void)sched_restore(g->tid, g->kind, &g->before);
		log_id(LOG_NOTICE, LOG_ID_DEMOTION,
		       "Demoted thread %d of process %d (%s %d): the reloaded policy no longer "
		       "allows it",
		       (int)g->tid, (int)p->pid, grant_kind_to_string(g->kind), g->value);
		list[n][0] = p->pid;
		list[n][1] = g->tid;
		n++;
	}
	demote_list(d, list, n, "policy");
	free(list);
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
		demote_disallowed(d);
		daemon_apply_settings(d);
		log_id(LOG_INFO, LOG_ID_RELOAD, "Policy reloaded from %zu files",
		       policy_n_files(d->policy));
	}
	sd_notify(false, "READY=1");
	return r;
}
