/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dropping capabilities. Started by systemd, the unit's
 * CapabilityBoundingSet= already did this; started as root by hand (or by
 * D-Bus activation without systemd), realtimed keeps only what it needs:
 *   CAP_SYS_NICE         set other users' threads' scheduling (the job)
 *   CAP_SYS_RESOURCE     prlimit() other users' processes (GrantLimits, RTTime)
 *   CAP_DAC_READ_SEARCH  read /proc/PID/... of every user, the policy files
 *   CAP_SYS_PTRACE       read /proc/PID/limits and stat of processes with
 *                        hidepid= or a dumpable=0 flag (PipeWire sets it),
 *                        and other users' /proc/PID/ns/pid (request-pidns.h)
 * and the bounding set is reduced to the same.
 */
#pragma once

/* Returns 0 when done or nothing to do (not root), -errno on failure. */
int caps_drop_to_needed(void);
