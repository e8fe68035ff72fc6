// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>

#include "cpu-dma.h"
#include "daemon-policy.h"
#include "irq.h"
#include "log.h"
#include "manager.h"
#include "polkit.h"
#include "request-sched.h"
#include "shield.h"
#include "state.h"
#include "user-wait.h"
#include "users.h"

/* Which grants a reload or an adoption judges, and how. */
typedef struct Judge {
	const char *which; /* "the reloaded policy": a static string */
	uid_t uid;	   /* whose grants; (uid_t)-1: all */
	int error;	   /* the failed lookup of uid's user, or 0 */
} Judge;

/* Takes the grants the policy does not allow; logs those whose thread is still
 * the one granted. A user NSS could not resolve is judged without name and
 * groups, so nothing stays above what policy allows. userdata: a Judge. */
static bool grant_disallowed(Daemon *d, const GrantProcess *p, const Grant *g, void *userdata)
{
	const Judge *j = userdata;
	PolicyEval e;
	PolicyRefusal why;
	char text[512], failed[256] = "";
	int r;

	if (j->uid != (uid_t)-1 && p->uid != j->uid)
		return false;
	r = j->error ? j->error : daemon_policy_eval(d, p->uid, &e);
	if (r < 0 && r != -ESRCH) {
		(void)daemon_resolve_error(p->uid, r, failed, sizeof(failed));
		r = daemon_policy_eval_user(d, &(PolicyUser){ .uid = p->uid }, &e);
	}
	if (r >= 0) {
		if (policy_grant_allows(&e.grant, g->kind, g->value, &why) >= 0)
			return false;
		(void)policy_refusal_format(&why, e.user, text, sizeof(text));
	} else
		snprintf(text, sizeof(text), "uid %u is not a known user", (unsigned)p->uid);
	if (grant_table_check(d->grants, g) >= 0)
		log_id(LOG_NOTICE, LOG_ID_DEMOTION,
		       "Demoted thread %d of process %d (%s %d): %s no longer allows it: %s%s%s",
		       (int)g->tid, (int)p->pid, policy_grant_kind_to_string(g->kind), g->value,
		       j->which, failed[0] ? failed : "", failed[0] ? "; without its groups: " : "",
		       text);
	return true;
}

/* A reload's judging of every user that holds grants. At most JUDGE_INFLIGHT
 * wait for the resolver at a time, so its cache and waits never run out
 * whatever UsersMax allows. A user is judged without groups only when its
 * lookup failed, or the resolver takes no wait and none of the run's is
 * pending (nothing would wake the run). Freed when its last wait ends. */
#define JUDGE_INFLIGHT 32

typedef struct JudgeRun {
	Daemon *d;
	const char *which;
	uid_t *uids;
	size_t n, next;
	UserWait *wait;
} JudgeRun;

static void judge_run_free(void *userdata)
{
	JudgeRun *run = userdata;

	free(run->uids);
	free(run);
}

static void judge_pump(JudgeRun *run);

static void on_judge_resolved(uid_t uid, int error, void *userdata)
{
	JudgeRun *run = userdata;
	Judge j = { .which = run->which, .uid = uid, .error = error == -ESRCH ? 0 : error };

	(void)demote_grants(run->d, grant_disallowed, &j, DEMOTE_POLICY);
	judge_pump(run);
}

static void on_judge_done(int error, uid_t error_uid, void *userdata)
{
	judge_run_free(userdata);
}

static const UserWaitOps judge_wait = { .each = on_judge_resolved,
					.done = on_judge_done,
					.free_userdata = judge_run_free };

/* Judges the users the resolver knows now, the others when their lookup ends. */
static void judge_pump(JudgeRun *run)
{
	Daemon *d = run->d;

	while (run->next < run->n && user_wait_pending(run->wait) < JUDGE_INFLIGHT) {
		uid_t uid = run->uids[run->next];
		Judge j = { .which = run->which, .uid = uid };
		PolicyEval e;
		int r;

		r = daemon_policy_eval(d, uid, &e);
		if (r == -EINPROGRESS) {
			r = user_wait_add(run->wait, uid);
			if (r >= 0) {
				run->next++;
				continue;
			}
			/* full of others' waits: again as one of ours ends */
			if (r == -EBUSY && user_wait_pending(run->wait) > 0)
				break;
			j.error = r; /* judged without groups, now */
		}
		run->next++;
		(void)demote_grants(d, grant_disallowed, &j, DEMOTE_POLICY);
	}
}

/* Demotes the grants the policy no longer allows (Demoted "policy"); which
 * names the policy in the journal line. */
static void manager_demote_disallowed(Daemon *d, const char *which)
{
	Judge all = { .which = which, .uid = (uid_t)-1 };
	JudgeRun *run;

	/* Without a resolver (unit tests) or memory, every grant is judged now.
	 * Else each user once, listed first: judging may demote. */
	run = d->resolver ? calloc(1, sizeof(*run)) : NULL;
	if (run)
		*run = (JudgeRun){ .d = d, .which = which };
	if (!run || grant_table_users(d->grants, &run->uids, &run->n) < 0 ||
	    !(run->wait = user_wait_new(d, &judge_wait, run))) {
		if (run)
			judge_run_free(run);
		(void)demote_grants(d, grant_disallowed, &all, DEMOTE_POLICY);
		return;
	}
	judge_pump(run);
	if (!user_wait_release(run->wait))
		judge_run_free(run);
}

