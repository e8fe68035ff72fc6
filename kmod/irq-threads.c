// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding realtime.ko's IRQ threads and giving them the rules' priorities,
 * and /proc/realtime/irq_threads, the list of them (irq.c is the overview).
 *
 * IRQ threads are found by walking each IRQ descriptor's action list under
 * its lock (irq_to_desc() is not exported; irq_get_irq_data() is, and the
 * descriptor is around it), so an action can't be freed under us.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/glob.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/mm.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <uapi/linux/sched/types.h>

#include "irq.h"

#define RT_IRQ_NAME_MAX		64

/* One IRQ thread, found under its descriptor's lock; holds a task reference. */
struct rt_irq_thread {
	struct task_struct *task;
	unsigned int irq;
	char name[RT_IRQ_NAME_MAX];
};

static void rt_irq_threads_free(struct rt_irq_thread *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put_task_struct(v[i].task);
	kvfree(v);
}

/*
 * Collect the threads of one action chain into v (capacity cap) under the
 * descriptor's lock; returns how many there are, even beyond cap.
 */
static size_t rt_irq_collect_desc(unsigned int irq, struct rt_irq_thread *v,
				  size_t n, size_t cap)
{
	struct irq_data *data;
	struct irq_desc *desc;
	struct irqaction *action, *a;
	unsigned long flags;

	rcu_read_lock();
	data = irq_get_irq_data(irq);
	if (!data) {
		rcu_read_unlock();
		return n;
	}
	desc = irq_data_to_desc(data);

	raw_spin_lock_irqsave(&desc->lock, flags);
	for (action = desc->action; action; action = action->next) {
		for (a = action; a; a = a == action ? action->secondary : NULL) {
			if (!a->thread)
				continue;
			if (n < cap) {
				v[n].task = get_task_struct(a->thread);
				v[n].irq = irq;
				strscpy(v[n].name, a->name ? a->name : "", sizeof(v[n].name));
			}
			n++;
		}
	}
	raw_spin_unlock_irqrestore(&desc->lock, flags);
	rcu_read_unlock();
	return n;
}

/* Every IRQ thread now, each with a task reference. Free with rt_irq_threads_free(). */
static int rt_irq_threads_get(struct rt_irq_thread **ret_v, size_t *ret_n)
{
	struct rt_irq_thread *v = NULL;
	size_t cap = 64, n;
	unsigned int irq;

	for (;;) {
		v = kvcalloc(cap, sizeof(*v), GFP_KERNEL);
		if (!v)
			return -ENOMEM;
		n = 0;
		for (irq = 0; irq < nr_irqs; irq++)
			n = rt_irq_collect_desc(irq, v, n, cap);
		if (n <= cap)
			break;
		/* More threads than room: drop what we took and retry bigger. */
		rt_irq_threads_free(v, cap);
		cap = n + 16;
	}
	*ret_v = v;
	*ret_n = n;
	return 0;
}

static void rt_irq_thread_set(const struct rt_irq_thread *t, unsigned int prio,
			      const char *why)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
	int ret;

	if (t->task->flags & PF_EXITING)
		return;
	if (t->task->policy == SCHED_FIFO && t->task->rt_priority == prio)
		return;

	ret = sched_setattr_nocheck(t->task, &attr);
	if (ret)
		pr_warn("cannot set irq %u thread %d (%s) to SCHED_FIFO %u: %d\n",
			t->irq, task_pid_nr(t->task), t->name, prio, ret);
	else
		pr_debug("irq %u thread %d (%s): SCHED_FIFO %u (%s)\n",
			 t->irq, task_pid_nr(t->task), t->name, prio, why);
}

/*
 * Apply the rules to every IRQ thread; threads that match none but matched
 * a pattern in reset[] go back to the kernel's FIFO 50. With seen, tell
 * whether that task is among the IRQ threads found.
 */
int rt_irq_apply(const char *const *reset, size_t nreset,
		 struct task_struct *const *seen, bool *ret_seen, size_t nseen)
{
	struct rt_irq_thread *v;
	size_t n, i, j;
	int ret;

	lockdep_assert_held(&rt_irq_mutex);

	ret = rt_irq_threads_get(&v, &n);
	if (ret)
		return ret;

	for (i = 0; i < n; i++) {
		const struct rt_irq_rule *r = rt_irq_rule_match(v[i].name);

		for (j = 0; j < nseen; j++)
			if (seen[j] == v[i].task)
				ret_seen[j] = true;

		if (r) {
			rt_irq_thread_set(&v[i], r->prio, r->pattern);
			continue;
		}
		for (j = 0; j < nreset; j++)
			if (glob_match(reset[j], v[i].name)) {
				rt_irq_thread_set(&v[i], RT_IRQ_KERNEL_PRIO, "rule removed");
				break;
			}
	}
	rt_irq_threads_free(v, n);
	return 0;
}

static const char *rt_policy_name(unsigned int policy)
{
	switch (policy) {
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	case SCHED_DEADLINE:
		return "deadline";
	case SCHED_BATCH:
		return "batch";
	case SCHED_IDLE:
		return "idle";
	default:
		return "other";
	}
}

static int rt_irq_threads_show(struct seq_file *m, void *unused)
{
	struct rt_irq_thread *v;
	size_t n, i;
	int ret;

	ret = rt_irq_threads_get(&v, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		struct task_struct *t = v[i].task;

		seq_printf(m, "%u %d %s %u %s\n", v[i].irq, task_pid_nr(t),
			   rt_policy_name(READ_ONCE(t->policy)),
			   READ_ONCE(t->rt_priority), v[i].name);
	}
	rt_irq_threads_free(v, n);
	return 0;
}

static int rt_irq_threads_open(struct inode *inode, struct file *file)
{
	return single_open(file, rt_irq_threads_show, NULL);
}

const struct proc_ops rt_irq_threads_ops = {
	.proc_open = rt_irq_threads_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};
