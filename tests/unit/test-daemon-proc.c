/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/proc.c: the stat, status and limits parsers on
 * tricky input (a comm with spaces and parentheses, short lines, missing
 * fields, "unlimited"), and the readers on the real /proc (this process
 * and its own threads) and on pids that do not exist.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-main.h"
#include "proc.h"

#define STAT_TAIL " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21 22\n"

START_TEST(test_stat_start_time)
{
	uint64_t st = 0;

	ck_assert_int_eq(proc_parse_stat_start_time("123 (cat)" STAT_TAIL, &st), 0);
	ck_assert_uint_eq(st, 424242);
	/* comm may hold spaces and ')': the last ')' ends it */
	st = 0;
	ck_assert_int_eq(proc_parse_stat_start_time("123 (a) b (c d))" STAT_TAIL, &st), 0);
	ck_assert_uint_eq(st, 424242);
}
END_TEST

START_TEST(test_stat_bad)
{
	uint64_t st = 7;

	ck_assert_int_eq(proc_parse_stat_start_time("123 cat S 1 2", &st), -EINVAL);
	ck_assert_int_eq(proc_parse_stat_start_time("123 (cat) S 1 2 3", &st), -EINVAL);
	ck_assert_int_eq(proc_parse_stat_start_time("", &st), -EINVAL);
	ck_assert_int_eq(proc_parse_stat_start_time(
				 "1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -5", &st),
			 -EINVAL);
	ck_assert_uint_eq(st, 7); /* untouched on failure */
}
END_TEST

START_TEST(test_status_uid)
{
	ProcUids u = { 1, 1, 1 };

	ck_assert_int_eq(
		proc_parse_status_uids(
			"Name:\tx\nUmask:\t0022\nUid:\t4101\t4102\t0\t4101\nGid:\t29\n", &u),
		0);
	ck_assert_uint_eq(u.ruid, 4101);
	ck_assert_uint_eq(u.euid, 4102);
	ck_assert_uint_eq(u.suid, 0);
	ck_assert_int_eq(proc_parse_status_uids("Name:\tx\nGid:\t1\n", &u), -EINVAL);
	ck_assert_int_eq(proc_parse_status_uids("Uid:\tabc\n", &u), -EINVAL);
	ck_assert_int_eq(proc_parse_status_uids("Uid:\t1\t2\n", &u), -EINVAL);
	ck_assert_int_eq(proc_parse_status_uids("Uid:\t99999999999\t1\t1\n", &u), -ERANGE);
	ck_assert_int_eq(proc_parse_status_uids("Uid:\t1\t1\t99999999999\n", &u), -ERANGE);
}
END_TEST

START_TEST(test_limits)
{
	static const char limits[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max locked memory         65536                unlimited            bytes     \n"
		"Max realtime priority     0                    95                   \n"
		"Max realtime timeout      200000               unlimited            us        \n";
	uint64_t s = 0, h = 0;

	ck_assert_int_eq(proc_parse_limit(limits, "Max realtime timeout", &s, &h), 0);
	ck_assert_uint_eq(s, 200000);
	ck_assert_uint_eq(h, UINT64_MAX);
	ck_assert_int_eq(proc_parse_limit(limits, "Max realtime priority", &s, &h), 0);
	ck_assert_uint_eq(s, 0);
	ck_assert_uint_eq(h, 95);
	ck_assert_int_eq(proc_parse_limit(limits, "Max nice priority", &s, &h), -ENOENT);
	/* a prefix of another name does not match */
	ck_assert_int_eq(proc_parse_limit(limits, "Max realtime", &s, &h), -ENOENT);
}
END_TEST

static void *sleeper(void *arg)
{
	pid_t *tid = arg;

	*tid = (pid_t)syscall(SYS_gettid);
	pause();
	return NULL;
}

START_TEST(test_real_proc)
{
	pid_t self = getpid(), tid = 0;
	uint64_t st1 = 0, st2 = 0;
	ProcUids u;
	uid_t r, e, s;
	char comm[32];
	pthread_t t;

	ck_assert_int_eq(proc_get_start_time("/proc", self, 0, &st1), 0);
	ck_assert_int_eq(proc_get_start_time("/proc", self, self, &st2), 0);
	ck_assert_uint_eq(st1, st2);
	ck_assert_int_eq(getresuid(&r, &e, &s), 0);
	ck_assert_int_eq(proc_get_uids("/proc", self, 0, &u), 0);
	ck_assert_uint_eq(u.ruid, r);
	ck_assert_uint_eq(u.euid, e);
	ck_assert_uint_eq(u.suid, s);
	ck_assert_int_eq(proc_get_comm("/proc", self, 0, comm, sizeof(comm)), 0);
	ck_assert_str_eq(comm, "test-daemon-pro"); /* the kernel cuts comm at 15 */

	ck_assert_int_eq(pthread_create(&t, NULL, sleeper, &tid), 0);
	while (__atomic_load_n(&tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	ck_assert_int_eq(proc_thread_of("/proc", self, tid), 0);
	ck_assert_int_eq(proc_thread_of("/proc", 1, tid), -ESRCH);
	ck_assert_int_eq(proc_get_start_time("/proc", self, tid, &st2), 0);
	ck_assert_uint_ge(st2, st1);
	/* a thread's own credentials */
	ck_assert_int_eq(proc_get_uids("/proc", self, tid, &u), 0);
	ck_assert_uint_eq(u.ruid, r);
	ck_assert_int_eq(proc_get_uids("/proc", 1, tid, &u), -ESRCH);
}
END_TEST

START_TEST(test_gone)
{
	uint64_t st;
	ProcUids u;

	/* pid_max is at most 2^22: this pid never exists */
	ck_assert_int_eq(proc_get_start_time("/proc", 99999999, 0, &st), -ESRCH);
	ck_assert_int_eq(proc_get_uids("/proc", 99999999, 0, &u), -ESRCH);
	ck_assert_int_eq(proc_thread_of("/proc", getpid(), 99999999), -ESRCH);
	ck_assert_int_eq(proc_thread_of("/proc", 0, 0), -ESRCH);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-proc");

	check_add_case(s, "proc",
		       CHECK_TESTS(test_stat_start_time, test_stat_bad, test_status_uid,
				   test_limits, test_real_proc, test_gone));
	return check_run(s);
}
