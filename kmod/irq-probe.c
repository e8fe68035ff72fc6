// SPDX-License-Identifier: GPL-2.0-only
/*
 * realtime.ko's IRQ-thread rules for threads started after the rules were
 * written (irq.c is the overview).
 *
 * A kernel IRQ thread gets SCHED_FIFO 50 from sched_set_fifo() when it is
 * set up; a kretprobe there notices new "irq/" threads and a work item
 * applies the rules once the action is linked in, after the kernel's own
 * setting.
 *
 * The probe's handlers run with preemption disabled. On PREEMPT_RT a
 * spinlock_t sleeps and the slab allocator must not be entered there, so
 * the handler only puts the thread into a fixed array under a raw spinlock;
 * the work item allocates and keeps the list of threads still waiting.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "irq.h"
#include "realtime.h"

#define RT_IRQ_RETRIES		50	/* 50 x 20 ms for a new action to be linked */
#define RT_IRQ_NEW_MAX		64	/* new threads seen before the work runs */

/* A new "irq/" thread seen by the probe, waiting for its action to be linked. */
struct rt_irq_pending {
	struct list_head node;
	struct task_struct *task;
	unsigned int tries;
};

/* Filled by the probe, emptied by the work; overflow counts as missed. */
static DEFINE_RAW_SPINLOCK(rt_irq_new_lock);
static struct task_struct *rt_irq_new[RT_IRQ_NEW_MAX];
static unsigned int rt_irq_nnew;
static atomic_long_t rt_irq_new_dropped;

/* Only the work item touches it (a work item never runs twice at once). */
static LIST_HEAD(rt_irq_pending_list);
static void rt_irq_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rt_irq_work, rt_irq_work_fn);

/*
 * Apply the rules, then check each pending new thread: once it is found
 * linked to its action, the rules reached it; until then try again.
 */
static void rt_irq_work_fn(struct work_struct *work)
{
	struct rt_irq_pending *pd, *tmp;
	struct task_struct **tasks = NULL;
	struct task_struct *t;
	bool *seen = NULL;
	struct list_head *list = &rt_irq_pending_list;
	size_t n = 0, i = 0;
	bool again = false;

	for (;;) {
		t = NULL;
		raw_spin_lock_irq(&rt_irq_new_lock);
		if (rt_irq_nnew)
			t = rt_irq_new[--rt_irq_nnew];
		raw_spin_unlock_irq(&rt_irq_new_lock);
		if (!t)
			break;
		pd = kzalloc(sizeof(*pd), GFP_KERNEL);
		if (!pd) {
			put_task_struct(t);
			atomic_long_inc(&rt_irq_new_dropped);
			continue;
		}
		pd->task = t;
		list_add_tail(&pd->node, list);
	}

	list_for_each_entry(pd, list, node)
		n++;
	if (n) {
		tasks = kcalloc(n, sizeof(*tasks), GFP_KERNEL);
		seen = kcalloc(n, sizeof(*seen), GFP_KERNEL);
	}
	if (tasks && seen)
		list_for_each_entry(pd, list, node)
			tasks[i++] = pd->task;
	else
		n = 0;

	mutex_lock(&rt_irq_mutex);
	if (rt_irq_nrules)
		rt_irq_apply(NULL, 0, tasks, seen, n);
	else
		n = 0;	/* no rules: nothing to wait for */
	mutex_unlock(&rt_irq_mutex);

	i = 0;
	list_for_each_entry_safe(pd, tmp, list, node) {
		bool found = i < n && seen[i];

		i++;
		if (found || (pd->task->flags & PF_EXITING) ||
		    ++pd->tries > RT_IRQ_RETRIES || !n) {
			list_del(&pd->node);
			put_task_struct(pd->task);
			kfree(pd);
		} else {
			again = true;
		}
	}
	kfree(tasks);
	kfree(seen);

	if (again)
		schedule_delayed_work(&rt_irq_work, msecs_to_jiffies(20));
}

struct rt_fifo_data {
	struct task_struct *task;
};

/* sched_set_fifo(p) entry: only IRQ threads, and only when rules exist. */
static int rt_fifo_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rt_fifo_data *d = (struct rt_fifo_data *)ri->data;
	struct task_struct *p;

	if (!READ_ONCE(rt_irq_nrules))
		return 1;
	p = (struct task_struct *)regs_get_kernel_argument(regs, 0);
	if (!p || !(p->flags & PF_KTHREAD) || strncmp(p->comm, "irq/", 4))
		return 1;
	d->task = p;
	return 0;
}

/* Return: the kernel has set its FIFO 50; queue our rules after it. */
static int rt_fifo_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rt_fifo_data *d = (struct rt_fifo_data *)ri->data;
	unsigned long flags;
	bool kept = false;

	raw_spin_lock_irqsave(&rt_irq_new_lock, flags);
	if (rt_irq_nnew < RT_IRQ_NEW_MAX) {
		rt_irq_new[rt_irq_nnew++] = get_task_struct(d->task);
		kept = true;
	}
	raw_spin_unlock_irqrestore(&rt_irq_new_lock, flags);
	if (!kept)
		atomic_long_inc(&rt_irq_new_dropped);
	mod_delayed_work(system_wq, &rt_irq_work, 0);
	return 0;
}

static struct kretprobe rt_fifo_probe = {
	.kp.symbol_name = "sched_set_fifo",
	.entry_handler = rt_fifo_entry,
	.handler = rt_fifo_return,
	.data_size = sizeof(struct rt_fifo_data),
	.maxactive = 16,
};

unsigned long rt_irq_missed(void)
{
	return (unsigned long)rt_fifo_probe.nmissed + rt_fifo_probe.kp.nmissed +
	       atomic_long_read(&rt_irq_new_dropped);
}

int rt_irq_probe_init(void)
{
	int ret;

	ret = register_kretprobe(&rt_fifo_probe);
	if (ret)
		pr_err("cannot probe sched_set_fifo (%d): IRQ-thread rules would miss new threads; needs CONFIG_KRETPROBES\n",
		       ret);
	return ret;
}

void rt_irq_probe_exit(void)
{
	struct rt_irq_pending *pd, *tmp;

	/* No more new work, then none running. */
	unregister_kretprobe(&rt_fifo_probe);
	cancel_delayed_work_sync(&rt_irq_work);

	list_for_each_entry_safe(pd, tmp, &rt_irq_pending_list, node) {
		list_del(&pd->node);
		put_task_struct(pd->task);
		kfree(pd);
	}
	while (rt_irq_nnew)
		put_task_struct(rt_irq_new[--rt_irq_nnew]);
}
