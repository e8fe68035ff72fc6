// SPDX-License-Identifier: GPL-2.0-or-later
/* irqbalance, told over its socket; see shield-irqbalance.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"
#include "parse.h"
#include "procfs-stat.h"
#include "shield-irqbalance.h"

/* irqbalance reads one message of at most 500 bytes. */
#define IRQBALANCE_MESSAGE_MAX 480
#define IRQBALANCE_IRQS_MAX 128

static int socket_path(const ShieldRoots *roots, pid_t pid, struct sockaddr_un *ret)
{
	*ret = (struct sockaddr_un){ .sun_family = AF_UNIX };
	if ((size_t)snprintf(ret->sun_path, sizeof(ret->sun_path),
			     "%s/irqbalance/irqbalance%d.sock", roots->run,
			     (int)pid) >= sizeof(ret->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/* Sends msg to irqbalance pid, with the credentials it checks, and reads
 * its answer into reply (NULL: none is expected). */
static int exchange(const ShieldRoots *roots, pid_t pid, const char *msg, char *reply, size_t size)
{
	struct timeval tv = { .tv_usec = IRQBALANCE_TIMEOUT_MSEC * 1000 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct ucred))];
	} control = {};
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = strlen(msg) };
	struct msghdr mh = { .msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = control.buf,
			     .msg_controllen = sizeof(control.buf) };
	struct ucred cred = { .pid = getpid(), .uid = geteuid(), .gid = getegid() };
	_cleanup_close_ int fd = -EBADF;
	struct sockaddr_un sa;
	struct cmsghdr *c;
	size_t got = 0;
	int r;

	r = socket_path(roots, pid, &sa);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(cred));
	memcpy(CMSG_DATA(c), &cred, sizeof(cred));
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		return -errno ?: -EIO;
	if (!reply)
		return 0;
	while (got + 1 < size) {
		ssize_t n = read(fd, reply + got, size - 1 - got);

		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	reply[got] = '\0';
	return got > 0 ? 0 : -ENODATA;
}

/* Adds v to list (sorted, each once, at most IRQBALANCE_IRQS_MAX). */
static void irq_list_add(unsigned *list, size_t *n, unsigned v)
{
	size_t i = *n;

	for (size_t j = 0; j < *n; j++)
		if (list[j] == v)
			return;
	if (*n >= IRQBALANCE_IRQS_MAX)
		return;
	while (i > 0 && list[i - 1] > v) {
		list[i] = list[i - 1];
		i--;
	}
	list[i] = v;
	(*n)++;
}

/* list as "43 44" into buf; -E2BIG when it does not fit. */
static int irq_list_format(const unsigned *list, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int l = snprintf(buf + used, size - used, "%s%u", i ? " " : "", list[i]);

		if (l < 0 || (size_t)l >= size - used)
			return -E2BIG;
		used += (size_t)l;
	}
	return 0;
}

/* The numbers of s ("44 43") added to list. */
static void irq_list_parse(const char *s, unsigned *list, size_t *n)
{
	uint64_t v;

	for (const char *p = s; *p;) {
		p += strspn(p, " ");
		if (parse_decimal_prefix(p, UINT32_MAX, &v, &p) < 0)
			break;
		irq_list_add(list, n, (unsigned)v);
	}
}

/* The banned CPUs (as a list) and IRQs ("43 44", sorted) of a "setup"
 * answer. -EBADMSG for an answer without BANNED. */
