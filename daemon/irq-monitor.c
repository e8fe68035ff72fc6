// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A device added or a driver bound arms a one-second timer, after which the
 * rules are applied again: a new IRQ thread first sets itself to FIFO 50.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>

#include "irq-monitor.h"
#include "irq.h"
#include "log.h"
#include "macro.h"

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
