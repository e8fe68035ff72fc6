/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IRQ threads from /proc and from realtime.ko (see procfs-irq.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parse.h"
#include "procfs-irq.h"
#include "procfs-stat.h"

/* include/linux/sched.h: this task is a kernel thread. */
#define PF_KTHREAD 0x00200000u

int procfs_irq_thread_name_parse(const char *comm, unsigned *ret_irq, const char **ret_name)
{
	const char *p = startswith(comm, "irq/");
	uint64_t v;

	if (!p || parse_decimal_prefix(p, UINT_MAX, &v, &p) < 0 || *p != '-')
		return -EINVAL;
	p++;
	/* A secondary handler's thread; kernel/irq/manage.c names it irq/N-s-NAME. */
	if (startswith(p, "s-"))
		p += 2;
	*ret_irq = (unsigned)v;
	*ret_name = p;
	return 0;
}

/* The action name under PROC/irq/IRQ/ that the (maybe cut) thread name
 * starts with; the shortest such if several, sorted for a stable answer.
 * NULL if none: then the thread's own name part is all there is. */
static char *find_action(int proc_fd, unsigned irq, const char *prefix)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[64], *best = NULL;
	struct dirent *de;
	int fd;

	snprintf(path, sizeof(path), "irq/%u", irq);
	fd = openat(proc_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		safe_close(fd);
		return NULL;
	}
	while ((de = readdir(d))) {
		/* Action directories are the only directories in /proc/irq/N. */
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (!startswith(de->d_name, prefix))
			continue;
		if (!best || strlen(de->d_name) < strlen(best) ||
		    (strlen(de->d_name) == strlen(best) && strcmp(de->d_name, best) < 0)) {
			char *copy = strdup(de->d_name);

			if (!copy)
				break;
			free(best);
			best = copy;
		}
	}
	return best;
}

static int name_compare(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void procfs_irq_actions_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

int procfs_irq_actions(const char *proc_root, unsigned irq, char ***ret, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[PATH_MAX];
	char **names = NULL;
	struct dirent *de;
	size_t n = 0;

	snprintf(path, sizeof(path), "%s/irq/%u", proc_root, irq);
	d = opendir(path);
	if (!d)
		return -errno;
	names = calloc(1, sizeof(char *));
	if (!names)
		return -ENOMEM;
	while ((de = readdir(d))) {
		char **p;

		/* Action directories are the only directories in /proc/irq/N. */
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		p = reallocarray(names, n + 2, sizeof(char *));
		if (!p)
			goto oom;
		names = p;
		names[n] = strdup(de->d_name);
		if (!names[n])
			goto oom;
		names[++n] = NULL;
	}
	qsort(names, n, sizeof(char *), name_compare);
	*ret = names;
	*ret_n = n;
	return 0;
oom:
	procfs_irq_actions_free(names);
	return -ENOMEM;
}

static int irq_thread_compare(const void *a, const void *b)
{
	const IrqThread *x = a, *y = b;

	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void procfs_irq_threads_free(IrqThread *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].action);
	free(t);
}

/* Appends one thread; takes action. */
static int irq_threads_append(IrqThread **threads, size_t *n, size_t *allocated, IrqThread t)
{
	if (*n == *allocated) {
		size_t a = *allocated ? *allocated * 2 : 16;
		IrqThread *p = reallocarray(*threads, a, sizeof(*p));

		if (!p) {
			free(t.action);
			return -ENOMEM;
		}
		*threads = p;
		*allocated = a;
	}
	(*threads)[(*n)++] = t;
	return 0;
}

int procfs_irq_threads_kmod(const char *path, IrqThread **ret, size_t *ret_n)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	IrqThread *threads = NULL;
	size_t n = 0, allocated = 0, size = 0;
	int r = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &size, f) > 0) {
		char policy[16];
		unsigned irq, priority;
		int pid, name_start = 0, p;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%u %d %15s %u %n", &irq, &pid, policy, &priority, &name_start) !=
			    4 ||
		    name_start == 0 || !line[name_start] || pid <= 0 || priority > 99 ||
		    (p = procfs_sched_policy_from_string(policy)) < 0) {
			r = -EBADMSG;
			break;
		}
		IrqThread t = { .irq = irq, .pid = pid, .policy = p, .priority = (int)priority };
		t.action = strdup(line + name_start);
		if (!t.action) {
			r = -ENOMEM;
			break;
		}
		r = irq_threads_append(&threads, &n, &allocated, t);
		if (r < 0)
			break;
	}
	if (r < 0) {
		procfs_irq_threads_free(threads, n);
		return r;
	}
	if (n > 0)
		qsort(threads, n, sizeof(*threads), irq_thread_compare);
	*ret = threads;
	*ret_n = n;
	return 0;
}

int procfs_irq_threads(const char *proc_root, IrqThread **ret, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	IrqThread *threads = NULL;
	size_t n = 0, allocated = 0;
	struct dirent *de;
	int proc_fd;

	proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (proc_fd < 0)
		return -errno;
	d = fdopendir(proc_fd);
	if (!d) {
		int r = -errno;

		safe_close(proc_fd);
		return r;
	}
	while ((de = readdir(d))) {
		const char *name, *end;
		ProcfsStat st;
		uint64_t pid;
		unsigned irq;

		if (parse_decimal_prefix(de->d_name, INT_MAX, &pid, &end) < 0 || *end || pid == 0)
			continue;
		if (procfs_stat_read(proc_root, (pid_t)pid, 0, &st) < 0 || st.n_fields < 41)
			continue; /* gone meanwhile, or not ours to read */
		if (!(st.flags & PF_KTHREAD) ||
		    procfs_irq_thread_name_parse(st.comm, &irq, &name) < 0)
			continue;

		IrqThread t = { .irq = irq,
				.pid = (pid_t)pid,
				.policy = st.policy,
				.priority = st.rt_priority,
				.nice = st.nice };
		t.action = find_action(dirfd(d), irq, name);
		if (!t.action)
			t.action = strdup(name);
		if (!t.action || irq_threads_append(&threads, &n, &allocated, t) < 0)
			goto oom;
	}
	if (n > 0)
		qsort(threads, n, sizeof(*threads), irq_thread_compare);
	*ret = threads;
	*ret_n = n;
	return 0;
oom:
	procfs_irq_threads_free(threads, n);
	return -ENOMEM;
}
