/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl check's table (realtimectl/check*.c): each
 * check runs over a canned /proc, /sys, /etc and /boot in a mkdtemp()
 * directory (the context's root prefix), for a user whose identity and
 * policy the test gives, with a fake system bus; the status and the value
 * are compared. Also: the table has exactly the ids realtimectl(1)
 * documents, and over an empty tree every check gives a status, a summary,
 * and a hint for each warn or fail.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "ctl-check.h"

#define PF_KTHREAD 0x00200000u

static char root[64];
static Policy *policy;
static gid_t alice_gids[] = { 1000, 29 };
static char *alice_names[] = { "alice", "audio" };
static PolicyUser alice = {
	.name = "alice",
	.uid = 1000,
	.gids = alice_gids,
	.group_names = alice_names,
	.n_gids = 2,
};
static PolicyUser bob = {
	.name = "bob",
	.uid = 1001,
	.gids = alice_gids, /* 1000 only: not in audio */
	.group_names = alice_names,
	.n_gids = 1,
};
static CheckContext ctx;
static CheckResult res;

static void rm_rf(const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
}

/* Writes root/path (its directories made), printf content. */
_printf_(2, 3) static void put(const char *path, const char *fmt, ...)
{
	char full[512], *slash;
	va_list ap;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		ck_assert_msg(mkdir(full, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", full);
		*slash = '/';
	}
	f = fopen(full, "we");
	ck_assert_msg(f, "fopen %s: %m", full);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static void mkdir_p(const char *path)
{
	put(path, "%s", ""); /* makes the parents */
	char full[512];
	snprintf(full, sizeof(full), "%s%s", root, path);
	ck_assert_int_eq(unlink(full), 0);
	ck_assert_msg(mkdir(full, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", full);
}

static void load_policy(const char *text)
{
	char path[512];
	const char *files[1] = { path };

	snprintf(path, sizeof(path), "%s/policy.conf", root);
	policy = policy_free(policy);
	put("/policy.conf", "%s", text);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(policy_load_files_check(files, 1, &policy), 0);
	ctx.policy = policy;
}

static const char shipped_like[] = "[Default]\nRealtimePriority=20\nPolicies=rr\nNice=-15\n"
				   "MemLock=64M\nRTTime=200ms\n"
				   "[Group audio]\nRealtimePriority=95\nPolicies=fifo rr\n"
				   "MemLock=infinity\nRTTime=infinity\n"
				   "[IRQ]\nsnd*=90\nxhci_hcd=85\n";

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/test-ctl-check.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	ctx = (CheckContext){
		.root = root,
		.uid = 1000,
		.user = "alice",
		.home = "/home/alice",
		.pu = &alice,
		.have_audio_gid = true,
		.audio_gid = 29,
	};
	res = (CheckResult){};
	load_policy(shipped_like);
}

static void teardown(void)
{
	check_context_done(&ctx);
	policy = policy_free(policy);
	rm_rf(root);
}

/* Runs check id over the tree as it is now (the context reloaded). */
static void run(const char *id)
{
	const Check *c = check_find(id);

	ck_assert_msg(c, "no check %s", id);
	check_context_done(&ctx);
	ck_assert_int_eq(check_context_load(&ctx), 0);
	res = (CheckResult){ .status = _CHECK_STATUS_INVALID };
	c->run(&ctx, &res);
	ck_assert_msg(res.status >= 0 && res.status < _CHECK_STATUS_MAX, "%s: no status", id);
	ck_assert_msg(res.summary[0], "%s: no summary", id);
	if (res.status == CHECK_WARN || res.status == CHECK_FAIL)
		ck_assert_msg(res.hint[0], "%s: %s without a hint", id,
			      check_status_to_string(res.status));
}

#define assert_result(st, val)                                                                \
	do {                                                                                  \
		ck_assert_msg(res.status == (st), "status %s, want %s (%s; value '%s')",      \
			      check_status_to_string(res.status), check_status_to_string(st), \
			      res.summary, res.value);                                        \
		ck_assert_str_eq(res.value, (val));                                           \
	} while (0)

START_TEST(test_table_ids)
{
	static const char *const ids[] = {
		"kernel-preempt",
		"threadirqs",
		"rt-throttling",
		"rt-group-sched",
		"swappiness",
		"cpu-governor",
		"smt",
		"mitigations",
		"timer",
		"rlimit-rtprio",
		"rlimit-memlock",
		"rlimit-rttime",
		"audio-group",
		"daemon",
		"rtkit-conflict",
		"limits-conflict",
		"policy",
		"irq-priorities",
		"realtime-module",
		"filesystem",
	};

	ck_assert_uint_eq(check_table_n, ELEMENTSOF(ids));
	for (size_t i = 0; i < ELEMENTSOF(ids); i++)
		ck_assert_str_eq(check_table[i].id, ids[i]);
	ck_assert_ptr_null(check_find("nonexistent"));
	ck_assert_str_eq(check_status_to_string(CHECK_SKIP), "skip");
}
END_TEST

START_TEST(test_empty_tree)
{
	/* nothing under the root: every check says something, none crashes */
	for (size_t i = 0; i < check_table_n; i++)
		run(check_table[i].id);
	run("swappiness");
	assert_result(CHECK_SKIP, "");
	ck_assert_ptr_nonnull(strstr(res.summary, "/proc/sys/vm/swappiness"));
}
END_TEST

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

START_TEST(test_swappiness)
{
	put("/proc/sys/vm/swappiness", "60\n");
	run("swappiness");
	assert_result(CHECK_WARN, "60");
	ck_assert_ptr_nonnull(strstr(res.hint, "/etc/sysctl.d/"));
	put("/proc/sys/vm/swappiness", "10\n");
	run("swappiness");
	assert_result(CHECK_OK, "10");
}
END_TEST

START_TEST(test_cpu_governor)
{
	mkdir_p("/sys/devices/system/cpu");
	run("cpu-governor");
	assert_result(CHECK_INFO, "no cpufreq");
	for (int i = 0; i < 3; i++) {
		char path[128];

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_governors",
			 i * 5);
		put(path, "performance powersave\n");
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", i * 5);
		put(path, i == 1 ? "performance\n" : "powersave\n");
	}
	put("/sys/devices/system/cpu/cpufreq/policy0/scaling_governor", "powersave\n");
	run("cpu-governor");
	assert_result(CHECK_WARN, "cpu0:powersave cpu5:performance cpu10:powersave");
	ck_assert_ptr_nonnull(strstr(res.summary, "2 of 3 CPUs (cpu0 cpu10)"));
	ck_assert_ptr_nonnull(strstr(res.hint, "cpupower frequency-set -g performance"));
	put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
	put("/sys/devices/system/cpu/cpu10/cpufreq/scaling_governor", "performance\n");
	run("cpu-governor");
	assert_result(CHECK_OK, "cpu0:performance cpu5:performance cpu10:performance");
}
END_TEST

START_TEST(test_smt_mitigations)
{
	put("/sys/devices/system/cpu/smt/active", "1\n");
	put("/sys/devices/system/cpu/smt/control", "on\n");
	run("smt");
	assert_result(CHECK_INFO, "on");
	put("/sys/devices/system/cpu/smt/active", "0\n");
	put("/sys/devices/system/cpu/smt/control", "notsupported\n");
	run("smt");
	assert_result(CHECK_OK, "notsupported");

	put("/sys/devices/system/cpu/vulnerabilities/spectre_v1", "Mitigation: usercopy\n");
	put("/sys/devices/system/cpu/vulnerabilities/spectre_v2", "Mitigation: Retpolines\n");
	put("/sys/devices/system/cpu/vulnerabilities/mds", "Vulnerable: Clear CPU buffers\n");
	put("/sys/devices/system/cpu/vulnerabilities/l1tf", "Not affected\n");
	put("/proc/cmdline", "root=/dev/sda1 mitigations=off\n");
	run("mitigations");
	assert_result(CHECK_INFO, "mitigations=off mitigated=2 vulnerable=1");
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

static void put_limits(const char *rtprio, const char *memlock, const char *rttime)
{
	put("/proc/self/limits",
	    "Limit                     Soft Limit           Hard Limit           Units     \n"
	    "Max cpu time              unlimited            unlimited            seconds   \n"
	    "Max locked memory         %s                   %s                   bytes     \n"
	    "Max nice priority         0                    0                    \n"
	    "Max realtime priority     %s                   %s                   \n"
	    "Max realtime timeout      %s                   %s                   us        \n",
	    memlock, memlock, rtprio, rtprio, rttime, rttime);
}

START_TEST(test_rlimits)
{
	put("/etc/pam.d/common-session", "session required pam_unix.so\n");
	put("/etc/security/limits.d/audio.conf",
	    "# jackd2\n@audio - rtprio 50\n@audio - memlock 1024\n");
	put_limits("50", "1048576", "unlimited");
	run("rlimit-rtprio");
	assert_result(CHECK_WARN, "50/50 policy=95");
	ck_assert_ptr_nonnull(strstr(
		res.hint, "/etc/security/limits.d/audio.conf:2 sets - rtprio 50 for @audio"));
	ck_assert_ptr_nonnull(strstr(res.hint, "session optional pam_realtime.so"));
	run("rlimit-memlock");
	assert_result(CHECK_WARN, "1048576/1048576 policy=infinity");
	ck_assert_ptr_nonnull(strstr(res.hint, "audio.conf:3 sets - memlock 1024"));
	run("rlimit-rttime");
	assert_result(CHECK_OK, "infinity/infinity policy=infinity");

	/* with pam_realtime in the stack and no limits.d line: log in again */
	put("/etc/pam.d/common-session", "session optional pam_realtime.so\n");
	put("/etc/security/limits.d/audio.conf", "# empty\n");
	run("rlimit-rtprio");
	assert_result(CHECK_WARN, "50/50 policy=95");
	ck_assert_ptr_nonnull(strstr(res.hint, "log out and in again"));
	ck_assert_ptr_null(strstr(res.hint, "limits.d"));

	put_limits("95", "unlimited", "200000");
	run("rlimit-rtprio");
	assert_result(CHECK_OK, "95/95 policy=95");
	run("rlimit-memlock");
	assert_result(CHECK_OK, "infinity/infinity policy=infinity");
	run("rlimit-rttime");
	assert_result(CHECK_WARN, "200000/200000 policy=infinity");

	/* bob: [Default], rr only: RLIMIT_RTPRIO 0 is what policy means */
	ctx.pu = &bob;
	ctx.user = "bob";
	ctx.uid = 1001;
	put_limits("0", "67108864", "200000");
	run("rlimit-rtprio");
	assert_result(CHECK_OK, "0/0 policy=0");
	run("rlimit-memlock");
	assert_result(CHECK_OK, "67108864/67108864 policy=67108864");
	run("rlimit-rttime");
	assert_result(CHECK_OK, "200000/200000 policy=200000");
}
END_TEST

START_TEST(test_audio_group)
{
	put("/proc/self/status", "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\nGroups:\t1000 29 \n");
	run("audio-group");
	assert_result(CHECK_OK, "nss=member session=member");
	put("/proc/self/status", "Name:\tbash\nGroups:\t1000\n");
	run("audio-group");
	assert_result(CHECK_WARN, "nss=member session=no");
	ck_assert_ptr_nonnull(strstr(res.hint, "log out and in again"));
	ctx.pu = &bob;
	ctx.user = "bob";
	run("audio-group");
	assert_result(CHECK_WARN, "nss=no session=no");
	ck_assert_ptr_nonnull(strstr(res.hint, "usermod -aG audio bob"));
	ctx.have_audio_gid = false;
	run("audio-group");
	assert_result(CHECK_INFO, "no group");
}
END_TEST

static CheckBus fake_bus;
static void fake_bus_query(CheckBus *ret)
{
	*ret = fake_bus;
}

START_TEST(test_daemon_rtkit)
{
	ctx.bus_query = fake_bus_query;
	fake_bus = (CheckBus){ .reachable = true,
			       .realtimed = true,
			       .realtimed_pid = 42,
			       .max_priority = 95,
			       .rtkit_owned = true,
			       .rtkit_is_realtimed = true };
	run("daemon");
	assert_result(CHECK_OK, "pid 42; version unknown; MaxRealtimePriority 95 for you; package: "
				"none; policy: 1 files, 0 rejected");
	run("rtkit-conflict");
	assert_result(CHECK_OK, "installed=no running=no RealtimeKit1=realtimed");

	/* the running version against the installed package's upstream part */
	snprintf(fake_bus.version, sizeof(fake_bus.version), "0.3");
	put("/var/lib/dpkg/status", "Package: realtimed\nStatus: install ok installed\nVersion: "
				    "1:0.3-2\n");
	run("daemon");
	assert_result(CHECK_OK, "pid 42; version 0.3; MaxRealtimePriority 95 for you; package: "
				"1:0.3-2; policy: 1 files, 0 rejected");
	put("/var/lib/dpkg/status", "Package: realtimed\nStatus: install ok installed\nVersion: "
				    "0.4-1\n");
	run("daemon");
	ck_assert_int_eq(res.status, CHECK_WARN);
	ck_assert_ptr_nonnull(strstr(res.hint, "systemctl restart realtimed"));

	fake_bus.realtimed = fake_bus.rtkit_is_realtimed = false;
	put("/proc/77/comm", "rtkit-daemon\n");
	put("/var/lib/dpkg/status", "Package: rtkit\nStatus: install ok installed\nVersion: "
				    "0.13-5\n\nPackage: realtimed\nStatus: install ok "
				    "installed\nVersion: 0.3\n");
	run("daemon");
	assert_result(CHECK_WARN, "not running; package: 0.3; policy: 1 files, 0 rejected");
	ck_assert_ptr_nonnull(strstr(res.hint, "systemctl enable --now realtimed"));
	run("rtkit-conflict");
	assert_result(CHECK_WARN, "installed=0.13-5 running=yes RealtimeKit1=rtkit-daemon");
	ck_assert_ptr_nonnull(strstr(res.hint, "systemctl mask rtkit-daemon"));

	fake_bus = (CheckBus){ .reachable = false };
	snprintf(fake_bus.error, sizeof(fake_bus.error), "no socket");
	run("daemon");
	ck_assert_int_eq(res.status, CHECK_FAIL);
	ctx.bus_query = NULL;
	run("daemon");
	assert_result(CHECK_SKIP, "");
}
END_TEST

START_TEST(test_limits_conflict)
{
	put("/etc/security/limits.conf", "# nothing\n*  soft  core  0\n");
	run("limits-conflict");
	assert_result(CHECK_OK, "");
	put("/etc/security/limits.d/95-pipewire.conf",
	    "# PipeWire\n@pipewire   - rtprio  95\n@pipewire   - nice    -19\n");
	put("/etc/security/limits.d/audio.conf", "@audio - memlock unlimited\n");
	run("limits-conflict");
	assert_result(CHECK_WARN, "/etc/security/limits.d/95-pipewire.conf:2 @pipewire - rtprio "
				  "95; /etc/security/limits.d/95-pipewire.conf:3 @pipewire - nice "
				  "-19; /etc/security/limits.d/audio.conf:1 @audio - memlock "
				  "unlimited");
	ck_assert_ptr_nonnull(strstr(res.summary, "(1 for alice)"));
}
END_TEST

START_TEST(test_policy)
{
	run("policy");
	assert_result(CHECK_OK, "files=1 errors=0 warnings=0 by=[Group audio]");
	ctx.pu = &bob;
	ctx.user = "bob";
	run("policy");
	assert_result(CHECK_WARN, "files=1 errors=0 warnings=0 by=[Default]");
	ck_assert_ptr_nonnull(strstr(res.hint, "usermod -aG audio bob"));
	load_policy("[Default]\nRealtimePriorty=20\n[Group audio]\nNice=-30\n");
	run("policy");
	ck_assert_int_eq(res.status, CHECK_FAIL);
	ck_assert_ptr_nonnull(strstr(res.value, "files=0 errors=2 warnings=0 first="));
	ck_assert_ptr_nonnull(strstr(res.value, "policy.conf:2"));
}
END_TEST

/* An IRQ kernel thread in the fake /proc, as test-procfs-irq.c makes them. */
static void put_irq_thread(int pid, int irq, const char *action, int prio)
{
	char path[128], comm[32];

	snprintf(comm, sizeof(comm), "irq/%d-%.10s", irq, action);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	put(path,
	    "%d (%s) S 2 0 0 0 -1 %u 0 0 0 0 0 0 0 0 %d 0 1 0 5 0 0 "
	    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 %d %d 0 0 0\n",
	    pid, comm, PF_KTHREAD, -1 - prio, prio, prio ? 1 : 0);
	snprintf(path, sizeof(path), "/proc/irq/%d/%s/x", irq, action);
	put(path, "%s", "");
}

START_TEST(test_irq_priorities)
{
	mkdir_p("/proc");
	put("/proc/cmdline", "root=/dev/sda1\n");
	run("irq-priorities");
	assert_result(CHECK_SKIP, "not threaded");
	/* a driver's own IRQ thread, without threadirqs: still not threaded */
	put_irq_thread(100, 1, "i8042", 50);
	run("irq-priorities");
	assert_result(CHECK_SKIP, "not threaded");
	put("/proc/cmdline", "root=/dev/sda1 threadirqs\n");
	run("irq-priorities");
	assert_result(CHECK_INFO, "");
	put_irq_thread(101, 30, "snd_hda_intel:card0", 50);
	run("irq-priorities");
	assert_result(CHECK_WARN, "irq/30-snd_hda_intel:card0:50(rule 90)");
	ck_assert_ptr_nonnull(strstr(res.summary, "below their [IRQ] rule"));
	put_irq_thread(101, 30, "snd_hda_intel:card0", 90);
	run("irq-priorities");
	assert_result(CHECK_WARN, "irq/30-snd_hda_intel:card0:90(rule 90)");
	ck_assert_ptr_nonnull(strstr(res.summary, "may get priority 95"));
	load_policy("[Group audio]\nRealtimePriority=80\n[IRQ]\nsnd*=90\n");
	run("irq-priorities");
	assert_result(CHECK_OK, "irq/30-snd_hda_intel:card0:90(rule 90)");
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

START_TEST(test_filesystem)
{
	put("/proc/self/mountinfo",
	    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	    "30 22 8:2 / /home rw,nosuid,strictatime shared:2 - xfs /dev/sda2 rw\n"
	    "31 22 8:3 / /home/al rw,noatime - ext4 /dev/sda3 rw\n"
	    "32 22 8:4 / /home/with\\040space rw,noatime - ext4 /dev/sda4 rw\n");
	run("filesystem");
	assert_result(CHECK_WARN, "/home xfs rw,nosuid,strictatime");
	ck_assert_ptr_nonnull(strstr(res.hint, "noatime"));
	ck_assert_ptr_nonnull(strstr(res.hint, "/etc/fstab"));
	ctx.home = "/home/with space/x";
	run("filesystem");
	assert_result(CHECK_OK, "/home/with space ext4 rw,noatime");
	ctx.home = "/root";
	run("filesystem");
	assert_result(CHECK_OK, "/ ext4 rw,relatime");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check");
	TCase *tc;

	tc = check_add_case(
		s, "checks",
		CHECK_TESTS(test_table_ids, test_empty_tree, test_kernel_preempt, test_threadirqs,
			    test_rt_throttling, test_rt_group_sched, test_swappiness,
			    test_cpu_governor, test_smt_mitigations, test_timer, test_rlimits,
			    test_audio_group, test_daemon_rtkit, test_limits_conflict, test_policy,
			    test_irq_priorities, test_realtime_module, test_filesystem));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
