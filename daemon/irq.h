/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's [IRQ] rules (action name glob -> SCHED_FIFO priority),
 * applied by realtimed itself, as rtirq does, when realtime.ko is not there
 * to do it: at start, on every reload, and after kernel uevents. The IRQ
 * threads (kernel threads named irq/N-name, present with threadirqs or
 * PREEMPT_RT) come from procfs/procfs-irq.h, which ListIrqThreads uses too.
 */
#pragma once

#include "policy.h"
#include "procfs-irq.h"

/* Sets every IRQ thread under proc ("/proc") that a rule matches to
 * SCHED_FIFO at the rule's priority. Returns how many threads were changed,
 * or -errno when the threads cannot be listed. */
int irq_apply_rules(const char *proc, const Policy *p);
