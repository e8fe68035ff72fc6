/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for procfs/procfs-irq.c (realtimed and realtimectl both list IRQ
 * threads with it) over a fake /proc in a mkdtemp()
 * directory: IRQ kernel threads are found by name and PF_KTHREAD, their
 * cut names completed from /proc/irq/N/ action directories, policy and
 * priority read from stat; user processes that call themselves irq/...,
 * other kthreads, garbage and names with ')' are handled; realtime.ko's
 * listing is parsed and malformed lines refused. Also checks the real
 * /proc can be read.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-main.h"
#include "procfs-irq.h"
#include "procfs-stat.h"

#define PF_KTHREAD 0x00200000u

#define ROOT_TEMPLATE "/tmp/test-procfs-irq.XXXXXX"
static char root[] = ROOT_TEMPLATE;

static void mkdirf(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", path);
}

/* Writes PID/stat as the kernel does; fields 4..41 after "(comm) state". */
static void fake_task_nice(int pid, const char *comm, unsigned flags, int rt_priority, int policy,
			   int nice)
{
	char path[512];
	FILE *f;

	mkdirf("%s/%d", root, pid);
	snprintf(path, sizeof(path), "%s/%d/stat", root, pid);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	/* 4 ppid .. 8 tpgid, 9 flags, 10..17, 18 priority, 19 nice, 20..39, 40 rt_priority, 41
	 * policy */
	fprintf(f,
		"%d (%s) S 2 0 0 0 -1 %u 0 0 0 0 0 0 0 0 %d %d 1 0 5 0 0 "
		"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 %d %d 0 0 0\n",
		pid, comm, flags, -1 - rt_priority, nice, rt_priority, policy);
	fclose(f);
}

static void fake_task(int pid, const char *comm, unsigned flags, int rt_priority, int policy)
{
	fake_task_nice(pid, comm, flags, rt_priority, policy, 0);
}

static void fake_action(unsigned irq, const char *name)
{
	mkdirf("%s/irq", root);
	mkdirf("%s/irq/%u", root, irq);
	mkdirf("%s/irq/%u/%s", root, irq, name);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(root, ROOT_TEMPLATE); /* for the next test when CK_FORK=no */
}

