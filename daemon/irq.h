/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IRQ threads (kernel threads named irq/N-name, present with threadirqs or
 * PREEMPT_RT): listing them with their full action names, and applying the
 * policy's [IRQ] rules (action name glob -> SCHED_FIFO priority), as rtirq
 * does, at start and on every reload. The kernel truncates a thread's name
 * to 15 characters; the full name comes from the action directories under
 * /proc/irq/N/.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

typedef struct IrqThread {
	unsigned irq;
	char action[128]; /* full action name */
	pid_t pid;
	const char *policy; /* "fifo", "rr", "other" */
	int priority;
} IrqThread;

/* "irq/N-name" or "irq/N-s-name" (a secondary thread) -> N and name. */
int irq_parse_comm(const char *comm, unsigned *ret_irq, const char **ret_name);

/* All IRQ threads under proc ("/proc"), sorted by irq. */
int irq_threads_list(const char *proc, IrqThread **ret, size_t *ret_n);

/* Sets every IRQ thread that a rule matches to SCHED_FIFO at the rule's
 * priority. Returns how many threads were changed. */
int irq_apply_rules(const char *proc, const Policy *p);
