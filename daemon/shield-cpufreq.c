// SPDX-License-Identifier: GPL-2.0-or-later
/* ShieldGovernor=; see shield-cpufreq.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "shield-cpufreq.h"
#include "shield-file.h"

#define CPUFREQ "devices/system/cpu/cpu%u/cpufreq/"

/* Is name one of the blank-separated words of the file root/rel? */
static bool listed(const char *sys, const char *rel, const char *name)
{
	char buf[1024];

	if (shield_file_read(sys, rel, buf, sizeof(buf)) < 0)
		return false;
	for (const char *p = buf; *p;) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (n == strlen(name) && strncmp(p, name, n) == 0)
			return true;
		p += n;
	}
	return false;
}

void shield_cpufreq_path(const ShieldEntry *e, char *buf, size_t size)
{
	snprintf(buf, size, CPUFREQ "%s", e->id,
		 e->kind == SHIELD_KIND_EPP ? "energy_performance_preference" : "scaling_governor");
}

int shield_cpufreq_plan(const char *sys, const CpuSet *shield, const char *name,
			ShieldRecord *record, char *why, size_t size)
{
	int added = 0;

	why[0] = '\0';
	if (isempty(name))
		return 0;
	for (int cpu = cpu_set_next(shield, -1); cpu >= 0; cpu = cpu_set_next(shield, cpu)) {
		ShieldEntry e = { .id = (unsigned)cpu };
		char rel[128], before[64];
		int r;

		if (shield_record_find(record, SHIELD_KIND_GOVERNOR, e.id) ||
		    shield_record_find(record, SHIELD_KIND_EPP, e.id))
			continue;
		snprintf(rel, sizeof(rel), CPUFREQ "scaling_available_governors", e.id);
		if (listed(sys, rel, name))
			e.kind = SHIELD_KIND_GOVERNOR;
		else {
			snprintf(rel, sizeof(rel),
				 CPUFREQ "energy_performance_available_preferences", e.id);
			if (!listed(sys, rel, name)) {
				if (!why[0])
					snprintf(why, size,
						 "CPU %d has no cpufreq governor or "
						 "energy-performance preference named %s "
						 "(ShieldGovernor=)",
						 cpu, name);
				continue;
			}
			e.kind = SHIELD_KIND_EPP;
		}
		shield_cpufreq_path(&e, rel, sizeof(rel));
		r = shield_file_read(sys, rel, before, sizeof(before));
		if (r < 0) {
			if (!why[0])
				snprintf(why, size, "cannot read %s/%s: %s", sys, rel,
					 strerror(-r));
			continue;
		}
		if (streq(before, name))
			continue;
		r = shield_record_add(record, e.kind, e.id, "", before, name, false);
		if (r < 0)
			return r;
		added++;
	}
	return added;
}
