/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding IRQ threads, for realtimed (its [IRQ] rules and ListIrqThreads)
 * and realtimectl irq: realtime.ko's listing (/proc/realtime/irq_threads,
 * lines "IRQ PID POLICY PRIORITY NAME" with the full action name), or the
 * kernel threads named irq/N-NAME (irq/N-s-NAME for a secondary handler),
 * read from PROC/PID/stat (procfs-stat.h), with the full action name from
 * the PROC/irq/N/ directory entries (a thread's name is cut to 15
 * characters). proc_root is "/proc" except in tests. Unit-tested in
 * test-procfs-irq.c over a fake tree.
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
	int nice;     /* from /proc; 0 in realtime.ko's listing */
} IrqThread;

/* Every IRQ kernel thread, sorted by irq then pid. A thread that exits
 * while being read is left out. -errno if proc_root cannot be read. */
int procfs_irq_threads(const char *proc_root, IrqThread **ret, size_t *ret_n);

void procfs_irq_threads_free(IrqThread *t, size_t n);

/* The action names of IRQ irq: the directories of PROC/irq/IRQ/, one per
 * handler ("snd_hda_intel:card0", "ehci_hcd:usb1" on a shared line),
 * sorted, as a NULL-terminated array of *ret_n names. They are the
 * kernel's bytes: escape them before they go anywhere (utf8.h). -errno
 * when the directory cannot be read (-ENOENT: no such IRQ). */
int procfs_irq_actions(const char *proc_root, unsigned irq, char ***ret, size_t *ret_n);
void procfs_irq_actions_free(char **names);

/* realtime.ko's listing of IRQ threads. */
#define KMOD_IRQ_THREADS_PATH "/proc/realtime/irq_threads"

/* Reads realtime.ko's listing at path, sorted by irq then pid. -ENOENT when
 * the module is not loaded, -EBADMSG for a line that is not
 * "IRQ PID POLICY PRIORITY NAME". */
int procfs_irq_threads_kmod(const char *path, IrqThread **ret, size_t *ret_n);

/* Parses a thread name "irq/N-NAME" or "irq/N-s-NAME": the irq number and
 * where NAME starts. -EINVAL when comm is not an IRQ thread's name. */
int procfs_irq_thread_name_parse(const char *comm, unsigned *ret_irq, const char **ret_name);
