/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/check-kernel.c, over a canned /proc, /sys and
 * /boot (ctl-check-fixture.h): the preemption model and the -rt kernel apt
 * offers, threaded IRQs, RT throttling and RT group scheduling, the timer,
 * SMT and mitigations, a sched_ext BPF scheduler, and realtime.ko.
 */
#include <check.h>
#include <string.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

START_TEST(test_kernel_preempt)
{
	put("/proc/sys/kernel/osrelease", "6.1.0-13-amd64\n");
	put("/proc/version", "Linux version 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian\n");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 quiet\n");
	put("/boot/config-6.1.0-13-amd64",
	    "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_VOLUNTARY=y\n# CONFIG_PREEMPT is not set\n"
	    "CONFIG_PREEMPT_DYNAMIC=y\n");
	put("/etc/debian_version", "12.5\n");
	/* apt update never ran */
	run("kernel-preempt");
	assert_result(CHECK_WARN,
		      "voluntary, PREEMPT_DYNAMIC (from kernel config), " RT_KERNEL_PACKAGE
		      ": no apt lists");
	ck_assert_ptr_nonnull(strstr(res.hint, "preempt=full"));
	ck_assert_ptr_nonnull(strstr(res.hint, "apt update"));

	/* lists without it (a longer name is another package) */
	put("/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages",
	    "Package: hello\nVersion: 2.10-3\n\nPackage: " RT_KERNEL_PACKAGE "-dbg\n"
	    "Version: 9.9\n\n");
	run("kernel-preempt");
	assert_result(CHECK_WARN,
		      "voluntary, PREEMPT_DYNAMIC (from kernel config), " RT_KERNEL_PACKAGE
		      " not in the apt lists");
	ck_assert_ptr_nonnull(strstr(res.hint, "sources.list"));

	/* a compressed list is apt's to read; in a test root it is not read */
	put("/var/lib/apt/lists/"
	    "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages.lz4",
	    "Package: " RT_KERNEL_PACKAGE "\nVersion: 1.0\n");
	run("kernel-preempt");
	assert_result(CHECK_WARN,
		      "voluntary, PREEMPT_DYNAMIC (from kernel config), " RT_KERNEL_PACKAGE
		      " not in the apt lists");

	/* installable: the candidate's version, from its own paragraph */
	put("/var/lib/apt/lists/"
	    "deb.debian.org_debian-security_dists_bookworm-security_main_binary-amd64_Packages",
	    "Package: hello\nVersion: 2.10-3\n\nPackage: " RT_KERNEL_PACKAGE "\n"
	    "Source: linux-signed-amd64\nVersion: 6.1.192-3\nArchitecture: amd64\n\n");
	run("kernel-preempt");
	assert_result(CHECK_WARN,
		      "voluntary, PREEMPT_DYNAMIC (from kernel config), " RT_KERNEL_PACKAGE
		      " 6.1.192-3 installable");
	ck_assert_ptr_nonnull(strstr(res.hint, "preempt=full"));
	ck_assert_ptr_nonnull(strstr(res.hint, "apt install " RT_KERNEL_PACKAGE));

	/* installed, not booted */
	put("/var/lib/dpkg/status", "Package: " RT_KERNEL_PACKAGE "\nStatus: install ok installed\n"
				    "Version: 6.1.192-3\n\n");
	run("kernel-preempt");
	assert_result(CHECK_WARN,
		      "voluntary, PREEMPT_DYNAMIC (from kernel config), " RT_KERNEL_PACKAGE
		      " 6.1.192-3 installed");
	ck_assert_ptr_nonnull(strstr(res.hint, "boot the installed PREEMPT_RT kernel"));
	ck_assert_ptr_null(strstr(res.hint, "apt install"));

	put("/proc/cmdline", "root=/dev/sda1 preempt=full quiet\n");
	run("kernel-preempt");
	assert_result(
		CHECK_OK,
		"full, PREEMPT_DYNAMIC (from preempt= on the command line), " RT_KERNEL_PACKAGE
		" 6.1.192-3 installed");

	put("/sys/kernel/realtime", "1\n");
	run("kernel-preempt");
	assert_result(CHECK_OK, "PREEMPT_RT (from kernel config)");
}
END_TEST

