/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's checks of realtimectl check (ctl-check.h): preemption model,
 * threaded IRQs, RT throttling, RT group scheduling, a sched_ext BPF
 * scheduler, timers, SMT, CPU
 * mitigations and realtime.ko. Each reads /proc, /sys and /boot under the
 * context's root and fills one CheckResult.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-check.h"

#define GRUB_HINT "edit GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run update-grub and reboot"

typedef enum Preempt {
	PREEMPT_NONE,
	PREEMPT_VOLUNTARY,
	PREEMPT_FULL,
	PREEMPT_LAZY,
	PREEMPT_RT,
	PREEMPT_UNKNOWN,
} Preempt;

static const char *const preempt_names[] = {
	[PREEMPT_NONE] = "none", [PREEMPT_VOLUNTARY] = "voluntary", [PREEMPT_FULL] = "full",
	[PREEMPT_LAZY] = "lazy", [PREEMPT_RT] = "PREEMPT_RT",	    [PREEMPT_UNKNOWN] = "unknown",
};

static Preempt preempt_from_string(const char *s)
{
	for (size_t i = 0; i < PREEMPT_RT; i++)
		if (streq(s, preempt_names[i]))
			return (Preempt)i;
	return PREEMPT_UNKNOWN;
}

static bool kernel_is_rt(const CheckContext *c)
{
	long long v = 0;
	char buf[8];

	/* /sys/kernel/realtime exists (and reads 1) on PREEMPT_RT kernels only */
	if (check_read_long(c, "/sys/kernel/realtime", &v) >= 0 && v == 1)
		return true;
	if (check_kconfig(c, "CONFIG_PREEMPT_RT", buf, sizeof(buf)))
		return streq(buf, "y");
	return c->version && strstr(c->version, "PREEMPT_RT");
}

static bool kernel_is_dynamic(const CheckContext *c)
{
	char buf[8];

	if (check_kconfig(c, "CONFIG_PREEMPT_DYNAMIC", buf, sizeof(buf)))
		return streq(buf, "y");
	return c->version && strstr(c->version, "PREEMPT_DYNAMIC");
}

/* The model in force, and where that was learnt (for the value). */
static Preempt kernel_preempt(const CheckContext *c, const char **ret_how)
{
	_cleanup_free_ char *dbg = NULL;
	char buf[32];

	*ret_how = "kernel config";
	if (kernel_is_rt(c))
		return PREEMPT_RT;
	/* debugfs (root): "none voluntary (full) lazy", the mode in brackets */
	if (check_read(c, "/sys/kernel/debug/sched/preempt", &dbg) >= 0) {
		char *o = strchr(dbg, '('), *e = o ? strchr(o, ')') : NULL;

		if (e) {
			*e = '\0';
			*ret_how = "/sys/kernel/debug/sched/preempt";
			return preempt_from_string(o + 1);
		}
	}
	if (kernel_is_dynamic(c) && check_cmdline_word(c, "preempt", buf, sizeof(buf))) {
		*ret_how = "preempt= on the command line";
		return preempt_from_string(buf);
	}
	/* the configured default (the boot default of a PREEMPT_DYNAMIC kernel) */
	if (c->kconfig) {
		if (check_kconfig(c, "CONFIG_PREEMPT_LAZY", buf, sizeof(buf)))
			return PREEMPT_LAZY;
		if (check_kconfig(c, "CONFIG_PREEMPT", buf, sizeof(buf)))
			return PREEMPT_FULL;
		if (check_kconfig(c, "CONFIG_PREEMPT_VOLUNTARY", buf, sizeof(buf)))
			return PREEMPT_VOLUNTARY;
		if (check_kconfig(c, "CONFIG_PREEMPT_NONE", buf, sizeof(buf)))
			return PREEMPT_NONE;
	}
	*ret_how = "/proc/version";
	if (c->version && !kernel_is_dynamic(c) && strstr(c->version, " PREEMPT "))
		return PREEMPT_FULL;
	return PREEMPT_UNKNOWN;
}

/* Whether Debian's -rt kernel can be had: "installed", "installable
 * (VERSION)" or why not, into value; the hint's tail into how. */