START_TEST(test_fake_proc)
{
	IrqThread *t = NULL;
	size_t n = 0;
	char path[512];
	FILE *f;

	/* The name cut at 15 characters; /proc/irq/16 has the full name and a
	 * second action that shares the line. */
	fake_task(300, "irq/16-snd_hda_", PF_KTHREAD, 90, SCHED_FIFO);
	fake_action(16, "snd_hda_intel:card0");
	fake_action(16, "ehci_hcd:usb1");
	/* A short name that is also the full name; rr just to read it back. */
	fake_task(120, "irq/1-i8042", PF_KTHREAD, 80, SCHED_RR);
	fake_action(1, "i8042");
	/* A secondary handler's thread. */
	fake_task(121, "irq/1-s-i8042", PF_KTHREAD, 50, SCHED_FIFO);
	/* No /proc/irq/N directory for it: the thread's name part is all we know. */
	fake_task(400, "irq/30-xhci_hcd", PF_KTHREAD, 85, SCHED_FIFO);
	/* Not (yet) realtime: realtimed reports its nice level. */
	fake_task_nice(410, "irq/40-ahci", PF_KTHREAD, 0, SCHED_OTHER, -5);
	/* A user process naming itself irq/... is no IRQ thread. */
	fake_task(500, "irq/9-fake", 0, 0, SCHED_OTHER);
	/* Other kernel threads, a comm with ')' and spaces, and garbage. */
	fake_task(2, "kthreadd", PF_KTHREAD, 0, SCHED_OTHER);
	fake_task(600, "weird) (name", 0, 0, SCHED_OTHER);
	fake_task(601, "irq/x-bad", PF_KTHREAD, 50, SCHED_FIFO);
	fake_task(602, "irq/7", PF_KTHREAD, 50, SCHED_FIFO);
	mkdirf("%s/self", root);
	mkdirf("%s/700", root); /* a task that exited: no stat */
	mkdirf("%s/701", root);
	snprintf(path, sizeof(path), "%s/701/stat", root);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs("701 (truncated", f);
	fclose(f);

	ck_assert_int_eq(procfs_irq_threads(root, &t, &n), 0);
	ck_assert_uint_eq(n, 5);

	/* Sorted by irq, then pid. */
	ck_assert_uint_eq(t[0].irq, 1);
	ck_assert_int_eq(t[0].pid, 120);
	ck_assert_str_eq(t[0].action, "i8042");
	ck_assert_int_eq(t[0].policy, SCHED_RR);
	ck_assert_int_eq(t[0].priority, 80);

	ck_assert_uint_eq(t[1].irq, 1);
	ck_assert_int_eq(t[1].pid, 121);
	ck_assert_str_eq(t[1].action, "i8042");
	ck_assert_int_eq(t[1].policy, SCHED_FIFO);
	ck_assert_int_eq(t[1].priority, 50);

	ck_assert_uint_eq(t[2].irq, 16);
	ck_assert_int_eq(t[2].pid, 300);
	ck_assert_str_eq(t[2].action, "snd_hda_intel:card0");
	ck_assert_int_eq(t[2].priority, 90);

	ck_assert_uint_eq(t[3].irq, 30);
	ck_assert_str_eq(t[3].action, "xhci_hcd");
	ck_assert_int_eq(t[3].priority, 85);
	ck_assert_int_eq(t[3].nice, 0);

	ck_assert_uint_eq(t[4].irq, 40);
	ck_assert_int_eq(t[4].policy, SCHED_OTHER);
	ck_assert_int_eq(t[4].priority, 0);
	ck_assert_int_eq(t[4].nice, -5);

	procfs_irq_threads_free(t, n);
}
END_TEST

START_TEST(test_empty_and_missing)
{
	IrqThread *t = NULL;
	size_t n = 42;
	char missing[600];

	ck_assert_int_eq(procfs_irq_threads(root, &t, &n), 0);
	ck_assert_uint_eq(n, 0);
	procfs_irq_threads_free(t, n);

	snprintf(missing, sizeof(missing), "%s/nope", root);
	ck_assert_int_eq(procfs_irq_threads(missing, &t, &n), -ENOENT);
}
END_TEST

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, name);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* An IRQ's action names, for the shield's ShieldKeep= and [IRQ] rules on
 * a shared line: every directory of PROC/irq/N/, sorted; its files
 * (smp_affinity, spurious) are none. */