START_TEST(test_threadirqs)
{
	put("/proc/cmdline", "root=/dev/sda1 quiet\n");
	run("threadirqs");
	assert_result(CHECK_WARN, "not threaded");
	ck_assert_ptr_nonnull(strstr(res.hint, "threadirqs"));
	ck_assert_ptr_nonnull(strstr(res.hint, "/etc/default/grub"));
	put("/proc/cmdline", "root=/dev/sda1 threadirqs quiet\n");
	run("threadirqs");
	assert_result(CHECK_OK, "threadirqs");
	/* a word that merely starts so is not it */
	put("/proc/cmdline", "root=/dev/sda1 threadirqsx\n");
	run("threadirqs");
	assert_result(CHECK_WARN, "not threaded");
	put("/sys/kernel/realtime", "1\n");
	run("threadirqs");
	assert_result(CHECK_OK, "PREEMPT_RT");
}
END_TEST

START_TEST(test_rt_throttling)
{
	put("/proc/sys/kernel/sched_rt_period_us", "1000000\n");
	put("/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	run("rt-throttling");
	assert_result(CHECK_OK, "950000/1000000");
	put("/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	run("rt-throttling");
	assert_result(CHECK_WARN, "-1/1000000");
	ck_assert_ptr_nonnull(strstr(res.hint, "kernel.sched_rt_runtime_us=950000"));
	put("/proc/sys/kernel/sched_rt_runtime_us", "300000\n");
	run("rt-throttling");
	assert_result(CHECK_WARN, "300000/1000000");
}
END_TEST

START_TEST(test_rt_group_sched)
{
	put("/proc/sys/kernel/osrelease", "6.1.0\n");
	put("/boot/config-6.1.0", "CONFIG_CGROUP_SCHED=y\n# CONFIG_RT_GROUP_SCHED is not set\n");
	run("rt-group-sched");
	assert_result(CHECK_OK, "not built in");

	put("/boot/config-6.1.0", "CONFIG_RT_GROUP_SCHED=y\n");
	put("/proc/self/cgroup", "12:memory:/user.slice\n5:cpu,cpuacct:/user.slice/session-2\n");
	put("/sys/fs/cgroup/cpu,cpuacct/user.slice/session-2/cpu.rt_runtime_us", "0\n");
	run("rt-group-sched");
	assert_result(CHECK_FAIL,
		      "/sys/fs/cgroup/cpu,cpuacct/user.slice/session-2/cpu.rt_runtime_us=0");
	ck_assert_ptr_nonnull(strstr(res.hint, "echo 100000 >"));
	put("/sys/fs/cgroup/cpu,cpuacct/user.slice/session-2/cpu.rt_runtime_us", "50000\n");
	run("rt-group-sched");
	assert_result(CHECK_OK,
		      "/sys/fs/cgroup/cpu,cpuacct/user.slice/session-2/cpu.rt_runtime_us=50000");
}
END_TEST

START_TEST(test_smt_mitigations)
{
	/* the summary is words, not the raw value glued on (issue 24) */
	static const char *const off[][2] = {
		{ "notsupported", "SMT is not supported by this CPU" },
		{ "forceoff", "SMT is off for good (nosmt=force)" },
		{ "notimplemented", "SMT is off (this kernel cannot control it)" },
		{ "off", "SMT is off" },
	};

	put("/sys/devices/system/cpu/smt/active", "1\n");
	put("/sys/devices/system/cpu/smt/control", "on\n");
	run("smt");
	assert_result(CHECK_INFO, "on");
	put("/sys/devices/system/cpu/smt/active", "0\n");
	for (size_t i = 0; i < ELEMENTSOF(off); i++) {
		put("/sys/devices/system/cpu/smt/control", "%s\n", off[i][0]);
		run("smt");
		assert_result(CHECK_OK, off[i][0]);
		ck_assert_str_eq(res.summary, off[i][1]);
	}

	put("/sys/devices/system/cpu/vulnerabilities/spectre_v1", "Mitigation: usercopy\n");
	put("/sys/devices/system/cpu/vulnerabilities/spectre_v2", "Mitigation: Retpolines\n");
	put("/sys/devices/system/cpu/vulnerabilities/mds", "Vulnerable: Clear CPU buffers\n");
	put("/sys/devices/system/cpu/vulnerabilities/l1tf", "Not affected\n");
	put("/proc/cmdline", "root=/dev/sda1 mitigations=off\n");
	run("mitigations");
	assert_result(CHECK_INFO, "mitigations=off mitigated=2 vulnerable=1");
}
END_TEST

START_TEST(test_sched_ext)
{
	/* state file (NULL: none), root/ops, the status and value wanted */
	static const struct {
		const char *state, *ops;
		CheckStatus status;
		const char *value;
	} cases[] = {
		{ NULL, NULL, CHECK_OK, "not built in" },
		{ "disabled", NULL, CHECK_OK, "disabled" },
		{ "enabled", "lavd_1.0.12_x86_64", CHECK_WARN, "enabled ops=lavd_1.0.12_x86_64" },
		/* on its way in or out: still not the kernel's own scheduler */
		{ "enabling", "", CHECK_WARN, "enabling ops=unknown" },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		if (cases[i].state)
			put("/sys/kernel/sched_ext/state", "%s\n", cases[i].state);
		if (cases[i].ops)
			put("/sys/kernel/sched_ext/root/ops", "%s\n", cases[i].ops);
		run("sched-ext");
		assert_result(cases[i].status, cases[i].value);
		if (cases[i].status != CHECK_WARN)
			continue;
		ck_assert_ptr_nonnull(strstr(res.hint, "systemctl stop scx"));
		ck_assert_ptr_nonnull(strstr(res.hint, "/proc/sysrq-trigger"));
	}
	put("/sys/kernel/sched_ext/root/ops", "rusty\n");
	run("sched-ext");
	ck_assert_ptr_nonnull(strstr(res.summary, "BPF scheduler rusty is loaded"));
}
END_TEST

START_TEST(test_timer)
{
	put("/proc/sys/kernel/osrelease", "6.1.0\n");
	put("/boot/config-6.1.0", "CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_HIGH_RES_TIMERS=y\n"
				  "CONFIG_NO_HZ_IDLE=y\n");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc\n");
	run("timer");
	assert_result(CHECK_OK, "clocksource=tsc hres=yes HZ=250 nohz=idle");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "jiffies\n");
	run("timer");
	assert_result(CHECK_WARN, "clocksource=jiffies hres=yes HZ=250 nohz=idle");
	put("/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet\n");
	put("/boot/config-6.1.0", "CONFIG_HZ=100\n");
	run("timer");
	assert_result(CHECK_WARN, "clocksource=hpet hres=no HZ=100 nohz=periodic");
}
END_TEST

START_TEST(test_realtime_module)
{
	run("realtime-module");
	assert_result(CHECK_INFO, "not loaded");
	mkdir_p("/sys/module/realtime");
	put("/proc/sys/security/realtime/any", "0\n");
	put("/proc/sys/security/realtime/gid", "29\n");
	put("/proc/sys/security/realtime/mlock", "1\n");
	run("realtime-module");
	assert_result(CHECK_OK, "any=0 gid=29 mlock=1");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check-kernel");

	ctl_check_test_case(s, "checks",
			    CHECK_TESTS(test_kernel_preempt, test_threadirqs, test_rt_throttling,
					test_rt_group_sched, test_smt_mitigations, test_sched_ext,
					test_timer, test_realtime_module));
	return policy_test_run(s);
}
