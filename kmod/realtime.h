/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * realtime.ko: the 2004 realtime LSM's semantics on a modern kernel.
 * Declarations shared by the module's parts: the settings (module
 * parameters and sysctls, main.c and sysctl.c), the exec-time capability
 * grant (exec.c) and the IRQ-thread rules (irq.c and its parts).
 */
#ifndef REALTIME_H
#define REALTIME_H

#include <linux/atomic.h>
#include <linux/types.h>

/* Settings, read locklessly (READ_ONCE) by the exec probe. */
extern int rt_any;		/* 1: every exec gets the capabilities */
extern int rt_gid;		/* group whose members get them; -1: none */
extern int rt_mlock;		/* RT_MLOCK_*: what goes with CAP_SYS_NICE */

#define RT_GID_NONE	(-1)

/*
 * Values of mlock. 1 is the 2004 module's meaning and the default;
 * CAP_SYS_RESOURCE lets the group prlimit() every process on the machine,
 * so 2 gives what locking memory needs and nothing more.
 */
#define RT_MLOCK_NONE		0	/* CAP_SYS_NICE alone */
#define RT_MLOCK_RESOURCE	1	/* + CAP_IPC_LOCK and CAP_SYS_RESOURCE */
#define RT_MLOCK_IPC_ONLY	2	/* + CAP_IPC_LOCK alone */

/* Range checks shared by the module parameters and the sysctls. */
extern int rt_bool_min, rt_bool_max, rt_gid_min, rt_gid_max;
extern int rt_mlock_min, rt_mlock_max;

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
/* irq-probe.c: new IRQ threads the probe missed */
unsigned long rt_irq_missed(void);

#endif
