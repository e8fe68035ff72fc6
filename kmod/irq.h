/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the parts of realtime.ko's IRQ-thread rules (irq.c is the
 * overview): the rules table (irq-rules.c), finding IRQ threads and giving
 * them their priority (irq-threads.c) and noticing new ones (irq-probe.c).
 */
#ifndef REALTIME_IRQ_H
#define REALTIME_IRQ_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/types.h>

#define RT_IRQ_KERNEL_PRIO	50	/* what the kernel gives an IRQ thread */

struct rt_irq_rule {
	struct list_head node;
	unsigned int prio;
	char pattern[];
};

/* irq-rules.c: /proc/realtime/irq_rules */
extern struct mutex rt_irq_mutex;
extern unsigned int rt_irq_nrules;
extern const struct proc_ops rt_irq_rules_ops;
/* The first rule whose pattern matches name, or NULL; under rt_irq_mutex. */
const struct rt_irq_rule *rt_irq_rule_match(const char *name);
/* Drops every rule; IRQ threads keep the priority they have. */
void rt_irq_rules_free(void);

/* irq-threads.c: /proc/realtime/irq_threads */
extern const struct proc_ops rt_irq_threads_ops;
/* Give every IRQ thread its rule's priority; under rt_irq_mutex. */
int rt_irq_apply(const char *const *reset, size_t nreset,
		 struct task_struct *const *seen, bool *ret_seen, size_t nseen);

/* irq-probe.c: the rules for IRQ threads started after they were written */
int rt_irq_probe_init(void);
void rt_irq_probe_exit(void);

#endif
