/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ShieldGovernor=: the shielded CPUs' cpufreq governor while the shield
 * holds, each CPU's own value given back after, as GameMode sets the
 * governor for games. Where the driver has no governor of that name
 * (intel_pstate and amd-pstate in active mode have only performance and
 * powersave), its energy-performance preference of that name, if it has
 * one (SYS/devices/system/cpu/cpuN/cpufreq/).
 */
#pragma once

#include <stddef.h>

#include "cpu-set.h"
#include "shield-record.h"

/* Adds to record, for each CPU of shield that the record does not hold
 * yet, its governor or preference where it is not name already. Returns
 * how many were added; when a CPU has neither, why says so (the first
 * such CPU) and the others are planned still. */
int shield_cpufreq_plan(const char *sys, const CpuSet *shield, const char *name,
			ShieldRecord *record, char *why, size_t size);
/* The file of a governor or preference entry, under SYS. */
void shield_cpufreq_path(const ShieldEntry *e, char *buf, size_t size);
