/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which CPUs the shield takes (realtime.conf(5), Shield=): the settings
 * of the policy in force, and the CPUs they name on this machine, read
 * from SYS/devices/system/cpu (online, and each CPU's
 * topology/thread_siblings_list: its core). auto takes the core of the
 * highest-numbered online CPU with its SMT siblings, or on machines of 16
 * cores or more one core in eight, the highest-numbered. The rest of the
 * machine must keep CPU 0 and at least one whole core, else there is no
 * shield, and the reason says so.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cpu-set.h"
#include "policy.h"

typedef enum ShieldMode {
	SHIELD_MODE_NONE,
	SHIELD_MODE_AUTO,
	SHIELD_MODE_LIST,
} ShieldMode;

/* The shield's keys of [Daemon], as the shield uses them. */
typedef struct ShieldConfig {
	ShieldMode mode;
	CpuSet list; /* SHIELD_MODE_LIST */
	char keep[POLICY_TEXT_MAX];
	bool pin;
	char governor[POLICY_TEXT_MAX];
} ShieldConfig;

/* The shield's settings in pd (which the policy library checked). */
void shield_config_from_policy(const PolicyDaemon *pd, ShieldConfig *ret);
bool shield_config_equal(const ShieldConfig *a, const ShieldConfig *b);

/* The CPUs c shields on this machine into *ret_shield, the rest (every
 * other online CPU) into *ret_rest. -EINVAL when c names none that is
 * online or leaves the rest without CPU 0 or a whole core; -errno when
 * SYS cannot be read; why (size bytes) then says which, for the journal
 * and realtimectl status. */
int shield_cpus_choose(const char *sys, const ShieldConfig *c, CpuSet *ret_shield, CpuSet *ret_rest,
		       char *why, size_t size);
