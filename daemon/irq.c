// SPDX-License-Identifier: GPL-2.0-or-later
/* IRQ thread listing and [IRQ] rules; see irq.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irq.h"
#include "log.h"
#include "macro.h"
#include "proc.h"
#include "sched-util.h"

#define IRQ_THREADS_MAX 4096

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

int irq_parse_comm(const char *comm, unsigned *ret_irq, const char **ret_name)
{
	const char *p = startswith(comm, "irq/");
	unsigned long n;
	char *end;

	if (!p || !isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	n = strtoul(p, &end, 10);
	if (errno || n > 1000000 || *end != '-' || !end[1])
		return -EINVAL;
	p = end + 1;
	/* Secondary threads of a forced-threaded handler: irq/N-s-name. */
	if (startswith(p, "s-") && p[2])
		p += 2;
	*ret_irq = (unsigned)n;
	*ret_name = p;
	return 0;
}

static void irq_full_name(const char *proc, unsigned irq, const char *name, char *buf, size_t size)
{
	_cleanup_(closedirp) DIR *dir = NULL;
	char path[256];
	struct dirent *de;

	snprintf(buf, size, "%s", name);
	snprintf(path, sizeof(path), "%s/irq/%u", proc, irq);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		/* The comm holds a prefix of the action name. */
		if (startswith(de->d_name, name)) {
			size_t l = strnlen(de->d_name, size - 1);

			memcpy(buf, de->d_name, l);
			buf[l] = 0;
			return;
		}
	}
}

static int read_ppid(const char *proc, pid_t pid, pid_t *ret)
{
	char path[128], buf[1024];
	const char *p;
	int r;

	snprintf(path, sizeof(path), "%s/%d/stat", proc, (int)pid);
	r = proc_read_file(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", ret) != 1)
		return -EINVAL;
	return 0;
}

static int compare_irq(const void *a, const void *b)
{
	const IrqThread *x = a, *y = b;

	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int irq_threads_list(const char *proc, IrqThread **ret, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *dir = NULL;
	_cleanup_free_ IrqThread *list = NULL;
	size_t n = 0, allocated = 0;
	struct dirent *de;

	dir = opendir(proc);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char comm[64];
		const char *name;
		unsigned irq;
		pid_t pid, ppid;
		char *end;

		pid = (pid_t)strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (proc_get_comm(proc, pid, 0, comm, sizeof(comm)) < 0 ||
		    irq_parse_comm(comm, &irq, &name) < 0)
			continue;
		/* Only kernel threads (children of kthreadd) are IRQ threads. */
		if (read_ppid(proc, pid, &ppid) < 0 || ppid != 2)
			continue;
		if (n >= IRQ_THREADS_MAX)
			break;
		if (n == allocated) {
			IrqThread *l = realloc(list, (allocated ? allocated * 2 : 16) * sizeof(*l));

			if (!l)
				return -ENOMEM;
			list = l;
			allocated = allocated ? allocated * 2 : 16;
		}
		list[n] = (IrqThread){ .irq = irq, .pid = pid, .policy = "other" };
		irq_full_name(proc, irq, name, list[n].action, sizeof(list[n].action));
		if (sched_get(pid, &list[n].policy, &list[n].priority) < 0)
			list[n].policy = "other";
		n++;
	}
	if (n > 0)
		qsort(list, n, sizeof(*list), compare_irq);
	*ret = TAKE_PTR(list);
	*ret_n = n;
	return 0;
}

int irq_apply_rules(const char *proc, const Policy *p)
{
	_cleanup_free_ IrqThread *list = NULL;
	size_t n = 0;
	int changed = 0, r;

	if (policy_n_irq_rules(p) == 0)
		return 0;
	r = irq_threads_list(proc, &list, &n);
	if (r < 0)
		return log_warning_errno(r, "Failed to list IRQ threads: %m");
	for (size_t i = 0; i < n; i++) {
		const PolicyIrqRule *rule = policy_irq_match(p, list[i].action);

		if (!rule)
			continue;
		if (streq(list[i].policy, "fifo") && list[i].priority == rule->priority)
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
	return changed;
}
