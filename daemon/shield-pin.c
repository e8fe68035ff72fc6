// SPDX-License-Identifier: GPL-2.0-or-later
/* ShieldPin=; see shield-pin.h. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "procfs-stat.h"
#include "shield-pin.h"

/* The "PID-START" of a thread's entry. */
static int entry_thread(const ShieldEntry *e, pid_t *ret_pid, uint64_t *ret_start)
{
	int pid;

	if (sscanf(e->name, "%d-%" SCNu64, &pid, ret_start) != 2 || pid <= 0)
		return -EINVAL;
	*ret_pid = pid;
	return 0;
}

/* Is (pid, tid) still the thread that started at start? */
static bool same_thread(const char *proc, pid_t pid, pid_t tid, uint64_t start)
{
	uint64_t now;

	return procfs_start_time(proc, pid, tid == pid ? 0 : tid, &now) >= 0 && now == start;
}

static int get_affinity(pid_t tid, CpuSet *ret)
{
	cpu_set_t *set = CPU_ALLOC(CPU_SET_MAX);
	size_t size = CPU_ALLOC_SIZE(CPU_SET_MAX);
	int r = 0;

	if (!set)
		return -ENOMEM;
	if (sched_getaffinity(tid, size, set) < 0)
		r = -errno;
	else {
		cpu_set_clear(ret);
		for (unsigned c = 0; c < CPU_SET_MAX; c++)
			if (CPU_ISSET_S(c, size, set))
				cpu_set_add(ret, c);
	}
	CPU_FREE(set);
	return r;
}

static int set_affinity(pid_t tid, const char *list)
{
	cpu_set_t *set = CPU_ALLOC(CPU_SET_MAX);
	size_t size = CPU_ALLOC_SIZE(CPU_SET_MAX);
	CpuSet cpus;
	int r = 0;

	if (!set)
		return -ENOMEM;
	if (cpu_set_parse_list(list, &cpus) < 0)
		r = -EBADMSG;
	else {
		CPU_ZERO_S(size, set);
		for (int c = cpu_set_next(&cpus, -1); c >= 0; c = cpu_set_next(&cpus, c))
			CPU_SET_S((unsigned)c, size, set);
		if (sched_setaffinity(tid, size, set) < 0)
			r = -errno;
	}
	CPU_FREE(set);
	return r;
}

bool shield_pin_granted(GrantTable *t, const ShieldEntry *e)
{
	uint64_t start;
	pid_t pid;
	Grant *g;

	if (entry_thread(e, &pid, &start) < 0)
		return false;
	g = grant_table_find(t, pid, (pid_t)e->id);
	return g && g->start_time == start && g->kind != POLICY_GRANT_NICE;
}

int shield_pin_plan(const char *proc, GrantTable *t, const CpuSet *shield, ShieldRecord *record)
{
	char want[4096];
	unsigned pinned = 0;
	int added = 0, r;

	if (cpu_set_format_list(shield, want, sizeof(want)) < 0)
		return -E2BIG;
	for (size_t i = 0; i < record->n; i++)
		pinned += record->entries[i].kind == SHIELD_KIND_THREAD;
	GRANT_TABLE_FOREACH(p, g, t) {
		char name[SHIELD_NAME_MAX], before[4096];
		CpuSet cpus;

		if (g->kind == POLICY_GRANT_NICE || pinned >= SHIELD_PINS_MAX ||
		    shield_record_find(record, SHIELD_KIND_THREAD, (unsigned)g->tid) ||
		    !same_thread(proc, p->pid, g->tid, g->start_time) ||
		    get_affinity(g->tid, &cpus) < 0 ||
		    cpu_set_format_list(&cpus, before, sizeof(before)) < 0)
			continue;
		snprintf(name, sizeof(name), "%d-%" PRIu64, (int)p->pid, g->start_time);
		r = shield_record_add(record, SHIELD_KIND_THREAD, (unsigned)g->tid, name, before,
				      want, false);
		if (r < 0)
			return r;
		pinned++;
		added++;
	}
	return added;
}

int shield_pin_apply(const char *proc, ShieldEntry *e)
{
	char now[4096], *copy;
	uint64_t start;
	CpuSet cpus;
	pid_t pid;
	int r;

	if (entry_thread(e, &pid, &start) < 0 || !same_thread(proc, pid, (pid_t)e->id, start))
		return -ESRCH;
	r = set_affinity((pid_t)e->id, e->want);
	if (r < 0)
		return r;
	/* what the kernel made of it is what a give-back compares with */
	if (get_affinity((pid_t)e->id, &cpus) >= 0 &&
	    cpu_set_format_list(&cpus, now, sizeof(now)) >= 0 && (copy = strdup(now))) {
		free(e->want);
		e->want = copy;
	}
	return 0;
}

int shield_pin_restore(const char *proc, const ShieldEntry *e, bool *ret_gone)
{
	CpuSet now, want;
	uint64_t start;
	pid_t pid;
	int r;

	*ret_gone =
		entry_thread(e, &pid, &start) < 0 || !same_thread(proc, pid, (pid_t)e->id, start);
	if (*ret_gone)
		return 0;
	r = get_affinity((pid_t)e->id, &now);
	if (r < 0)
		return r;
	if (cpu_set_parse_list(e->want, &want) < 0 || !cpu_set_equal(&now, &want))
		return 0;
	r = set_affinity((pid_t)e->id, e->before);
	return r < 0 ? r : 1;
}