static int parse_setup(char *s, char *banned, size_t banned_size, char *irqs, size_t irqs_size)
{
	unsigned list[IRQBALANCE_IRQS_MAX];
	size_t n = 0;
	bool have_banned = false;
	char *save = NULL;
	uint64_t v;

	irqs[0] = '\0';
	for (char *t = strtok_r(s, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
		char *arg = strtok_r(NULL, " \n", &save);
		CpuSet cpus;

		if (!arg)
			break;
		if (streq(t, "IRQ") && parse_decimal(arg, UINT32_MAX, &v) >= 0)
			irq_list_add(list, &n, (unsigned)v);
		else if (streq(t, "BANNED")) {
			if (cpu_set_parse_mask(arg, &cpus) < 0 ||
			    cpu_set_format_list(&cpus, banned, banned_size) < 0)
				return -EBADMSG;
			have_banned = true;
		}
	}
	if (!have_banned || irq_list_format(list, n, irqs, irqs_size) < 0)
		return -EBADMSG;
	return 0;
}

static int query(const ShieldRoots *roots, pid_t pid, char *banned, size_t banned_size, char *irqs,
		 size_t irqs_size)
{
	char reply[8192];
	int r;

	r = exchange(roots, pid, "setup", reply, sizeof(reply));
	if (r < 0)
		return r;
	return parse_setup(reply, banned, banned_size, irqs, irqs_size);
}

static bool is_irqbalance(const char *proc, pid_t pid)
{
	ProcfsStat st;

	return procfs_stat_read(proc, pid, 0, &st) >= 0 && streq(st.comm, "irqbalance");
}

void shield_irqbalance_find(const ShieldRoots *roots, ShieldIrqbalance *ret)
{
	_cleanup_(closedirp) DIR *d = opendir(roots->proc);
	struct sockaddr_un sa;
	struct dirent *de;
	uint64_t v;
	int r;

	*ret = (ShieldIrqbalance){ .state = SHIELD_IRQBALANCE_ABSENT };
	while (d && (de = readdir(d)))
		if (parse_decimal(de->d_name, INT32_MAX, &v) >= 0 && v > 0 &&
		    is_irqbalance(roots->proc, (pid_t)v)) {
			ret->pid = (pid_t)v;
			break;
		}
	if (ret->pid == 0)
		return;
	r = query(roots, ret->pid, ret->banned, sizeof(ret->banned), ret->irqs, sizeof(ret->irqs));
	if (r >= 0) {
		ret->state = SHIELD_IRQBALANCE_TOLD;
		return;
	}
	ret->state = SHIELD_IRQBALANCE_UNREACHABLE;
	(void)socket_path(roots, ret->pid, &sa);
	snprintf(ret->why, sizeof(ret->why), "irqbalance (pid %d) runs, but its socket %s %s",
		 (int)ret->pid, sa.sun_path,
		 r == -ENOENT	 ? "does not exist"
		 : r == -EBADMSG ? "answers in a way realtimed does not know"
				 : strerror(-r));
}

int shield_irqbalance_plan(const ShieldIrqbalance *ib, const CpuSet *shield, const unsigned *kept,
			   size_t n_kept, ShieldRecord *record)
{
	char want_cpus[256], want_irqs[IRQBALANCE_MESSAGE_MAX - sizeof("settings ban irqs ")];
	unsigned list[IRQBALANCE_IRQS_MAX];
	size_t n = 0;
	CpuSet cpus;
	int r;

	if (ib->state != SHIELD_IRQBALANCE_TOLD)
		return 0;
	irq_list_parse(ib->irqs, list, &n);
	for (size_t i = 0; i < n_kept; i++)
		irq_list_add(list, &n, kept[i]);
	if (irq_list_format(list, n, want_irqs, sizeof(want_irqs)) < 0)
		return -E2BIG;
	if (cpu_set_parse_list(ib->banned, &cpus) < 0)
		return -EBADMSG;
	cpu_set_or(&cpus, &cpus, shield);
	if (cpu_set_format_list(&cpus, want_cpus, sizeof(want_cpus)) < 0)
		return -E2BIG;
	r = shield_record_add(record, SHIELD_KIND_IRQBALANCE_CPUS, (unsigned)ib->pid, "",
			      ib->banned, want_cpus, false);
	if (r >= 0 && n_kept > 0)
		r = shield_record_add(record, SHIELD_KIND_IRQBALANCE_IRQS, (unsigned)ib->pid, "",
				      ib->irqs, want_irqs, false);
	return r;
}

/* "settings cpus LIST" or "settings ban irqs N N", for value. */
static int send_setting(const ShieldRoots *roots, pid_t pid, ShieldKind kind, const char *value)
{
	char msg[IRQBALANCE_MESSAGE_MAX + 32];

	if (kind == SHIELD_KIND_IRQBALANCE_CPUS)
		snprintf(msg, sizeof(msg), "settings cpus %s", isempty(value) ? "NULL" : value);
	else
		snprintf(msg, sizeof(msg), "settings ban irqs %s", isempty(value) ? "NONE" : value);
	return exchange(roots, pid, msg, NULL, 0);
}

int shield_irqbalance_apply(const ShieldRoots *roots, const ShieldEntry *e)
{
	return send_setting(roots, (pid_t)e->id, e->kind, e->want);
}

/* Do a and b (CPU lists, or IRQ lists) hold the same? */
static bool same_setting(ShieldKind kind, const char *a, const char *b)
{
	CpuSet x, y;

	if (kind == SHIELD_KIND_IRQBALANCE_IRQS) {
		unsigned la[IRQBALANCE_IRQS_MAX], lb[IRQBALANCE_IRQS_MAX];
		size_t na = 0, nb = 0;

		irq_list_parse(a, la, &na);
		irq_list_parse(b, lb, &nb);
		return na == nb && memcmp(la, lb, na * sizeof(*la)) == 0;
	}
	return cpu_set_parse_list(a, &x) >= 0 && cpu_set_parse_list(b, &y) >= 0 &&
	       cpu_set_equal(&x, &y);
}

int shield_irqbalance_restore(const ShieldRoots *roots, const ShieldEntry *e, bool *ret_gone)
{
	char banned[256], irqs[256];
	const char *now;
	int r;

	*ret_gone = !is_irqbalance(roots->proc, (pid_t)e->id);
	if (*ret_gone)
		return 0;
	r = query(roots, (pid_t)e->id, banned, sizeof(banned), irqs, sizeof(irqs));
	if (r < 0)
		return r;
	now = e->kind == SHIELD_KIND_IRQBALANCE_CPUS ? banned : irqs;
	/* BANNED shows the shield's CPUs only after irqbalance's next pass */
	if (!same_setting(e->kind, now, e->want) && !same_setting(e->kind, now, e->before))
		return 0;
	r = send_setting(roots, (pid_t)e->id, e->kind, e->before);
	return r < 0 ? r : 1;
}
