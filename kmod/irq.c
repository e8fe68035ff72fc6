// SPDX-License-Identifier: GPL-2.0-only
/*
 * IRQ-thread priorities, rtirq's job done in the kernel so that it also
 * holds for IRQ threads created later (a driver reload, a USB audio
 * interface plugged in).
 *
 * /proc/realtime/irq_rules takes lines "PATTERN PRIORITY": a glob on the
 * full IRQ action name and a SCHED_FIFO priority 1..99; "PATTERN -" removes
 * the rule (its threads go back to the kernel's FIFO 50) and a lone "-"
 * removes all. The first matching rule wins, in the order rules were added.
 * Reading it lists the rules.
 *
 * A write is checked whole before anything changes: one bad line refuses
 * it (-EINVAL), and so do more than RT_IRQ_RULES_MAX rules after it
 * (-ENOSPC); the rules stay as they were. Then its lines change the rules
 * in order and the rules are applied to every IRQ thread. Running out of
 * memory is the exception (-ENOMEM): for a new rule, the lines before it
 * stay in the table; for the list of IRQ threads, the whole write does.
 * Either way no thread changes until the next write or new IRQ thread
 * applies the rules, and threads of rules removed keep their priority.
 *
 * /proc/realtime/irq_threads lists every IRQ thread: "IRQ PID POLICY
 * PRIORITY NAME", NAME being the full action name (the comm is cut at 15).
 *
 * IRQ threads are found by walking each IRQ descriptor's action list under
 * its lock (irq_to_desc() is not exported; irq_get_irq_data() is, and the
 * descriptor is around it), so an action can't be freed under us. A kernel
 * IRQ thread gets SCHED_FIFO 50 from sched_set_fifo() when it is set up; a
 * kretprobe there notices new "irq/" threads and a work item applies the
 * rules once the action is linked in, after the kernel's own setting.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/glob.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched/types.h>

#include "realtime.h"

#define RT_IRQ_RULES_MAX	128
#define RT_IRQ_PATTERN_MAX	128
#define RT_IRQ_NAME_MAX		64
#define RT_IRQ_KERNEL_PRIO	50	/* what the kernel gives an IRQ thread */
#define RT_IRQ_RETRIES		50	/* 50 x 20 ms for a new action to be linked */

struct rt_irq_rule {
	struct list_head node;
	unsigned int prio;
	char pattern[];
};

/* One IRQ thread, found under its descriptor's lock; holds a task reference. */
struct rt_irq_thread {
	struct task_struct *task;
	unsigned int irq;
	char name[RT_IRQ_NAME_MAX];
};

/* A new "irq/" thread seen by the probe, waiting for its action to be linked. */
struct rt_irq_pending {
	struct list_head node;
	struct task_struct *task;
	unsigned int tries;
};

static DEFINE_MUTEX(rt_irq_mutex);	/* rules, and applying them */
static LIST_HEAD(rt_irq_rules);
static unsigned int rt_irq_nrules;	/* also read locklessly by the probe */

static DEFINE_SPINLOCK(rt_irq_pending_lock);
static LIST_HEAD(rt_irq_pending_list);
static void rt_irq_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(rt_irq_work, rt_irq_work_fn);

static struct proc_dir_entry *rt_proc_dir;

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

static const struct rt_irq_rule *rt_irq_rule_match(const char *name)
{
	const struct rt_irq_rule *r;

	lockdep_assert_held(&rt_irq_mutex);
	list_for_each_entry(r, &rt_irq_rules, node)
		if (glob_match(r->pattern, name))
			return r;
	return NULL;
}

static struct rt_irq_rule *rt_irq_rule_find(const char *pattern)
{
	struct rt_irq_rule *r;

