/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for procfs/procfs-stat.c, the one stat-file parser of
 * realtimed and realtimectl: every field it decodes from a line as the
 * kernel writes it, a comm with spaces and parentheses, lines that end
 * early (n_fields), numbers that are not numbers; the readers on the real
 * /proc (this process and its own thread) and on a pid that does not
 * exist; and the scheduling policy names.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-main.h"
#include "procfs-stat.h"

#define STAT_TAIL " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21 22\n"

/* A kernel thread's line (6.1): pid 120, "irq/1-i8042", flags PF_KTHREAD,
 * nice -5, start time 5, on CPU 1, rt_priority 80, SCHED_RR. */
static const char kthread_line[] =
	"120 (irq/1-i8042) R 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 -81 -5 1 0 5 0 0 "
	"18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 80 2 0 0 0 0 0 0 0 0 0 0 0\n";

START_TEST(test_parse_fields)
{
	ProcfsStat s;

	ck_assert_int_eq(procfs_stat_parse(kthread_line, &s), 0);
	ck_assert_uint_eq(s.n_fields, 41);
	ck_assert_str_eq(s.comm, "irq/1-i8042");
	ck_assert_int_eq(s.state, 'R');
	ck_assert_uint_eq(s.flags, 0x00208040);
	ck_assert_int_eq(s.nice, -5);
	ck_assert_uint_eq(s.start_time, 5);
	ck_assert_int_eq(s.processor, 1);
	ck_assert_int_eq(s.rt_priority, 80);
	ck_assert_int_eq(s.policy, SCHED_RR);
}
END_TEST

START_TEST(test_parse_comm)
{
	ProcfsStat s;

	ck_assert_int_eq(procfs_stat_parse("123 (cat)" STAT_TAIL, &s), 0);
	ck_assert_str_eq(s.comm, "cat");
	ck_assert_uint_eq(s.start_time, 424242);
	/* comm may hold spaces and ')': the last ')' ends it */
	ck_assert_int_eq(procfs_stat_parse("123 (a) b (c d))" STAT_TAIL, &s), 0);
	ck_assert_str_eq(s.comm, "a) b (c d)");
	ck_assert_uint_eq(s.start_time, 424242);
	ck_assert_int_eq(procfs_stat_parse("7 ()" STAT_TAIL, &s), 0);
	ck_assert_str_eq(s.comm, "");
}
END_TEST

/* A line that ends early says where: the caller decides what it needs. */
START_TEST(test_parse_short)
{
	ProcfsStat s;

	ck_assert_int_eq(procfs_stat_parse("123 (cat)" STAT_TAIL, &s), 0);
	ck_assert_uint_eq(s.n_fields, 25);
	ck_assert_int_eq(s.policy, 0);
	ck_assert_int_eq(procfs_stat_parse("123 (cat) S 1 2 3", &s), 0);
	ck_assert_uint_eq(s.n_fields, 6);
	ck_assert_int_eq(s.state, 'S');
	ck_assert_uint_eq(s.start_time, 0);
	ck_assert_int_eq(procfs_stat_parse("123 (cat)", &s), 0);
	ck_assert_uint_eq(s.n_fields, 2);
}
END_TEST

START_TEST(test_parse_bad)
{
	ProcfsStat s = { .n_fields = 99 };

	ck_assert_int_eq(procfs_stat_parse("123 cat S 1 2", &s), -EINVAL);
	ck_assert_int_eq(procfs_stat_parse("", &s), -EINVAL);
	ck_assert_int_eq(procfs_stat_parse("701 (truncated", &s), -EINVAL);
	ck_assert_int_eq(procfs_stat_parse("1 )x( S", &s), -EINVAL);
	/* a start time below zero, or with more than digits in it */
	ck_assert_int_eq(
		procfs_stat_parse("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5", &s),
		-EINVAL);
	ck_assert_int_eq(
		procfs_stat_parse("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 5x", &s),
		-EINVAL);
	/* flags that do not fit */
	ck_assert_int_eq(procfs_stat_parse("1 (x) S 1 2 3 4 5 99999999999", &s), -EINVAL);
	ck_assert_uint_eq(s.n_fields, 99); /* untouched on failure */
}
END_TEST