static void rt_kernel_offer(const CheckContext *c, char *value, size_t vsize, char *how,
			    size_t hsize)
{
	char version[64] = "";
	int k;

	if (!check_exists(c, "/etc/debian_version"))
		return;
	if (check_dpkg_version(c, RT_KERNEL_PACKAGE, version, sizeof(version))) {
		strbuf_append(value, vsize, ", %s %s installed", RT_KERNEL_PACKAGE, version);
		snprintf(how, hsize,
			 "boot the installed PREEMPT_RT kernel (%s; pick it in GRUB's "
			 "\"Advanced options\" or set GRUB_DEFAULT)",
			 RT_KERNEL_PACKAGE);
		return;
	}
	k = check_apt_candidate(c, RT_KERNEL_PACKAGE, version, sizeof(version));
	if (k >= 0) {
		strbuf_append(value, vsize, ", %s %s installable", RT_KERNEL_PACKAGE, version);
		snprintf(how, hsize,
			 "install Debian's PREEMPT_RT kernel: apt install %s, and boot it",
			 RT_KERNEL_PACKAGE);
	} else if (k == -ETIMEDOUT) {
		strbuf_append(value, vsize, ", %s: apt-cache policy gave no answer within %d s",
			      RT_KERNEL_PACKAGE, APT_CACHE_TIMEOUT_MS / 1000);
		snprintf(how, hsize,
			 "see whether apt can install Debian's PREEMPT_RT kernel: "
			 "apt-cache policy %s; then apt install %s",
			 RT_KERNEL_PACKAGE, RT_KERNEL_PACKAGE);
	} else if (k == -ENODATA) {
		strbuf_append(value, vsize, ", %s: no apt lists", RT_KERNEL_PACKAGE);
		snprintf(how, hsize,
			 "run apt update, then apt install %s (Debian's PREEMPT_RT kernel)",
			 RT_KERNEL_PACKAGE);
	} else {
		strbuf_append(value, vsize, ", %s not in the apt lists", RT_KERNEL_PACKAGE);
		snprintf(how, hsize,
			 "add Debian's main archive to /etc/apt/sources.list, run apt "
			 "update, then apt install %s",
			 RT_KERNEL_PACKAGE);
	}
}

void check_kernel_preempt(const CheckContext *c, CheckResult *r)
{
	const char *how;
	Preempt p = kernel_preempt(c, &how);
	bool dynamic = p != PREEMPT_RT && kernel_is_dynamic(c);
	char value[CHECK_VALUE_MAX], rt_how[256] = "";

	snprintf(value, sizeof(value), "%s%s (from %s)", preempt_names[p],
		 dynamic ? ", PREEMPT_DYNAMIC" : "", how);
	if (p != PREEMPT_RT)
		rt_kernel_offer(c, value, sizeof(value), rt_how, sizeof(rt_how));
	switch (p) {
	case PREEMPT_RT:
		check_set(r, CHECK_OK, value, "PREEMPT_RT kernel: the lowest latencies Linux has");
		return;
	case PREEMPT_FULL:
	case PREEMPT_LAZY:
		check_set(r, CHECK_OK, value, "fully preemptible kernel (%s)", preempt_names[p]);
		return;
	case PREEMPT_NONE:
	case PREEMPT_VOLUNTARY:
		check_set(r, CHECK_WARN, value,
			  "kernel preemption is '%s': a kernel code path can delay an audio "
			  "thread for milliseconds",
			  preempt_names[p]);
		break;
	case PREEMPT_UNKNOWN:
		check_set(r, CHECK_INFO, value,
			  "preemption model unknown (no kernel config in /boot, no debugfs)");
		return;
	}
	if (dynamic)
		check_hint(r, "add preempt=full to the kernel command line (%s)%s%s", GRUB_HINT,
			   rt_how[0] ? ", or " : "", rt_how);
	else if (rt_how[0])
		check_hint(r, "%s", rt_how);
	else
		check_hint(r,
			   "boot a kernel built with CONFIG_PREEMPT, CONFIG_PREEMPT_DYNAMIC (then "
			   "preempt=full) or CONFIG_PREEMPT_RT");
}

bool check_irqs_threaded(const CheckContext *c)
{
	return kernel_is_rt(c) || check_cmdline_word(c, "threadirqs", NULL, 0);
}

void check_threadirqs(const CheckContext *c, CheckResult *r)
{
	if (kernel_is_rt(c)) {
		check_set(r, CHECK_OK, "PREEMPT_RT",
			  "IRQ handlers run in threads (always, on PREEMPT_RT)");
		return;
	}
	if (!c->cmdline) {
		check_skip_errno(r, "/proc/cmdline", ENOENT);
		return;
	}
	if (check_cmdline_word(c, "threadirqs", NULL, 0)) {
		check_set(r, CHECK_OK, "threadirqs",
			  "IRQ handlers run in threads (threadirqs): their priorities can be set");
		return;
	}
	check_set(r, CHECK_WARN, "not threaded",
		  "IRQ handlers run in interrupt context: the [IRQ] rules have nothing to act on, "
		  "and every device's interrupt preempts audio threads");
	check_hint(r, "add threadirqs to the kernel command line (%s)", GRUB_HINT);
}

