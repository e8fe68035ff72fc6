// SPDX-License-Identifier: GPL-2.0-or-later
/* [IRQ] rules applied by realtimed; see irq.h. */
#include <sched.h>

#include "irq.h"
#include "log.h"
#include "sched-util.h"

int irq_apply_rules(const char *proc, const Policy *p)
{
	IrqThread *list = NULL;
	size_t n = 0;
	int changed = 0, r;

	if (policy_n_irq_rules(p) == 0)
		return 0;
	r = procfs_irq_threads(proc, &list, &n);
	if (r < 0)
		return log_warning_errno(r, "Failed to list IRQ threads: %m");
	for (size_t i = 0; i < n; i++) {
		const PolicyIrqRule *rule = policy_irq_match(p, list[i].action);

		if (!rule)
			continue;
		if (list[i].policy == SCHED_FIFO && list[i].priority == rule->priority)
			continue;
		r = sched_apply(list[i].pid, GRANT_FIFO, rule->priority);
		if (r < 0) {
			log_warning_errno(
				r, "Failed to set IRQ %u thread %d (%s) to SCHED_FIFO %d: %m",
				list[i].irq, (int)list[i].pid, list[i].action, rule->priority);
			continue;
		}
		log_id(LOG_INFO, LOG_ID_IRQ, "IRQ %u thread %d (%s): SCHED_FIFO %d (%s:%u)",
		       list[i].irq, (int)list[i].pid, list[i].action, rule->priority,
		       rule->source.file ? rule->source.file : "?", rule->source.line);
		changed++;
	}
	procfs_irq_threads_free(list, n);
	return changed;
}
