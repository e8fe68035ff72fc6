/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/irq.c: IRQ thread names, and listing over a fake
 * /proc in a mkdtemp() directory: kernel threads (children of kthreadd)
 * named irq/N-name are found, their cut names completed from the action
 * directories in /proc/irq/N/, a user process that calls itself irq/... and
 * other kernel threads are not.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "irq.h"

static char root[] = "/tmp/test-daemon-irq.XXXXXX";

__attribute__((format(printf, 1, 2))) static void mkdirf(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	ck_assert_msg(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", path);
}

__attribute__((format(printf, 1, 3))) static void writef(const char *path_fmt, const char *content,
							 ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	va_start(ap, content);
	vsnprintf(path, sizeof(path), path_fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "fopen %s: %m", path);
	fputs(content, f);
	fclose(f);
}

/* pids far above pid_max, so sched_getattr() finds nothing and says "other" */
static void fake_task(int pid, const char *comm, int ppid)
{
	char buf[256];

	mkdirf("%s/%d", root, pid);
	snprintf(buf, sizeof(buf), "%s\n", comm);
	writef("%s/%d/comm", buf, root, pid);
	snprintf(buf, sizeof(buf),
		 "%d (%s) S %d 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 -51 0 1 0 30 0 0\n", pid, comm,
		 ppid);
	writef("%s/%d/stat", buf, root, pid);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(root));
	mkdirf("%s/irq", root);
	mkdirf("%s/irq/16", root);
	mkdirf("%s/irq/16/snd_hda_intel:card0", root);
	writef("%s/irq/16/smp_affinity", "3\n", root);
	mkdirf("%s/irq/1", root);
	mkdirf("%s/irq/1/i8042", root);
	mkdirf("%s/irq/24", root);
	mkdirf("%s/irq/24/xhci_hcd", root);
	fake_task(90000016, "irq/16-snd_hda_", 2); /* cut at 15 characters */
	fake_task(90000001, "irq/1-i8042", 2);
	fake_task(90000024, "irq/24-s-xhci_hcd", 2);
	fake_task(90000099, "irq/99-fake", 1234); /* a user process, not a kthread */
	fake_task(90000050, "kworker/0:1", 2);
	mkdirf("%s/self", root);
	mkdirf("%s/notapid", root);
}

static void teardown(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_parse_comm)
{
	const char *name;
	unsigned irq;

	ck_assert_int_eq(irq_parse_comm("irq/16-snd_hda_", &irq, &name), 0);
	ck_assert_uint_eq(irq, 16);
	ck_assert_str_eq(name, "snd_hda_");
	ck_assert_int_eq(irq_parse_comm("irq/24-s-xhci_hcd", &irq, &name), 0);
	ck_assert_uint_eq(irq, 24);
	ck_assert_str_eq(name, "xhci_hcd");
	ck_assert_int_eq(irq_parse_comm("irq/5-s-", &irq, &name), 0);
	ck_assert_str_eq(name, "s-");
	ck_assert_int_eq(irq_parse_comm("irq/-x", &irq, &name), -EINVAL);
	ck_assert_int_eq(irq_parse_comm("irq/12", &irq, &name), -EINVAL);
	ck_assert_int_eq(irq_parse_comm("irq/12-", &irq, &name), -EINVAL);
	ck_assert_int_eq(irq_parse_comm("kworker/0:1", &irq, &name), -EINVAL);
	ck_assert_int_eq(irq_parse_comm("irq/99999999999-x", &irq, &name), -EINVAL);
}
END_TEST

START_TEST(test_list_fake_proc)
{
	IrqThread *list = NULL;
	size_t n = 0;

	ck_assert_int_eq(irq_threads_list(root, &list, &n), 0);
	ck_assert_uint_eq(n, 3);
	/* sorted by irq */
	ck_assert_uint_eq(list[0].irq, 1);
	ck_assert_str_eq(list[0].action, "i8042");
	ck_assert_int_eq(list[0].pid, 90000001);
	ck_assert_uint_eq(list[1].irq, 16);
	ck_assert_str_eq(list[1].action, "snd_hda_intel:card0");
	ck_assert_uint_eq(list[2].irq, 24);
	ck_assert_str_eq(list[2].action, "xhci_hcd");
	ck_assert_str_eq(list[2].policy, "other");
	free(list);
}
END_TEST

START_TEST(test_list_real_proc)
{
	IrqThread *list = NULL;
	size_t n = 99;

	/* whatever the machine has (none without threadirqs), it must not fail */
	ck_assert_int_eq(irq_threads_list("/proc", &list, &n), 0);
	ck_assert_uint_lt(n, 4097);
	free(list);
	ck_assert_int_lt(irq_threads_list("/nonexistent-proc", &list, &n), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-irq");
	TCase *tc = tcase_create("irq");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_comm);
	tcase_add_test(tc, test_list_fake_proc);
	tcase_add_test(tc, test_list_real_proc);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