	list_for_each_entry(r, &rt_irq_rules, node)
		if (!strcmp(r->pattern, pattern))
			return r;
	return NULL;
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
static int rt_irq_apply(const char *const *reset, size_t nreset,
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

/* One parsed line of a write: pattern and priority, 0 to remove, or clear all. */
struct rt_irq_op {
	char *pattern;		/* NULL: remove all */
	unsigned int prio;	/* 0: remove */
};

static int rt_irq_parse_line(char *line, struct rt_irq_op *op)
{
	char *pattern, *value, *rest;

	line = strim(line);
	pattern = strsep(&line, " \t");
	if (!line) {
		if (!strcmp(pattern, "-")) {
			op->pattern = NULL;
			op->prio = 0;
			return 0;
		}
		return -EINVAL;
	}
	value = skip_spaces(line);
	rest = value;
	while (*rest && !isspace(*rest))
		rest++;
	if (*skip_spaces(rest))
		return -EINVAL;
	*rest = '\0';

	if (!*pattern || strlen(pattern) >= RT_IRQ_PATTERN_MAX)
		return -EINVAL;
	op->pattern = pattern;

	if (!strcmp(value, "-")) {
		op->prio = 0;
		return 0;
	}
	if (kstrtouint(value, 10, &op->prio))
		return -EINVAL;
	if (op->prio < 1 || op->prio > MAX_RT_PRIO - 1)
		return -EINVAL;
	return 0;
}

/* How many rules there would be after applying ops, to refuse before changing anything. */
static unsigned int rt_irq_count_after(const struct rt_irq_op *ops, size_t nops)
{
	unsigned int n = rt_irq_nrules;
	size_t i, k, start = 0;	/* ops after the last "-" */
	bool cleared = false;

	lockdep_assert_held(&rt_irq_mutex);
	for (i = 0; i < nops; i++) {
		bool dup = false;

		if (!ops[i].pattern) {
			n = 0;
			start = i + 1;
			cleared = true;
			continue;
		}
		/* Removals are not counted: an upper bound is enough. */
		if (!ops[i].prio || (!cleared && rt_irq_rule_find(ops[i].pattern)))
			continue;
		for (k = start; k < i && !dup; k++)
			dup = ops[k].pattern && !strcmp(ops[k].pattern, ops[i].pattern);
		if (!dup)
			n++;
	}
	return n;
}

static ssize_t rt_irq_rules_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct rt_irq_op *ops = NULL;
	const char **reset = NULL;
	struct rt_irq_rule *r, *tmp;
	size_t nops = 0, nreset = 0, i, lines = 0;
	char *buf, *p, *line;
	ssize_t ret;

	if (!capable(CAP_SYS_NICE))
		return -EPERM;
	if (count == 0)
		return 0;
	if (count >= PAGE_SIZE)
		return -E2BIG;

	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	for (p = buf; *p; p++)
		if (*p == '\n')
			lines++;
	ops = kcalloc(lines + 1, sizeof(*ops), GFP_KERNEL);
	reset = kcalloc(lines + 1 + RT_IRQ_RULES_MAX, sizeof(*reset), GFP_KERNEL);
	if (!ops || !reset) {
		ret = -ENOMEM;
		goto out;
	}

	/* Parse every line first: a bad line refuses the whole write. */
	p = buf;
	while ((line = strsep(&p, "\n"))) {
		char *s = skip_spaces(line);

		if (!*s || *s == '#')
			continue;
		if (rt_irq_parse_line(s, &ops[nops])) {
			pr_info("irq_rules: refused \"%s\": expected \"PATTERN PRIORITY\" (1..%d), \"PATTERN -\" or \"-\"\n",
				strim(s), MAX_RT_PRIO - 1);
			ret = -EINVAL;
			goto out;
		}
		nops++;
	}

	mutex_lock(&rt_irq_mutex);

	if (rt_irq_count_after(ops, nops) > RT_IRQ_RULES_MAX) {
		mutex_unlock(&rt_irq_mutex);
		ret = -ENOSPC;
		goto out;
	}

	for (i = 0; i < nops; i++) {
		struct rt_irq_op *op = &ops[i];

		if (!op->pattern) {
			list_for_each_entry_safe(r, tmp, &rt_irq_rules, node) {
				reset[nreset++] = kstrdup(r->pattern, GFP_KERNEL);
				list_del(&r->node);
				kfree(r);
			}
			rt_irq_nrules = 0;
			continue;
		}

		r = rt_irq_rule_find(op->pattern);
		if (!op->prio) {
			if (r) {
				reset[nreset++] = kstrdup(r->pattern, GFP_KERNEL);
				list_del(&r->node);
				kfree(r);
				rt_irq_nrules--;
			}
			continue;
		}
		if (r) {
			r->prio = op->prio;
			continue;
		}
		r = kmalloc(struct_size(r, pattern, strlen(op->pattern) + 1), GFP_KERNEL);
		if (!r) {
			/* The lines before this one stay: see the top of the file. */
			mutex_unlock(&rt_irq_mutex);
			ret = -ENOMEM;
			goto out;
		}
		strcpy(r->pattern, op->pattern);
		r->prio = op->prio;
		list_add_tail(&r->node, &rt_irq_rules);
		rt_irq_nrules++;
	}

	/* A failed kstrdup only means that thread keeps its priority. */
	for (i = 0; i < nreset; )
		if (!reset[i])
			reset[i] = reset[--nreset];
		else
			i++;

	ret = rt_irq_apply(reset, nreset, NULL, NULL, 0);
	mutex_unlock(&rt_irq_mutex);
	if (ret == 0)
		ret = count;
out:
	if (reset)
		for (i = 0; i < nreset; i++)
			kfree(reset[i]);
	kfree(reset);
	kfree(ops);
	kfree(buf);
	return ret;
}

static int rt_irq_rules_show(struct seq_file *m, void *v)
{
	const struct rt_irq_rule *r;

	mutex_lock(&rt_irq_mutex);
	list_for_each_entry(r, &rt_irq_rules, node)
		seq_printf(m, "%s %u\n", r->pattern, r->prio);
	mutex_unlock(&rt_irq_mutex);
	return 0;
}

static int rt_irq_rules_open(struct inode *inode, struct file *file)
{
	return single_open(file, rt_irq_rules_show, NULL);
}

static const struct proc_ops rt_irq_rules_ops = {
	.proc_open = rt_irq_rules_open,
	.proc_read = seq_read,
	.proc_write = rt_irq_rules_write,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

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

static const struct proc_ops rt_irq_threads_ops = {
	.proc_open = rt_irq_threads_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

/*
 * Apply the rules, then check each pending new thread: once it is found
 * linked to its action, the rules reached it; until then try again.
 */
static void rt_irq_work_fn(struct work_struct *work)
{
	struct rt_irq_pending *pd, *tmp;
	struct task_struct **tasks = NULL;
	bool *seen = NULL;
	LIST_HEAD(list);
	size_t n = 0, i = 0;
	bool again = false;

	spin_lock_irq(&rt_irq_pending_lock);
	list_splice_init(&rt_irq_pending_list, &list);
	spin_unlock_irq(&rt_irq_pending_lock);

	list_for_each_entry(pd, &list, node)
		n++;
	if (n) {
		tasks = kcalloc(n, sizeof(*tasks), GFP_KERNEL);
		seen = kcalloc(n, sizeof(*seen), GFP_KERNEL);
	}
	if (tasks && seen)
		list_for_each_entry(pd, &list, node)
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
	list_for_each_entry_safe(pd, tmp, &list, node) {
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

	if (again) {
		spin_lock_irq(&rt_irq_pending_lock);
		list_splice(&list, &rt_irq_pending_list);
		spin_unlock_irq(&rt_irq_pending_lock);
		schedule_delayed_work(&rt_irq_work, msecs_to_jiffies(20));
	}
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
	struct rt_irq_pending *pd;
	unsigned long flags;

	pd = kzalloc(sizeof(*pd), GFP_ATOMIC);
	if (!pd)
		return 0;
	pd->task = get_task_struct(d->task);

	spin_lock_irqsave(&rt_irq_pending_lock, flags);
	list_add_tail(&pd->node, &rt_irq_pending_list);
	spin_unlock_irqrestore(&rt_irq_pending_lock, flags);
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
	return (unsigned long)rt_fifo_probe.nmissed + rt_fifo_probe.kp.nmissed;
}

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

	ret = register_kretprobe(&rt_fifo_probe);
	if (ret) {
		pr_err("cannot probe sched_set_fifo (%d): IRQ-thread rules would miss new threads; needs CONFIG_KRETPROBES\n",
		       ret);
		goto err_proc;
	}
	return 0;

err_proc:
	proc_remove(rt_proc_dir);
	rt_proc_dir = NULL;
	return ret;
}

void rt_irq_exit(void)
{
	struct rt_irq_pending *pd, *tmp;
	struct rt_irq_rule *r, *rtmp;

	/* No more readers or writers, then no more new work, then none running. */
	proc_remove(rt_proc_dir);
	rt_proc_dir = NULL;
	unregister_kretprobe(&rt_fifo_probe);
	cancel_delayed_work_sync(&rt_irq_work);

	list_for_each_entry_safe(pd, tmp, &rt_irq_pending_list, node) {
		list_del(&pd->node);
		put_task_struct(pd->task);
		kfree(pd);
	}
	/* IRQ threads keep the priority they have. */
	list_for_each_entry_safe(r, rtmp, &rt_irq_rules, node) {
		list_del(&r->node);
		kfree(r);
	}
	rt_irq_nrules = 0;
}
