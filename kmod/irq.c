// SPDX-License-Identifier: GPL-2.0-only
/*
 * IRQ-thread priorities, rtirq's job done in the kernel so that it also
 * holds for IRQ threads created later (a driver reload, a USB audio
 * interface plugged in). This file puts the parts into /proc/realtime and
 * takes them out again:
 *
 * - irq-rules.c: /proc/realtime/irq_rules, lines "PATTERN PRIORITY" (a glob
 *   on the full IRQ action name and a SCHED_FIFO priority), and the rules
 *   table they fill;
 * - irq-threads.c: finding every IRQ thread and giving it the priority of
 *   the first rule that matches, and /proc/realtime/irq_threads, which
 *   lists them: "IRQ PID POLICY PRIORITY NAME", NAME being the full action
 *   name (the comm is cut at 15);
 * - irq-probe.c: a kretprobe on sched_set_fifo() that notices new IRQ
 *   threads, so that the rules reach them too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/proc_fs.h>

#include "irq.h"
#include "realtime.h"

static struct proc_dir_entry *rt_proc_dir;

int rt_irq_init(void)
{
	int ret;

	rt_proc_dir = proc_mkdir("realtime", NULL);
	if (!rt_proc_dir) {
		pr_err("cannot create /proc/realtime (taken by another module?)\n");
		return -ENOMEM;
	}
	if (!proc_create("irq_rules", 0644, rt_proc_dir, &rt_irq_rules_ops) ||
	    !proc_create("irq_threads", 0444, rt_proc_dir, &rt_irq_threads_ops)) {
		pr_err("cannot create the files in /proc/realtime\n");
		ret = -ENOMEM;
		goto err_proc;
	}

	ret = rt_irq_probe_init();
	if (ret)
		goto err_proc;
	return 0;

err_proc:
	proc_remove(rt_proc_dir);
	rt_proc_dir = NULL;
	return ret;
}

void rt_irq_exit(void)
{
	/* No more readers or writers, then no more new work, then none running. */
	proc_remove(rt_proc_dir);
	rt_proc_dir = NULL;
	rt_irq_probe_exit();
	/* IRQ threads keep the priority they have. */
	rt_irq_rules_free();
}
