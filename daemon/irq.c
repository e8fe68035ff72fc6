// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs-irq.h"
#include "irq.h"
#include "log.h"
#include "macro.h"
#include "sched-util.h"

/* under the proc root (args.h), so that a test's fake /proc is written */
#define KMOD_IRQ_RULES "/realtime/irq_rules"
#define KMOD_WRITE_MAX 4095

static void irq_apply_rules(const char *proc, const Policy *p)
{
	IrqThread *list = NULL;
	size_t n = 0;
	int r;

	if (policy_n_irq_rules(p) == 0)
		return;
	r = procfs_irq_threads(proc, &list, &n);
	if (r < 0) {
		log_warning_errno(r, "Failed to list IRQ threads: %m");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const PolicyIrqRule *rule = policy_irq_match(p, list[i].action);

		if (!rule)
			continue;
		if (list[i].policy == SCHED_FIFO && list[i].priority == rule->priority)
			continue;
		r = sched_apply(list[i].pid, POLICY_GRANT_FIFO, rule->priority);
		if (r < 0) {
			log_warning_errno(
				r, "Failed to set IRQ %u thread %d (%s) to SCHED_FIFO %d: %m",
				list[i].irq, (int)list[i].pid, list[i].action, rule->priority);
			continue;
		}
		log_id(LOG_INFO, LOG_ID_IRQ, "IRQ %u thread %d (%s): SCHED_FIFO %d (%s:%u)",
		       list[i].irq, (int)list[i].pid, list[i].action, rule->priority,
		       rule->source.file ? rule->source.file : "?", rule->source.line);
	}
	procfs_irq_threads_free(list, n);
}

/* One write to realtime.ko's rules file; -ENOENT when it is not loaded. */
static int kmod_write(const char *proc, const char *buf, size_t used)
{
	_cleanup_close_ int fd = -EBADF;
	char path[PATH_MAX];
	ssize_t n;

	if ((size_t)snprintf(path, sizeof(path), "%s" KMOD_IRQ_RULES, proc) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, used);
	if (n < 0)
		return -errno;
	return (size_t)n == used ? 0 : -EIO;
}

/* Replaces realtime.ko's rule set ("-" clears it) with the policy's;
 * -EINVAL or -E2BIG when the module cannot take these rules. */
static int irq_rules_to_kmod(const char *proc, const Policy *p)
{
	char buf[KMOD_WRITE_MAX + 1];
	size_t used;

	used = (size_t)snprintf(buf, sizeof(buf), "-\n");
	for (size_t i = 0; i < policy_n_irq_rules(p); i++) {
		const PolicyIrqRule *rule = policy_irq_rule(p, i);
		int l;

		if (strpbrk(rule->pattern, " \t\n"))
			return -EINVAL; /* the module's line format has no room for it */
		l = snprintf(buf + used, sizeof(buf) - used, "%s %d\n", rule->pattern,
			     rule->priority);
		if (l < 0 || (size_t)l >= sizeof(buf) - used)
			return -E2BIG;
		used += (size_t)l;
	}
	return kmod_write(proc, buf, used);
}

void irq_apply(Daemon *d)
{
	int r;

	r = irq_rules_to_kmod(d->args.proc, d->policy);
	if (r >= 0) {
		if (!d->irq_kmod)
			log_id(LOG_INFO, LOG_ID_IRQ,
			       "Handed %zu [IRQ] rules to realtime.ko; it applies them to IRQ "
			       "threads now and later",
			       policy_n_irq_rules(d->policy));
		d->irq_kmod = true;
		return;
	}
	if (r != -ENOENT) {
		log_warning_errno(r,
				  "Failed to hand [IRQ] rules to realtime.ko (%s): %m; "
				  "applying them from the daemon instead",
				  "/proc" KMOD_IRQ_RULES);
		/* else it goes on applying rules the policy no longer has */
		r = kmod_write(d->args.proc, "-\n", 2);
		if (r < 0 && r != -ENOENT)
			log_warning_errno(r, "Failed to clear realtime.ko's [IRQ] rules: %m");
	}
	d->irq_kmod = false;
	irq_apply_rules(d->args.proc, d->policy);
}