void check_rt_throttling(const CheckContext *c, CheckResult *r)
{
	static const char runtime_path[] = "/proc/sys/kernel/sched_rt_runtime_us";
	long long runtime, period;
	char value[64];
	int e;

	e = check_read_long(c, runtime_path, &runtime);
	if (e >= 0)
		e = check_read_long(c, "/proc/sys/kernel/sched_rt_period_us", &period);
	if (e < 0) {
		check_skip_errno(r, runtime_path, e);
		return;
	}
	snprintf(value, sizeof(value), "%lld/%lld", runtime, period);
	if (runtime < 0) {
		check_set(
			r, CHECK_WARN, value,
			"RT throttling is off (sched_rt_runtime_us=-1): a runaway realtime thread "
			"can freeze this machine");
		check_hint(r,
			   "sysctl -w kernel.sched_rt_runtime_us=950000, and remove the line that "
			   "sets it to -1 from /etc/sysctl.conf or /etc/sysctl.d/; realtimed's "
			   "canary demotes runaways, the throttle is the kernel's last resort");
		return;
	}
	if (period <= 0 || runtime * 2 < period) {
		check_set(r, CHECK_WARN, value,
			  "realtime threads may use only %lld µs of every %lld µs: audio threads "
			  "will be throttled under load",
			  runtime, period);
		check_hint(r, "sysctl -w kernel.sched_rt_runtime_us=950000 (and set it in "
			      "/etc/sysctl.d/90-realtime.conf for every boot)");
		return;
	}
	check_set(r, CHECK_OK, value,
		  "realtime threads may use %lld%% of each %lld ms; the rest keeps the machine "
		  "responsive if one runs away",
		  runtime * 100 / period, period / 1000);
}

/* The cgroup of the checked session: the cpu controller's path for v1,
 * the unified path for v2. */
static bool session_cgroup(const CheckContext *c, char *ret, size_t size, bool *ret_v1)
{
	_cleanup_free_ char *text = NULL;
	char path[64];
	bool found = false;

	if (check_read_session(c, "cgroup", path, sizeof(path), &text) < 0)
		return false;
	for (char *p = text; p && *p;) {
		char *nl = strchrnul(p, '\n'), *ctrl = strchr(p, ':'), *cg;

		cg = ctrl && ctrl < nl ? strchr(ctrl + 1, ':') : NULL;
		if (cg && cg < nl) {
			size_t lc = cg - ctrl - 1;
			bool cpu = false;

			for (char *t = ctrl + 1; t < cg;) {
				size_t n = strcspn(t, ",:");

				cpu = cpu || (n == 3 && strncmp(t, "cpu", 3) == 0);
				t += n + (t[n] == ',');
			}
			if (cpu || (lc == 0 && !found)) {
				snprintf(ret, size, "%.*s", (int)(nl - cg - 1), cg + 1);
				*ret_v1 = cpu;
				found = true;
				if (cpu)
					break;
			}
		}
		p = *nl ? nl + 1 : nl;
	}
	return found;
}

