/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/check-system.c, over a canned /proc, /sys and
 * /etc (ctl-check-fixture.h) and a fake system bus: swappiness, the CPU
 * governors, the home's file system, realtimed and rtkit on the bus and in
 * dpkg, what realtimed refused the user in the last hour (a fake
 * ListRefusals) and its words (refusal.h), and pam_limits lines that grant
 * realtime beside the policy.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check-main.h"
#include "ctl-check-fixture.h"
#include "refusal.h"

static CheckBus fake_bus;
static void fake_bus_query(CheckBus *ret)
{
	*ret = fake_bus;
}

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
	/* enabled, realtimed is rtkit-daemon.service too (Alias=): disabling
	 * or masking that name would disable or mask realtimed */
	ck_assert_ptr_nonnull(strstr(res.hint, "systemctl stop rtkit-daemon"));
	ck_assert_ptr_nonnull(strstr(res.hint, "systemctl enable --now realtimed"));
	ck_assert_ptr_null(strstr(res.hint, "systemctl mask"));
	ck_assert_ptr_null(strstr(res.hint, "systemctl disable"));

	fake_bus = (CheckBus){ .reachable = false };
	snprintf(fake_bus.error, sizeof(fake_bus.error), "no socket");
	run("daemon");
	ck_assert_int_eq(res.status, CHECK_FAIL);
	ctx.bus_query = NULL;
	run("daemon");
	assert_result(CHECK_SKIP, "");
}
END_TEST

/* What the fake ListRefusals answers: an error, or refusals. */
static int fake_refusals_error;
static const CtlRefusal *fake_refusals;
static size_t fake_n_refusals;
static uid_t fake_refusals_uid;

static int fake_refusals_query(uid_t uid, uint64_t since_usec, CheckRefusals *ret)
{
	*ret = (CheckRefusals){};
	fake_refusals_uid = uid;
	if (fake_refusals_error < 0)
		return fake_refusals_error;
	for (size_t i = 0; i < fake_n_refusals; i++) {
		size_t slot = ret->n_shown++;

		ctl_refusal_format(&fake_refusals[i], ret->shown[slot], sizeof(ret->shown[slot]));
		ctl_refusal_fix(&fake_refusals[i], ret->fix, sizeof(ret->fix));
	}
	ret->n = fake_n_refusals;
	return 0;
}

START_TEST(test_refusals)
{
	static const CtlRefusal refusals[] = {
		{ .uid = 1000,
		  .count = 1,
		  .comm = "jackd",
		  .asked = "FIFO 99",
		  .error = "RateLimited",
		  .reason = "too many requests",
		  .source = "" },
		{ .uid = 1000,
		  .count = 2,
		  .comm = "pipewire",
		  .asked = "FIFO 95",
		  .error = "PolicyDenied",
		  .reason = "priority 95 exceeds the limit 70 for user alice "
			    "(/etc/realtime/realtime.conf:12)",
		  .source = "/etc/realtime/realtime.conf:12" },
	};

	ctx.refusals_query = NULL;
	run("refusals");
	assert_result(CHECK_SKIP, "");
	ctx.refusals_query = fake_refusals_query;
	fake_refusals_error = -EHOSTDOWN;
	run("refusals");
	assert_result(CHECK_SKIP, "not running");
	fake_refusals_error = -EACCES;
	run("refusals");
	assert_result(CHECK_SKIP, "not allowed");
	ck_assert_str_eq(res.summary, "only alice and root may see alice's refusals");
	/* none: it says so */
	fake_refusals_error = 0;
	fake_n_refusals = 0;
	run("refusals");
	assert_result(CHECK_OK, "refused=0");
	ck_assert_uint_eq(fake_refusals_uid, 1000);
	ck_assert_str_eq(res.summary, "realtimed refused no request of alice in the last hour");
	/* the last with its reason, the fix, the one before it */
	fake_refusals = refusals;
	fake_n_refusals = ELEMENTSOF(refusals);
	run("refusals");
	assert_result(CHECK_WARN,
		      "refused=2: jackd asked FIFO 99: too many requests | pipewire asked FIFO 95: "
		      "priority 95 exceeds the limit 70 for user alice "
		      "(/etc/realtime/realtime.conf:12) (2 times)");
	ck_assert_str_eq(res.summary,
			 "2 requests of alice refused in the last hour; the last: pipewire asked "
			 "FIFO 95: priority 95 exceeds the limit 70 for user alice "
			 "(/etc/realtime/realtime.conf:12) (2 times)");
	ck_assert_ptr_nonnull(
		strstr(res.hint, "raise the limit at /etc/realtime/realtime.conf:12"));
	ck_assert_ptr_nonnull(strstr(res.hint, "(before: jackd asked FIFO 99: too many requests)"));
	ck_assert_ptr_nonnull(strstr(res.hint, "realtimectl status --refused"));
}
END_TEST

START_TEST(test_refusal_words)
{
	CtlRefusal f = { .count = 1,
			 .comm = "",
			 .asked = "nice -20",
			 .error = "LimitsExceeded",
			 .reason = "user bob holds grants for 64 threads already "
				   "(ThreadsPerUserMax=64)",
			 .source = "/usr/share/realtime/realtime.conf:7" };
	char buf[512];

	/* a source the reason does not name is added */
	ctl_refusal_format(&f, buf, sizeof(buf));
	ck_assert_str_eq(buf,
			 "a thread asked nice -20: user bob holds grants for 64 threads "
			 "already (ThreadsPerUserMax=64) (/usr/share/realtime/realtime.conf:7)");
	/* the error's own hint */
	ctl_refusal_fix(&f, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "Reset grants you no longer need"));
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

int main(void)
{
	Suite *s = suite_create("ctl-check-system");

	ctl_check_test_case(s, "checks",
			    CHECK_TESTS(test_swappiness, test_cpu_governor, test_filesystem,
					test_daemon_rtkit, test_refusals, test_refusal_words,
					test_limits_conflict));
	return policy_test_run(s);
}
