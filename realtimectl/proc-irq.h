/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding IRQ threads without realtimed or realtime.ko: the kernel threads
 * named irq/N-NAME (irq/N-s-NAME for a secondary handler), read from
 * PROC/PID/stat, with the full action name from the PROC/irq/N/ directory
 * entries (a thread's name is cut to 15 characters). proc_root is "/proc"
 * except in tests. Unit-tested in test-ctl-proc-irq.c over a fake tree.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

typedef struct IrqThread {
	unsigned irq;
	char *action; /* the full action name, or the thread name's part when unknown */
	pid_t pid;
	int policy;   /* SCHED_OTHER, SCHED_FIFO, ... as the kernel reports it */
	int priority; /* rt_priority: 0 for SCHED_OTHER */
} IrqThread;

/* Every IRQ kernel thread, sorted by irq then pid. A thread that exits
 * while being read is left out. -errno if proc_root cannot be read. */
int proc_irq_threads(const char *proc_root, IrqThread **ret, size_t *ret_n);

void irq_threads_free(IrqThread *t, size_t n);

/* "fifo", "rr", "other", "batch", "idle", "deadline"; "unknown" otherwise. */
const char *sched_policy_to_string(int policy);

/* Parses a thread name "irq/N-NAME" or "irq/N-s-NAME": the irq number and
 * where NAME starts. -EINVAL when comm is not an IRQ thread's name. */
int irq_thread_name_parse(const char *comm, unsigned *ret_irq, const char **ret_name);
