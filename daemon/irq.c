// SPDX-License-Identifier: GPL-2.0-or-later
/* The [IRQ] rules; see irq.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "irq.h"
#include "log.h"
#include "macro.h"
#include "procfs-irq.h"
#include "sched-util.h"
#include "shield.h"

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

/* After start: a device added or a driver bound arms a one-second timer,
 * after which the rules are applied again (a new IRQ thread first sets
 * itself to FIFO 50). */
#define IRQ_SETTLE_USEC (1000ULL * 1000ULL)

static int on_irq_settled(sd_event_source *s, uint64_t usec, void *userdata)
{
	Daemon *d = userdata;

	d->irq_timer = sd_event_source_disable_unref(d->irq_timer);
	irq_apply(d);
	return 0;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Daemon *d = userdata;
	bool relevant = false;
	char buf[8192];
	int r;

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n < 0)
			break; /* EAGAIN: drained; ENOBUFS: lost some, re-apply anyway */
		buf[n] = '\0';
		/* kernel uevents start with "ACTION@DEVPATH" */
		if (startswith(buf, "add@") || startswith(buf, "bind@"))
			relevant = true;
		shield_uevent(d->shield, buf);
	}
	/* a timer armed already: its one re-apply covers a burst */
	if (!relevant || d->irq_kmod || policy_n_irq_rules(d->policy) == 0 || d->irq_timer)
		return 0;
	r = sd_event_add_time_relative(d->event, &d->irq_timer, CLOCK_MONOTONIC, IRQ_SETTLE_USEC, 0,
				       on_irq_settled, d);
	if (r < 0)
		log_warning_errno(r, "Failed to arm the IRQ re-apply timer: %m");
	return 0;
}

int irq_monitor_start(Daemon *d)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 /* kernel uevents */ };
	_cleanup_close_ int fd = -EBADF;
	int r;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return log_warning_errno(errno,
					 "Failed to open a uevent socket: %m; IRQ threads "
					 "created later get [IRQ] priorities only on reload");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return log_warning_errno(errno,
					 "Failed to listen to uevents: %m; IRQ threads "
					 "created later get [IRQ] priorities only on reload");
	r = sd_event_add_io(d->event, &d->uevent_source, fd, EPOLLIN, on_uevent, d);
	if (r >= 0)
		r = sd_event_source_set_io_fd_own(d->uevent_source, true);
	if (r < 0)
		return log_warning_errno(r, "Failed to watch uevents: %m");
	TAKE_FD(fd);
	return 0;
}

void irq_monitor_stop(Daemon *d)
{
	d->uevent_source = sd_event_source_disable_unref(d->uevent_source);
	d->irq_timer = sd_event_source_disable_unref(d->irq_timer);
}