void check_rt_group_sched(const CheckContext *c, CheckResult *r)
{
	static const char *const bases[] = { "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu",
					     "/sys/fs/cgroup" };
	char buf[8], cg[256], value[CHECK_VALUE_MAX];
	bool v1 = false;

	if (c->kconfig && !check_kconfig(c, "CONFIG_RT_GROUP_SCHED", buf, sizeof(buf))) {
		check_set(r, CHECK_OK, "not built in",
			  "no RT group scheduling in this kernel: no cgroup can run out of "
			  "realtime budget");
		return;
	}
	if (!session_cgroup(c, cg, sizeof(cg), &v1)) {
		check_set(r, CHECK_SKIP, "", "cannot tell the session's cgroup (/proc/PID/cgroup)");
		return;
	}
	if (!cg[0])
		snprintf(cg, sizeof(cg), "/");
	for (size_t i = 0; i < ELEMENTSOF(bases); i++) {
		_cleanup_free_ char *file = NULL;
		long long budget;

		if (asprintf(&file, "%s%s%scpu.rt_runtime_us", bases[i], cg,
			     cg[strlen(cg) - 1] == '/' ? "" : "/") < 0)
			return;
		if (check_read_long(c, file, &budget) < 0)
			continue;
		snprintf(value, sizeof(value), "%s=%lld", file, budget);
		if (budget > 0) {
			check_set(
				r, CHECK_OK, value,
				"RT group scheduling: the session's cgroup has %lld µs of realtime "
				"budget per period",
				budget);
			return;
		}
		check_set(r, CHECK_FAIL, value,
			  "RT group scheduling: the session's cgroup %s has no realtime budget, so "
			  "every SCHED_FIFO/RR request fails with EPERM",
			  cg);
		check_hint(r,
			   "give the cgroup a budget (echo 100000 > %s, and its parents first), "
			   "or boot a kernel without CONFIG_RT_GROUP_SCHED, as Debian's are",
			   file);
		return;
	}
	snprintf(value, sizeof(value), "cgroup %s", cg);
	if (c->kconfig)
		check_set(
			r, CHECK_INFO, value,
			"RT group scheduling built in, but no cpu.rt_runtime_us for the session's "
			"cgroup: realtime threads run in the root group's budget");
	else
		check_set(r, CHECK_INFO, value,
			  "no cpu.rt_runtime_us for the session's cgroup (kernel config unknown)");
}

void check_timer(const CheckContext *c, CheckResult *r)
{
	_cleanup_free_ char *cs = NULL;
	char hz[16] = "?", hres[8] = "", nohz[16] = "periodic", buf[8];
	char value[CHECK_VALUE_MAX];
	bool have_hres;

	(void)check_read(c, "/sys/devices/system/clocksource/clocksource0/current_clocksource",
			 &cs);
	check_kconfig(c, "CONFIG_HZ", hz, sizeof(hz));
	have_hres = check_kconfig(c, "CONFIG_HIGH_RES_TIMERS", hres, sizeof(hres)) != NULL;
	if (check_kconfig(c, "CONFIG_NO_HZ_FULL", buf, sizeof(buf)))
		snprintf(nohz, sizeof(nohz), "full");
	else if (check_kconfig(c, "CONFIG_NO_HZ_IDLE", buf, sizeof(buf)))
		snprintf(nohz, sizeof(nohz), "idle");
	if (check_cmdline_word(c, "nohz", buf, sizeof(buf)) && streq(buf, "off"))
		snprintf(nohz, sizeof(nohz), "off");
	snprintf(value, sizeof(value), "clocksource=%s hres=%s HZ=%s nohz=%s", cs ?: "?",
		 c->kconfig ? (have_hres ? "yes" : "no") : "?", hz, c->kconfig ? nohz : "?");
	if (cs && (streq(cs, "jiffies") || streq(cs, "refined-jiffies"))) {
		check_set(r, CHECK_WARN, value,
			  "the clocksource is %s: timers are only as fine as the tick", cs);
		check_hint(r, "see dmesg for why the TSC or HPET was not used (\"clocksource\"); "
			      "clocksource=tsc on the kernel command line if it is stable");
		return;
	}
	if (c->kconfig && !have_hres) {
		check_set(r, CHECK_WARN, value,
			  "no high-resolution timers: sleeps are rounded to the tick (HZ=%s)", hz);
		check_hint(r, "boot a kernel built with CONFIG_HIGH_RES_TIMERS=y (every Debian "
			      "kernel is)");
		return;
	}
	if (!c->kconfig && !cs) {
		check_set(r, CHECK_SKIP, value, "no kernel config in /boot and no clocksource");
		return;
	}
	check_set(r, CHECK_OK, value, "%s timers, clocksource %s",
		  c->kconfig ? "high-resolution" : "probably high-resolution", cs ?: "unknown");
}

/* sched_ext (Documentation/scheduler/sched-ext.rst): while a BPF scheduler
 * is loaded, realtime threads still outrank it, but every other thread,
 * PipeWire's helpers and the IRQ-less half of an audio graph included,
 * runs under the BPF program's rules, and users report more xruns (scx
 * issue 2496). The state file says "enabled" (or enabling, disabling) then;
 * root/ops names the scheduler. */