static void *sleeper(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	pause();
	return NULL;
}

START_TEST(test_real_proc)
{
	pid_t self = getpid(), tid = 0;
	uint64_t st1 = 0, st2 = 0;
	ProcfsStat s;
	pthread_t t;

	ck_assert_int_eq(procfs_stat_read("/proc", self, 0, &s), 0);
	ck_assert_str_eq(s.comm, "test-procfs-sta"); /* the kernel cuts comm at 15 */
	ck_assert_int_eq(s.state, 'R');
	ck_assert_int_eq(s.policy, sched_getscheduler(0) & ~SCHED_RESET_ON_FORK);
	ck_assert_uint_ge(s.n_fields, 41);
	ck_assert_int_eq(procfs_start_time("/proc", self, 0, &st1), 0);
	ck_assert_int_eq(procfs_start_time("/proc", self, self, &st2), 0);
	ck_assert_uint_eq(st1, st2);

	ck_assert_int_eq(pthread_create(&t, NULL, sleeper, &tid), 0);
	while (__atomic_load_n(&tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	ck_assert_int_eq(procfs_start_time("/proc", self, tid, &st2), 0);
	ck_assert_uint_ge(st2, st1);
	/* /proc/PID/task/TID exists only for a thread of PID */
	ck_assert_int_eq(procfs_start_time("/proc", 1, tid, &st2), -ESRCH);
}
END_TEST

START_TEST(test_gone)
{
	char buf[16];
	uint64_t st;
	ProcfsStat s;

	/* pid_max is at most 2^22: this pid never exists */
	ck_assert_int_eq(procfs_stat_read("/proc", 99999999, 0, &s), -ESRCH);
	ck_assert_int_eq(procfs_start_time("/proc", 99999999, 0, &st), -ESRCH);
	ck_assert_int_eq(procfs_start_time("/proc", getpid(), 99999999, &st), -ESRCH);
	ck_assert_int_eq(procfs_read_file("/proc/99999999/stat", buf, sizeof(buf)), -ESRCH);
}
END_TEST

START_TEST(test_task_file)
{
	char buf[64], comm[32];

	/* PROC/PID/FILE, and PROC/PID/task/TID/FILE */
	ck_assert_int_gt(procfs_read_task_file("/proc", getpid(), 0, "comm", buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "test-procfs-sta\n");
	ck_assert_int_gt(
		procfs_read_task_file("/proc", getpid(), getpid(), "comm", comm, sizeof(comm)), 0);
	ck_assert_str_eq(comm, buf);
	/* cut to fit */
	ck_assert_int_eq(procfs_read_task_file("/proc", getpid(), 0, "comm", buf, 5), 4);
	ck_assert_str_eq(buf, "test");
	ck_assert_int_eq(
		procfs_read_task_file("/proc", getpid(), 0, "no-such-file", buf, sizeof(buf)),
		-ESRCH);
}
END_TEST

START_TEST(test_policy_names)
{
	ck_assert_str_eq(procfs_sched_policy_to_string(SCHED_FIFO), "fifo");
	ck_assert_str_eq(procfs_sched_policy_to_string(SCHED_RR), "rr");
	ck_assert_str_eq(procfs_sched_policy_to_string(SCHED_OTHER), "other");
	ck_assert_str_eq(procfs_sched_policy_to_string(42), "unknown");
	ck_assert_int_eq(procfs_sched_policy_from_string("fifo"), SCHED_FIFO);
	ck_assert_int_eq(procfs_sched_policy_from_string("rr"), SCHED_RR);
	ck_assert_int_eq(procfs_sched_policy_from_string("other"), SCHED_OTHER);
	ck_assert_int_eq(procfs_sched_policy_from_string("deadline"), 6);
	ck_assert_int_eq(procfs_sched_policy_from_string("FIFO"), -EINVAL);
	ck_assert_int_eq(procfs_sched_policy_from_string(""), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("procfs-stat");

	check_add_case(
		s, "parse",
		CHECK_TESTS(test_parse_fields, test_parse_comm, test_parse_short, test_parse_bad));
	check_add_case(s, "read",
		       CHECK_TESTS(test_real_proc, test_gone, test_task_file, test_policy_names));
	return check_run(s);
}
