// SPDX-License-Identifier: GPL-2.0-or-later
/* Demotion of threads and of the grants a filter takes. */
#include <stdlib.h>
#include <string.h>

#include "demote.h"
#include "log.h"
#include "proc.h"
#include "sched-util.h"
#include "string-table.h"

static const char *const reason_names[_DEMOTE_REASON_MAX] = {
	[DEMOTE_RESET] = "reset",
	[DEMOTE_POLICY] = "policy",
	[DEMOTE_CANARY] = "canary",
};

const char *demote_reason_to_string(DemoteReason r)
{
	return string_table_lookup(reason_names, ELEMENTSOF(reason_names), r);
}

size_t demote_threads(GrantTable *t, DemoteThread *threads, size_t n, DemoteReason reason)
{
	size_t demoted = 0;

	for (size_t i = 0; i < n; i++) {
		DemoteThread th = threads[i];
		Grant *g = grant_table_find(t, th.pid, th.tid);
		uint64_t st;
		bool same;
		int k = 0;

		if (g && g->start_time != th.start_time)
			g = NULL; /* another thread's grant, on a reused tid */
		if (g) {
			memcpy(th.owner, g->owner, sizeof(th.owner));
			k = grant_table_check(t, g);
			/* not told apart now: its grant stays, and with it the
			 * supervision that tries again */
			if (k < 0 && k != -ESRCH)
				continue;
		}
		same = g ? k >= 0
			 : procfs_start_time(t->proc, th.pid, th.tid, &st) >= 0 &&
				       st == th.start_time;
		if (g && !same) {
			/* a thread that called execve() lives on as the main one */
			Grant *f = grant_table_follow_exec(t, g);

			if (f) {
				g = f;
				th.tid = f->tid;
				th.start_time = f->start_time;
				same = true;
			}
		}
		if (same) {
			/* again after the watchdog: a grant under way when it
			 * fired may have turned realtime since */
			if (reason == DEMOTE_CANARY || !g)
				(void)sched_reset(th.tid);
			else
				(void)sched_restore(th.tid, g->kind, &g->before);
		}
		/* the watchdog checked its threads: each is named, even if
		 * gone since (a runaway may stop at once) */
		if (same || reason == DEMOTE_CANARY)
			threads[demoted++] = th;
		if (g)
			grant_table_remove(t, g);
	}
	return demoted;
}

void demote_list_init(DemoteList *l, size_t n, DemoteReason reason)
{
	l->threads = l->stack;
	l->size = DEMOTE_BATCH;
	if (n <= DEMOTE_BATCH)
		return;
	l->threads = calloc(n, sizeof(DemoteThread));
	if (l->threads) {
		l->size = n;
		return;
	}
	l->threads = l->stack;
	log_error("Out of memory listing %zu threads to demote (%s): demoting them %d at a time", n,
		  demote_reason_to_string(reason), DEMOTE_BATCH);
}

void demote_list_done(DemoteList *l)
{
	if (l->threads != l->stack)
		free(l->threads);
	l->threads = NULL;
}

size_t demote_tell(Daemon *d, DemoteThread *threads, size_t n, DemoteReason reason)
{
	size_t demoted = demote_threads(d->grants, threads, n, reason);

	if (demoted > 0 && d->hooks && d->hooks->demoted)
		d->hooks->demoted(d, threads, demoted, demote_reason_to_string(reason));
	return demoted;
}

/* In turns when the list does not fit: what a turn demotes leaves the table. */
size_t demote_grants(Daemon *d, grant_filter_t filter, void *userdata, DemoteReason reason)
{
	DemoteList l;
	size_t n, demoted = 0;

	demote_list_init(&l, d->grants->n_grants, reason);
	do {
		n = 0;
		GRANT_TABLE_FOREACH(p, g, d->grants) {
			if (n == l.size)
				break;
			if (filter(d, p, g, userdata))
				l.threads[n++] = (DemoteThread){ .pid = p->pid,
								 .tid = g->tid,
								 .start_time = g->start_time };
		}
		demoted += demote_tell(d, l.threads, n, reason);
	} while (n == l.size);
	demote_list_done(&l);
	return demoted;
}

typedef struct ResetFilter {
	pid_t pid, tid; /* 0: any */
} ResetFilter;

static bool grant_of(Daemon *d, const GrantProcess *p, const Grant *g, void *userdata)
{
	const ResetFilter *f = userdata;

	return (!f->pid || p->pid == f->pid) && (!f->tid || g->tid == f->tid);
}

unsigned demote_reset(Daemon *d, pid_t pid, pid_t tid)
{
	ResetFilter f = { .pid = pid, .tid = tid };

	return (unsigned)demote_grants(d, grant_of, &f, DEMOTE_RESET);
}
