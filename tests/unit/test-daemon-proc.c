/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/proc.c: the status parser on tricky input (short
 * lines, missing fields), and the readers on the real /proc (this process
 * and its own threads) and on pids that do not exist. The stat and limits
 * files' parsers are procfs/'s (test-procfs-stat.c, test-procfs-limits.c).
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
	ProcUids u;
	uid_t r, e, s;
	char comm[32];
	pthread_t t;

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
	/* a thread's own credentials */
	ck_assert_int_eq(proc_get_uids("/proc", self, tid, &u), 0);
	ck_assert_uint_eq(u.ruid, r);
	ck_assert_int_eq(proc_get_uids("/proc", 1, tid, &u), -ESRCH);
}
END_TEST

START_TEST(test_gone)
{
	ProcUids u;

	/* pid_max is at most 2^22: this pid never exists */
	ck_assert_int_eq(proc_get_uids("/proc", 99999999, 0, &u), -ESRCH);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-proc", "proc",
			      CHECK_TESTS(test_status_uid, test_real_proc, test_gone), NULL, NULL);
}