void check_sched_ext(const CheckContext *c, CheckResult *r)
{
	_cleanup_free_ char *state = NULL, *ops = NULL;
	char value[CHECK_VALUE_MAX];
	int e;

	e = check_read(c, "/sys/kernel/sched_ext/state", &state);
	if (e == -ENOENT) {
		check_set(r, CHECK_OK, "not built in", "no sched_ext in this kernel");
		return;
	}
	if (e < 0) {
		check_skip_errno(r, "/sys/kernel/sched_ext/state", e);
		return;
	}
	if (streq(state, "disabled")) {
		check_set(r, CHECK_OK, state, "no BPF scheduler is loaded (sched_ext disabled)");
		return;
	}
	(void)check_read(c, "/sys/kernel/sched_ext/root/ops", &ops);
	snprintf(value, sizeof(value), "%s ops=%s", state, isempty(ops) ? "unknown" : ops);
	check_set(r, CHECK_WARN, value,
		  "the BPF scheduler %s is loaded (sched_ext %s): the threads around the audio "
		  "ones are scheduled by a BPF program, and users report more xruns with it",
		  isempty(ops) ? "(unknown)" : ops, state);
	check_hint(r, "stop the scx_* program that loaded it (sudo systemctl stop scx.service or "
		      "scx_loader.service, and disable it); echo S | sudo tee /proc/sysrq-trigger "
		      "switches back to the kernel's scheduler at once");
}

/* The kernel's word in smt/control (Documentation/ABI/testing/
 * sysfs-devices-system-cpu) while SMT is not active, as words. */
static const char *smt_off_words(const char *control)
{
	if (!control || streq(control, "off"))
		return "off";
	if (streq(control, "forceoff"))
		return "off for good (nosmt=force)";
	if (streq(control, "notsupported"))
		return "not supported by this CPU";
	if (streq(control, "notimplemented"))
		return "off (this kernel cannot control it)";
	return "off";
}

void check_smt(const CheckContext *c, CheckResult *r)
{
	_cleanup_free_ char *control = NULL;
	long long active = 0;
	int e;

	e = check_read_long(c, "/sys/devices/system/cpu/smt/active", &active);
	(void)check_read(c, "/sys/devices/system/cpu/smt/control", &control);
	if (e < 0 && !control) {
		check_skip_errno(r, "/sys/devices/system/cpu/smt/active", e);
		return;
	}
	if (active)
		check_set(r, CHECK_INFO, control ?: "on",
			  "SMT (hyper-threading) is on: two threads share each core; if xruns "
			  "persist, nosmt on the kernel command line trades throughput for "
			  "steadier latency");
	else
		check_set(r, CHECK_OK, control ?: "off", "SMT is %s", smt_off_words(control));
}

void check_mitigations(const CheckContext *c, CheckResult *r)
{
	static const char dir[] = "/sys/devices/system/cpu/vulnerabilities";
	_cleanup_free_ char *full = check_path(c, dir);
	char value[CHECK_VALUE_MAX], arg[128] = "auto";
	unsigned mitigated = 0, vulnerable = 0;
	struct dirent *de;
	DIR *d;

	check_cmdline_word(c, "mitigations", arg, sizeof(arg));
	d = full ? opendir(full) : NULL;
	if (!d) {
		check_skip_errno(r, dir, errno);
		return;
	}
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *text = NULL;

		if (de->d_name[0] == '.' || asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			continue;
		if (check_read(c, path, &text) < 0)
			continue;
		mitigated += !!startswith(text, "Mitigation");
		vulnerable += !!startswith(text, "Vulnerable");
	}
	closedir(d);
	snprintf(value, sizeof(value), "mitigations=%s mitigated=%u vulnerable=%u",
		 arg[0] ? arg : "auto", mitigated, vulnerable);
	check_set(r, CHECK_INFO, value,
		  "%u CPU vulnerabilities mitigated, %u not (mitigations=%s); they cost system "
		  "calls a little time, which realtime work rarely notices",
		  mitigated, vulnerable, arg[0] ? arg : "auto");
}

void check_realtime_module(const CheckContext *c, CheckResult *r)
{
	static const char *const settings[] = { "any", "gid", "mlock" };
	char value[CHECK_VALUE_MAX] = "";

	if (!check_exists(c, "/sys/module/realtime")) {
		check_set(r, CHECK_INFO, "not loaded",
			  "realtime.ko is not loaded: optional, everything else works without it "
			  "(realtime.ko(4))");
		return;
	}
	for (size_t i = 0; i < ELEMENTSOF(settings); i++) {
		_cleanup_free_ char *path = NULL, *v = NULL;

		if (asprintf(&path, "/proc/sys/security/realtime/%s", settings[i]) < 0)
			return;
		(void)check_read(c, path, &v);
		strbuf_append(value, sizeof(value), "%s%s=%s", i ? " " : "", settings[i], v ?: "?");
	}
	check_set(r, CHECK_OK, value, "realtime.ko is loaded (%s)", value);
}
