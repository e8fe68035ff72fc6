// SPDX-License-Identifier: GPL-2.0-only
/*
 * realtime.ko's IRQ-thread rules and /proc/realtime/irq_rules, the file
 * that sets them (irq.c is the overview).
 *
 * The file takes lines "PATTERN PRIORITY": a glob on the full IRQ action
 * name and a SCHED_FIFO priority 1..99; "PATTERN -" removes the rule (its
 * threads go back to the kernel's FIFO 50) and a lone "-" removes all. The
 * first matching rule wins, in the order rules were added. Reading it lists
 * the rules.
 *
 * A write is checked whole before anything changes: one bad line refuses
 * it (-EINVAL), and so do more than RT_IRQ_RULES_MAX rules after it
 * (-ENOSPC); the rules stay as they were. Then its lines change the rules
 * in order and the rules are applied to every IRQ thread. Running out of
 * memory is the exception (-ENOMEM): for a new rule, the lines before it
 * stay in the table; for the list of IRQ threads, the whole write does.
 * Either way no thread changes until the next write or new IRQ thread
 * applies the rules, and threads of rules removed keep their priority.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/glob.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "irq.h"

#define RT_IRQ_RULES_MAX	128
#define RT_IRQ_PATTERN_MAX	128

DEFINE_MUTEX(rt_irq_mutex);	/* rules, and applying them */
static LIST_HEAD(rt_irq_rules);
unsigned int rt_irq_nrules;	/* also read locklessly by the probe */

const struct rt_irq_rule *rt_irq_rule_match(const char *name)
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

const struct proc_ops rt_irq_rules_ops = {
	.proc_open = rt_irq_rules_open,
	.proc_read = seq_read,
	.proc_write = rt_irq_rules_write,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
};

void rt_irq_rules_free(void)
{
	struct rt_irq_rule *r, *tmp;

	list_for_each_entry_safe(r, tmp, &rt_irq_rules, node) {
		list_del(&r->node);
		kfree(r);
	}
	rt_irq_nrules = 0;
}