START_TEST(test_actions)
{
	char **names = NULL;
	size_t n = 42;

	fake_action(16, "snd_hda_intel:card0");
	fake_action(16, "ehci_hcd:usb1");
	write_file("irq/16/smp_affinity_list", "0-3\n");
	ck_assert_int_eq(procfs_irq_actions(root, 16, &names, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(names[0], "ehci_hcd:usb1");
	ck_assert_str_eq(names[1], "snd_hda_intel:card0");
	ck_assert_ptr_null(names[2]);
	procfs_irq_actions_free(names);

	mkdirf("%s/irq/17", root);
	ck_assert_int_eq(procfs_irq_actions(root, 17, &names, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(names[0]);
	procfs_irq_actions_free(names);
	ck_assert_int_eq(procfs_irq_actions(root, 18, &names, &n), -ENOENT);
}
END_TEST

/* realtime.ko's /proc/realtime/irq_threads: "IRQ PID POLICY PRIORITY NAME". */
START_TEST(test_kmod_listing)
{
	IrqThread *t = NULL;
	size_t n = 0;
	char path[600];

	write_file("irq_threads", "16 300 fifo 90 snd_hda_intel:card0\n"
				  "1 120 rr 80 i8042\n"
				  "1 118 other 0 a name with spaces\n");
	snprintf(path, sizeof(path), "%s/irq_threads", root);
	ck_assert_int_eq(procfs_irq_threads_kmod(path, &t, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(t[0].irq, 1);
	ck_assert_int_eq(t[0].pid, 118);
	ck_assert_str_eq(t[0].action, "a name with spaces");
	ck_assert_int_eq(t[0].policy, SCHED_OTHER);
	ck_assert_int_eq(t[1].pid, 120);
	ck_assert_int_eq(t[1].policy, SCHED_RR);
	ck_assert_int_eq(t[1].priority, 80);
	ck_assert_uint_eq(t[2].irq, 16);
	ck_assert_str_eq(t[2].action, "snd_hda_intel:card0");
	ck_assert_int_eq(t[2].policy, SCHED_FIFO);
	ck_assert_int_eq(t[2].priority, 90);
	procfs_irq_threads_free(t, n);

	write_file("empty", "");
	snprintf(path, sizeof(path), "%s/empty", root);
	ck_assert_int_eq(procfs_irq_threads_kmod(path, &t, &n), 0);
	ck_assert_uint_eq(n, 0);
	procfs_irq_threads_free(t, n);

	static const char *const bad[] = {
		"16 300 fifo 90\n",	  /* no name */
		"16 300 fifo 90 \n",	  /* empty name */
		"16 300 sideways 90 x\n", /* unknown policy */
		"16 300 fifo 190 x\n",	  /* priority out of range */
		"16 -3 fifo 90 x\n",	  /* bad pid */
		"x 300 fifo 90 x\n",	  /* bad irq */
		"16 300 fifo 90 ok\ngarbage\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file("bad", bad[i]);
		snprintf(path, sizeof(path), "%s/bad", root);
		ck_assert_msg(procfs_irq_threads_kmod(path, &t, &n) == -EBADMSG, "accepted: %s",
			      bad[i]);
	}
	snprintf(path, sizeof(path), "%s/missing", root);
	ck_assert_int_eq(procfs_irq_threads_kmod(path, &t, &n), -ENOENT);
}
END_TEST

START_TEST(test_name_parse)
{
	unsigned irq = 0;
	const char *name = NULL;

	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/16-snd_hda_", &irq, &name), 0);
	ck_assert_uint_eq(irq, 16);
	ck_assert_str_eq(name, "snd_hda_");
	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/1-s-i8042", &irq, &name), 0);
	ck_assert_uint_eq(irq, 1);
	ck_assert_str_eq(name, "i8042");
	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/123456-", &irq, &name), 0);
	ck_assert_str_eq(name, "");

	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/", &irq, &name), -EINVAL);
	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/16", &irq, &name), -EINVAL);
	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/-x", &irq, &name), -EINVAL);
	ck_assert_int_eq(procfs_irq_thread_name_parse("irq/99999999999-x", &irq, &name), -EINVAL);
	ck_assert_int_eq(procfs_irq_thread_name_parse("kworker/0:1", &irq, &name), -EINVAL);
}
END_TEST

/* The real /proc: whatever IRQ threads this machine has, each one is a
 * kernel thread whose stat agrees with the scheduler. */
START_TEST(test_real_proc)
{
	IrqThread *t = NULL;
	size_t n = 0;

	ck_assert_int_eq(procfs_irq_threads("/proc", &t, &n), 0);
	for (size_t i = 0; i < n; i++) {
		int policy = sched_getscheduler(t[i].pid);

		if (policy < 0)
			continue; /* exited meanwhile */
		ck_assert_int_eq(policy & ~SCHED_RESET_ON_FORK, t[i].policy);
		ck_assert_ptr_nonnull(t[i].action);
	}
	procfs_irq_threads_free(t, n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("procfs-irq");
	TCase *tc;

	tc = check_add_case(s, "fake-proc",
			    CHECK_TESTS(test_fake_proc, test_empty_and_missing, test_kmod_listing,
					test_actions));
	tcase_add_checked_fixture(tc, setup, teardown);
	check_add_case(s, "names", CHECK_TESTS(test_name_parse, test_real_proc));
	return check_run(s);
}
