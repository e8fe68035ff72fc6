/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ShieldPin=: the granted realtime threads pinned to the shield (their
 * CPU affinity) while it holds, each given its own affinity back when its
 * grant ends or the shield does. A thread is told by its tid and start
 * time (the record's name "PID-START"), never by its tid alone.
 */
#pragma once

#include <stdbool.h>

#include "cpu-set.h"
#include "grants.h"
#include "shield-record.h"

/* The most threads pinned at a time; the others run where they ran. */
#define SHIELD_PINS_MAX 1024

/* Adds to record each realtime grant of t that it does not hold yet, with
 * the thread's affinity now. Returns how many were added. */
int shield_pin_plan(const char *proc, GrantTable *t, const CpuSet *shield, ShieldRecord *record);
/* Is e (a thread entry) still a realtime grant of t? */
bool shield_pin_granted(GrantTable *t, const ShieldEntry *e);
/* Sets the affinity of e's thread to e->want, when it is still the
 * thread of e, and makes e->want what the kernel reports then (the CPUs
 * of want that are online). -ESRCH when it is gone or another one. */
int shield_pin_apply(const char *proc, ShieldEntry *e);
/* Gives e's thread e->before back when it is still the thread and runs
 * where the shield pinned it: 1 given back, 0 left (*ret_gone: no such
 * thread any more), -errno. */
int shield_pin_restore(const char *proc, const ShieldEntry *e, bool *ret_gone);
