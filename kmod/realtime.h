/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * realtime.ko: the 2004 realtime LSM's semantics on a modern kernel.
 * Declarations shared by the module's parts: the settings (module
 * parameters and sysctls, main.c and sysctl.c), the exec-time capability
 * grant (exec.c) and the IRQ-thread rules (irq.c).
 */
#ifndef REALTIME_H
#define REALTIME_H

#include <linux/atomic.h>
#include <linux/types.h>

/* Settings, read locklessly (READ_ONCE) by the exec probe. */
extern int rt_any;		/* 1: every exec gets the capabilities */
extern int rt_gid;		/* group whose members get them; -1: none */
extern int rt_mlock;		/* 1: also CAP_IPC_LOCK and CAP_SYS_RESOURCE */

#define RT_GID_NONE	(-1)

/* Range checks shared by the module parameters and the sysctls. */
extern int rt_bool_min, rt_bool_max, rt_gid_min, rt_gid_max;

/* exec.c */
int rt_exec_init(void);
void rt_exec_exit(void);
unsigned long rt_exec_grants(void);
unsigned long rt_exec_missed(void);

/* sysctl.c: /proc/sys/security/realtime/ */
int rt_sysctl_init(void);
void rt_sysctl_exit(void);

/* irq.c: /proc/realtime/irq_rules and /proc/realtime/irq_threads */
int rt_irq_init(void);
void rt_irq_exit(void);
unsigned long rt_irq_missed(void);

#endif
