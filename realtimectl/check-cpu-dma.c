/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl check's cpu-dma-latency, and the line realtimectl status
 * prints: whether realtimed holds /dev/cpu_dma_latency ([Daemon]
 * CpuDmaLatency=, its CpuDmaLatency property), the value in force (the
 * device reads back the kernel's effective one, as an s32; root only), and
 * who else holds it: another process with it open (its /proc/PID/fd), or,
 * when no process does, a driver's request in the kernel.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl-check.h"

#define CPU_DMA_PATH "/dev/cpu_dma_latency"
/* The kernel's value when nobody asks for anything (PM_QOS_CPU_LATENCY_DEFAULT_VALUE). */
#define CPU_DMA_DEFAULT_USEC 2000000000LL

void cpu_dma_hold_describe(const CpuDmaHold *h, char *buf, size_t size)
{
	if (!h->known)
		snprintf(buf, size, "not known (this realtimed does not say)");
	else if (streq(h->state, "held"))
		snprintf(buf, size, "held at %lld µs for %u realtime grant%s", h->usec, h->grants,
			 h->grants == 1 ? "" : "s");
	else if (streq(h->state, "released"))
		snprintf(buf, size,
			 "not held: no realtime grant is supervised (CpuDmaLatency=%lldus holds it "
			 "while one is)",
			 h->usec);
	else if (streq(h->state, "failed"))
		snprintf(buf, size, "not held: %s (CpuDmaLatency=%lldus, %u realtime grant%s)",
			 h->error[0] ? h->error : "it could not be opened", h->usec, h->grants,
			 h->grants == 1 ? "" : "s");
	else
		snprintf(buf, size, "not configured ([Daemon] CpuDmaLatency= is unset)");
}

/* The kernel's effective value, read back from the device as an s32. */
static int read_effective(const CheckContext *c, long long *ret)
{
	_cleanup_free_ char *path = check_path(c, CPU_DMA_PATH);
	int32_t v;
	ssize_t n;
	int fd;

	if (!path)
		return -ENOMEM;
	/* O_NONBLOCK: a canned tree's FIFO, or anything odd, must not hang */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = read(fd, &v, sizeof(v));
	safe_close(fd); /* keeps read()'s errno for the answer */
	if (n != (ssize_t)sizeof(v))
		return n < 0 ? -errno : -EIO;
	*ret = v;
	return 0;
}

/* Does process dir (a /proc/PID under the root) have the device open? */
static bool holds_device(const CheckContext *c, const char *pid)
{
	_cleanup_free_ char *fddir = NULL;
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (asprintf(&fddir, "/proc/%s/fd", pid) < 0)
		return false;
	d = check_opendir(c, fddir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		_cleanup_free_ char *link = NULL, *path = NULL;
		char target[sizeof(CPU_DMA_PATH) + 1];
		ssize_t n;

		if (!isdigit((unsigned char)de->d_name[0]) ||
		    asprintf(&link, "%s/%s", fddir, de->d_name) < 0 ||
		    !(path = check_path(c, link)))
			continue;
		n = readlink(path, target, sizeof(target));
		found = n == (ssize_t)strlen(CPU_DMA_PATH) && memcmp(target, CPU_DMA_PATH, n) == 0;
	}
	closedir(d);
	return found;
}

/* "pipewire (pid 812), cyclictest (pid 904)": the processes other than
 * realtimed that hold the device open, into buf; how many. Root sees
 * every process's fds; another user only their own. */
static unsigned other_holders(const CheckContext *c, pid_t realtimed, char *buf, size_t size)
{
	DIR *d = check_opendir(c, "/proc");
	struct dirent *de;
	unsigned n = 0;

	buf[0] = '\0';
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		_cleanup_free_ char *comm_path = NULL, *comm = NULL;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (pid == realtimed || pid == getpid() || !holds_device(c, de->d_name))
			continue;
		if (asprintf(&comm_path, "/proc/%s/comm", de->d_name) < 0 ||
		    check_read(c, comm_path, &comm) < 0)
			comm = NULL;
		strbuf_append(buf, size, "%s%s (pid %d)", n ? ", " : "", comm ?: "?", (int)pid);
		n++;
	}
	closedir(d);
	return n;
}

void check_cpu_dma_latency(const CheckContext *c, CheckResult *r)
{
	CheckBus bus = { .max_priority = -1 };
	char value[CHECK_VALUE_MAX], daemon[256], others[256] = "", effective[32];
	const CpuDmaHold *h = &bus.cpu_dma;
	bool held, configured;
	long long eff = -1;
	unsigned n_others;
	int er;

	if (c->bus_query)
		c->bus_query(&bus);
	held = h->known && streq(h->state, "held");
	configured = h->known && !streq(h->state, "unset");
	er = read_effective(c, &eff);
	n_others = other_holders(c, bus.realtimed ? bus.realtimed_pid : 0, others, sizeof(others));
	if (bus.realtimed)
		cpu_dma_hold_describe(h, daemon, sizeof(daemon));
	else
		snprintf(daemon, sizeof(daemon), "none (realtimed is not running)");

	if (er >= 0)
		snprintf(effective, sizeof(effective), "%lld", eff);
	else
		snprintf(effective, sizeof(effective), "%s",
			 er == -EACCES || er == -EPERM ? "needs-root" : "?");
	snprintf(value, sizeof(value), "effective=%s realtimed=%s", effective,
		 !bus.realtimed ? "not-running"
		 : !h->known	? "unknown"
				: h->state);
	if (configured)
		strbuf_append(value, sizeof(value), ":%lldus:%u", h->usec, h->grants);
	strbuf_append(value, sizeof(value), " others=%s", n_others ? others : "none");

	if (er == -ENOENT) {
		check_set(r, CHECK_SKIP, value,
			  "this kernel has no %s: CPU idle states cannot be held off that way",
			  CPU_DMA_PATH);
		return;
	}
	if (h->known && streq(h->state, "failed")) {
		check_set(r, CHECK_WARN, value, "realtimed's CPU latency request: %s", daemon);
		check_hint(
			r,
			"realtimed needs %s in its /dev, writable by root (realtimed.service "
			"binds it with BindPaths= and DeviceAllow=); journalctl -u realtimed says "
			"what failed",
			CPU_DMA_PATH);
		return;
	}
	/* someone else: a value in force below what realtimed holds (or
	 * below the default when it holds nothing); where the value cannot
	 * be read, a process with the device open. A process that has it
	 * open at the default holds nothing. */
	if (er >= 0 ? eff < (held ? h->usec : CPU_DMA_DEFAULT_USEC) : n_others > 0) {
		char at[48] = "";

		if (er >= 0)
			snprintf(at, sizeof(at), " at %lld µs", eff);
		check_set(r, CHECK_INFO, value, "%s is held%s by %s; realtimed's request: %s",
			  CPU_DMA_PATH, at,
			  n_others ? others : "a driver, or a process this user cannot see",
			  daemon);
		return;
	}
	if (configured) {
		check_set(r, CHECK_OK, value, "realtimed's CPU latency request: %s", daemon);
		return;
	}
	check_set(r, CHECK_INFO, value,
		  "nothing holds the CPUs out of deep C-states, whose exit costs an audio thread "
		  "tens to hundreds of µs; realtimed's request: %s (CpuDmaLatency= in "
		  "realtime.conf(5), at a cost in power and heat)",
		  daemon);
}
