// SPDX-License-Identifier: GPL-2.0-or-later
/* Demotion of a list of threads; see demote.h. */
#include <string.h>

#include "demote.h"
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

/* Is th still the thread that was granted? g: its grant, if in the table. */
static bool demote_same_thread(GrantTable *t, const Grant *g, const DemoteThread *th)
{
	uint64_t st;

	if (g)
		return grant_table_check(t, g) >= 0;
	return procfs_start_time(t->proc, th->pid, th->tid, &st) >= 0 && st == th->start_time;
}

size_t demote_threads(GrantTable *t, DemoteThread *threads, size_t n, DemoteReason reason)
{
	size_t demoted = 0;

	for (size_t i = 0; i < n; i++) {
		DemoteThread th = threads[i];
		Grant *g = grant_table_find(t, th.pid, th.tid);
		bool same;

		if (g && g->start_time != th.start_time)
			g = NULL; /* another thread's grant, on a reused tid */
		if (g)
			memcpy(th.owner, g->owner, sizeof(th.owner));
		same = demote_same_thread(t, g, &th);
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
			/* The canary's watchdog demoted the thread already; again
			 * from here, as the thread of a grant under way when it
			 * fired may have turned realtime since. */
			if (reason == DEMOTE_CANARY || !g)
				(void)sched_reset(th.tid);
			else
				(void)sched_restore(th.tid, g->kind, &g->before);
		}
		/* The watchdog checked its threads when it demoted them: each is
		 * named, even one that exited since (a runaway may stop at once). */
		if (same || reason == DEMOTE_CANARY)
			threads[demoted++] = th;
		if (g)
			grant_table_remove(t, g);
	}
	return demoted;
}