void manager_grants_changed(GrantTable *t, void *userdata)
{
	Daemon *d = userdata;

	daemon_state_schedule_save(d);
	supervise_canary_sync(d, NULL);
	cpu_dma_sync(d);
	shield_sync(d);
	sd_notifyf(false, "STATUS=Supervising %u threads of %u processes", t->n_grants,
		   t->n_processes);
}

/* "uid 1000 (1930 ms of realtime), uid 1001 (...)", the first few. */
static void format_blamed(const CanaryReport *report, char *buf, size_t size)
{
	size_t n = 0, shown = report->n_blamed < 8 ? report->n_blamed : 8;

	buf[0] = 0;
	for (size_t i = 0; i < shown && n < size; i++)
		n += (size_t)snprintf(
			buf + n, size - n, "%suid %u (%llu ms of realtime)", i ? ", " : "",
			(unsigned)report->blamed[i].uid,
			(unsigned long long)(report->blamed[i].realtime_usec / USEC_PER_MSEC));
	if (report->n_blamed > shown && n < size)
		snprintf(buf + n, size - n, " and %zu more", report->n_blamed - shown);
}

void manager_canary_fired(const CanaryReport *report, void *userdata)
{
	Daemon *d = userdata;
	const PolicyDaemon *pd = policy_daemon(d->policy);
	uint64_t until = now_usec(CLOCK_MONOTONIC) + pd->canary_refuse_usec;
	size_t n = report->n_demoted, all = n + report->n_unknown_listed;
	char why[256], whom[512];
	DemoteList l;

	for (size_t i = 0; i < report->n_blamed; i++)
		if (!users_cool_down(d->users, report->blamed[i].uid, until,
				     now_usec(CLOCK_MONOTONIC)))
			log_warning(
				"The users' table is full of users with something in flight: uid "
				"%u is refused in the overflow entry, with every user who shares "
				"it",
				(unsigned)report->blamed[i].uid);
	format_blamed(report, whom, sizeof(whom));
	snprintf(why, sizeof(why),
		 "The canary thread got %u%% of its wakeups (and %u%% of the CPU time a probe "
		 "asked), granted threads held every CPU for %llu ms, in %llu ms",
		 report->cheeps_percent, report->probe_percent,
		 (unsigned long long)(report->held_usec / USEC_PER_MSEC),
		 (unsigned long long)(report->window_usec / USEC_PER_MSEC));
	if (report->escalated)
		log_id(LOG_WARNING, LOG_ID_DEMOTION,
		       "%s; the starvation persisted after the last firing: demoted every user's "
		       "%zu granted and %zu other realtime threads, RLIMIT_RTPRIO 0 for %zu "
		       "processes; blamed %s; refusing their requests for %llu s",
		       why, n, report->n_unknown, report->n_clamped,
		       report->n_blamed ? whom : "nobody",
		       (unsigned long long)(pd->canary_refuse_usec / USEC_PER_SEC));
	else if (report->n_blamed > 0)
		log_id(LOG_WARNING, LOG_ID_DEMOTION,
		       "%s: blamed %s, whose realtime threads held the CPUs; demoted %zu granted "
		       "and "
		       "%zu other realtime threads of theirs, RLIMIT_RTPRIO 0 for %zu processes; "
		       "refusing their requests for %llu s; other users' threads are demoted if "
		       "the starvation persists while realtime threads keep half of the CPUs busy",
		       why, whom, n, report->n_unknown, report->n_clamped,
		       (unsigned long long)(pd->canary_refuse_usec / USEC_PER_SEC));
	else
		log_id(LOG_WARNING, LOG_ID_DEMOTION,
		       "%s, but no user's realtime threads held the CPUs: nothing demoted; "
		       "if the starvation persists, the users whose realtime threads, granted "
		       "or not, hold the CPUs meanwhile are demoted at the next firing",
		       why);

	/* granted and other threads, in one signal as far as memory goes */
	demote_list_init(&l, all, DEMOTE_CANARY);
	for (size_t i = 0; i < all;) {
		size_t m = 0;

		for (; i < all && m < l.size; i++) {
			const CanaryTarget *t = &report->demoted[i];

			l.threads[m++] = (DemoteThread){ .pid = t->pid,
							 .tid = t->tid,
							 .start_time = t->start_time };
		}
		(void)demote_tell(d, l.threads, m, DEMOTE_CANARY);
	}
	demote_list_done(&l);
	/* the watchdog handed its list over with the report: watch what is left */
	(void)supervise_canary_sync(d, NULL);
}

void manager_apply_settings(Daemon *d)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);

	if (d->hooks && d->hooks->serve_rtkit)
		d->hooks->serve_rtkit(d, pd->rtkit_compat);
	irq_apply(d);
	supervise_canary_sync(d, NULL);
	cpu_dma_sync(d);
	shield_sync(d);
}

int manager_reload(Daemon *d, char **ret_error)
{
	int r;

	sd_notify(false, "RELOADING=1");
	r = daemon_policy_load(d, false, ret_error);
	if (r >= 0) {
		if (d->polkit)
			polkit_flush(d->polkit);
		manager_demote_disallowed(d, "the reloaded policy");
		manager_apply_settings(d);
		log_id(LOG_INFO, LOG_ID_RELOAD, "Policy reloaded from %zu files",
		       policy_n_files(d->policy));
	}
	sd_notify(false, "READY=1");
	return r;
}

int manager_adopt(Daemon *d)
{
	int r;

	r = daemon_state_adopt(d);
	manager_demote_disallowed(d, "the policy loaded at start");
	return r < 0 ? r : (int)d->grants->n_grants;
}
