// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * [IRQ] rules for IRQ threads that appear after start: a USB audio interface
 * plugged in later, a driver reloaded.
 *
 * With realtime.ko loaded the rules are handed to it in one write to
 * /proc/realtime/irq_rules; the module applies them to existing threads and
 * catches new ones itself. Without it the daemon applies them (irq.c) and
 * listens to the kernel's uevents: a device added or a driver bound arms a
 * one-second timer, after which the rules are applied again. The delay lets a
 * new IRQ thread first run and set itself to FIFO 50. No uevent, no wakeup.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "irq-monitor.h"
#include "irq.h"
#include "log.h"
#include "macro.h"

#define KMOD_IRQ_RULES "/proc/realtime/irq_rules"
#define KMOD_WRITE_MAX 4095
#define IRQ_SETTLE_USEC (1000ULL * 1000ULL)

/* Replaces realtime.ko's rule set with the policy's, in one write ("-"
 * first clears the old set). -ENOENT when the module is not loaded. */
static int irq_rules_to_kmod(const Policy *p)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[KMOD_WRITE_MAX + 1];
	size_t used;
	ssize_t n;

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
	fd = open(KMOD_IRQ_RULES, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, used);
	if (n < 0)
		return -errno;
	return (size_t)n == used ? 0 : -EIO;
}

void daemon_irq_apply(Daemon *d)
{
	int r;

	r = irq_rules_to_kmod(d->policy);
	if (r >= 0) {
		if (!d->irq_kmod)
			log_id(LOG_INFO, LOG_ID_IRQ,
			       "Handed %zu [IRQ] rules to realtime.ko; it applies them to IRQ "
			       "threads now and later",
			       policy_n_irq_rules(d->policy));
		d->irq_kmod = true;
		return;
	}
	if (r != -ENOENT)
		log_warning_errno(r,
				  "Failed to hand [IRQ] rules to realtime.ko (%s): %m; "
				  "applying them from the daemon instead",
				  KMOD_IRQ_RULES);
	d->irq_kmod = false;
	(void)irq_apply_rules(d->grants->proc, d->policy);
}

static int on_irq_settled(sd_event_source *s, uint64_t usec, void *userdata)
{
	daemon_irq_apply(userdata);
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
	}
	if (!relevant || d->irq_kmod || policy_n_irq_rules(d->policy) == 0)
		return 0;
	if (d->irq_timer) {
		r = sd_event_source_get_enabled(d->irq_timer, NULL);
		if (r > 0)
			return 0; /* already armed: one re-apply covers a burst */
		r = sd_event_source_set_time_relative(d->irq_timer, IRQ_SETTLE_USEC);
		if (r >= 0)
			r = sd_event_source_set_enabled(d->irq_timer, SD_EVENT_ONESHOT);
	} else
		r = sd_event_add_time_relative(d->event, &d->irq_timer, CLOCK_MONOTONIC,
					       IRQ_SETTLE_USEC, 0, on_irq_settled, d);
	if (r < 0)
		log_warning_errno(r, "Failed to arm the IRQ re-apply timer: %m");
	return 0;
}

int daemon_irq_monitor_start(Daemon *d)
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
	if (r < 0)
		return log_warning_errno(r, "Failed to watch uevents: %m");
	r = sd_event_source_set_io_fd_own(d->uevent_source, true);
	if (r < 0)
		return log_warning_errno(r, "Failed to watch uevents: %m");
	TAKE_FD(fd);
	return 0;
}

void daemon_irq_monitor_stop(Daemon *d)
{
	d->uevent_source = sd_event_source_disable_unref(d->uevent_source);
	d->irq_timer = sd_event_source_disable_unref(d->irq_timer);
}
