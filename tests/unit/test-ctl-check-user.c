/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/check-user.c, over a canned /proc and /etc
 * (ctl-check-fixture.h) for alice (in audio) and bob (not): the session's
 * rlimits against the policy and the hint that says where a lower one
 * comes from, audio membership in NSS and in the session, the policy
 * files, and the IRQ threads of the audio path against [IRQ] and the
 * user's priority.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check-main.h"
#include "ctl-check-fixture.h"

#define PF_KTHREAD 0x00200000u

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
	check_as(&bob);
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
	check_as(&bob);
	run("audio-group");
	assert_result(CHECK_WARN, "nss=no session=no");
	ck_assert_ptr_nonnull(strstr(res.hint, "usermod -aG audio bob"));
	ctx.have_audio_gid = false;
	run("audio-group");
	assert_result(CHECK_INFO, "no group");
}
END_TEST

START_TEST(test_policy)
{
	run("policy");
	assert_result(CHECK_OK, "files=1 errors=0 warnings=0 by=[Group audio]");
	ck_assert_str_eq(
		res.summary,
		"1 policy file, no errors; alice is covered by a [User] or [Group] section");
	/* root, whom no section covers: no "root is root" (issue 24) */
	check_as(&bob);
	ctx.uid = 0;
	run("policy");
	ck_assert_int_eq(res.status, CHECK_OK);
	ck_assert_str_eq(
		res.summary,
		"1 policy file, no errors; bob needs no section (root may have any priority)");
	check_as(&alice);
	check_as(&bob);
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
	ck_assert_str_eq(res.summary, "sound card and USB IRQ threads run above priority 80, the "
				      "highest alice's audio threads may get");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-check-user");

	ctl_check_test_case(
		s, "checks",
		CHECK_TESTS(test_rlimits, test_audio_group, test_policy, test_irq_priorities));
	return policy_test_run(s);
}
