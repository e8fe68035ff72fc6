// SPDX-License-Identifier: GPL-2.0-or-later
/* Which CPUs the shield takes; see shield-cpus.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "shield-cpus.h"
#include "shield-file.h"

/* auto takes one core in AUTO_SHARE on machines of AUTO_SHARE_FROM cores or more. */
#define AUTO_SHARE 8
#define AUTO_SHARE_FROM 16

void shield_config_from_policy(const PolicyDaemon *pd, ShieldConfig *ret)
{
	ShieldConfig c = { .mode = SHIELD_MODE_NONE, .pin = pd->shield_pin };

	if (streq(pd->shield, "auto"))
		c.mode = SHIELD_MODE_AUTO;
	else if (!streq(pd->shield, "none") && !isempty(pd->shield) &&
		 cpu_set_parse_list(pd->shield, &c.list) >= 0 && !cpu_set_is_empty(&c.list))
		c.mode = SHIELD_MODE_LIST;
	memcpy(c.keep, pd->shield_keep, sizeof(c.keep));
	memcpy(c.governor, pd->shield_governor, sizeof(c.governor));
	*ret = c;
}

bool shield_config_equal(const ShieldConfig *a, const ShieldConfig *b)
{
	return a->mode == b->mode && cpu_set_equal(&a->list, &b->list) && streq(a->keep, b->keep) &&
	       a->pin == b->pin && streq(a->governor, b->governor);
}

/* CPU cpu's core: its SMT siblings that are online (itself alone where the
 * kernel does not say). */
static void core_of(const char *sys, unsigned cpu, const CpuSet *online, CpuSet *ret)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%u/topology/thread_siblings_list", cpu);
	if (shield_file_read_cpus(sys, rel, false, ret) < 0 || !cpu_set_has(ret, cpu))
		cpu_set_clear(ret);
	cpu_set_add(ret, cpu);
	cpu_set_and(ret, ret, online);
}

/* Does rest hold a whole core (every online sibling of one of its CPUs)? */
static bool holds_core(const char *sys, const CpuSet *rest, const CpuSet *online)
{
	for (int cpu = cpu_set_next(rest, -1); cpu >= 0; cpu = cpu_set_next(rest, cpu)) {
		CpuSet core;

		core_of(sys, (unsigned)cpu, online, &core);
		if (cpu_set_is_subset(&core, rest))
			return true;
	}
	return false;
}

/* auto: the highest-numbered cores, one or one in AUTO_SHARE. */
static void choose_auto(const char *sys, const CpuSet *online, CpuSet *ret)
{
	unsigned n_cores = 0, want;
	CpuSet seen;

	cpu_set_clear(&seen);
	for (int cpu = cpu_set_next(online, -1); cpu >= 0; cpu = cpu_set_next(online, cpu)) {
		CpuSet core;

		if (cpu_set_has(&seen, (unsigned)cpu))
			continue;
		core_of(sys, (unsigned)cpu, online, &core);
		cpu_set_or(&seen, &seen, &core);
		n_cores++;
	}
	want = n_cores >= AUTO_SHARE_FROM ? n_cores / AUTO_SHARE : 1;
	cpu_set_clear(ret);
	/* from the highest CPU down, a core at a time */
	for (unsigned taken = 0; taken < want;) {
		CpuSet left, core;
		int top;

		cpu_set_andnot(&left, online, ret);
		top = cpu_set_last(&left);
		if (top < 0)
			break;
		core_of(sys, (unsigned)top, online, &core);
		cpu_set_or(ret, ret, &core);
		taken++;
	}
}

int shield_cpus_choose(const char *sys, const ShieldConfig *c, CpuSet *ret_shield, CpuSet *ret_rest,
		       char *why, size_t size)
{
	char list[256], rest_list[256];
	CpuSet online, shield, rest;
	int r;

	why[0] = '\0';
	r = shield_file_read_cpus(sys, "devices/system/cpu/online", false, &online);
	if (r < 0) {
		snprintf(why, size, "cannot read %s/devices/system/cpu/online: %s", sys,
			 strerror(-r));
		return r;
	}
	switch (c->mode) {
	case SHIELD_MODE_NONE:
		snprintf(why, size, "Shield= is none");
		return -EINVAL;
	case SHIELD_MODE_AUTO:
		choose_auto(sys, &online, &shield);
		break;
	case SHIELD_MODE_LIST:
		cpu_set_and(&shield, &c->list, &online);
		if (cpu_set_is_empty(&shield)) {
			(void)cpu_set_format_list(&c->list, list, sizeof(list));
			snprintf(why, size, "none of the CPUs of Shield=%s is online", list);
			return -EINVAL;
		}
		break;
	}
	cpu_set_andnot(&rest, &online, &shield);
	(void)cpu_set_format_list(&shield, list, sizeof(list));
	(void)cpu_set_format_list(&rest, rest_list, sizeof(rest_list));
	if (!cpu_set_has(&rest, 0) || !holds_core(sys, &rest, &online)) {
		snprintf(why, size,
			 "shielding CPUs %s would leave the rest of the machine (CPUs %s) %s: "
			 "it needs CPU 0 and at least one whole core",
			 list, rest_list[0] ? rest_list : "none",
			 cpu_set_has(&rest, 0) ? "no whole core" : "without CPU 0");
		return -EINVAL;
	}
	*ret_shield = shield;
	*ret_rest = rest;
	return 0;
}
