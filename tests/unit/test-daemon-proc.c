/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/proc.c: the status parsers on tricky input (short
 * lines, missing fields; NSpid lines that are cut, too deep, not numbers),
 * and the readers on the real /proc (this process and its own threads, its
 * pid namespace) and on pids that do not exist. The stat and limits
 * files' parsers are procfs/'s (test-procfs-stat.c, test-procfs-limits.c).
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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

START_TEST(test_status_nspid)
{
	char deep[512] = "NSpid:", *p = deep + strlen(deep);
	ProcNspid ns = { .n = 99 };

	ck_assert_int_eq(proc_parse_status_nspid("Name:\tx\nNSpid:\t4101\n", &ns), 0);
	ck_assert_uint_eq(ns.n, 1);
	ck_assert_int_eq(ns.ids[0], 4101);
	/* the first line counts; a comm cannot fake one (the kernel escapes \n) */
	ck_assert_int_eq(
		proc_parse_status_nspid("Name:\tNSpid:\t1\nNSpid:\t900\t3\t1\nNSpid:\t5\n", &ns),
		0);
	ck_assert_uint_eq(ns.n, 3);
	ck_assert_int_eq(ns.ids[0], 900);
	ck_assert_int_eq(ns.ids[1], 3);
	ck_assert_int_eq(ns.ids[2], 1);

	ns = (ProcNspid){ .n = 99 };
	ck_assert_int_eq(proc_parse_status_nspid("Name:\tx\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t12\t3", &ns), -EINVAL); /* cut short */
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t12\t", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t12 3\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t12\t\t3\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t-1\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t0\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t12x\n", &ns), -EINVAL);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t2147483648\n", &ns), -ERANGE);
	ck_assert_int_eq(proc_parse_status_nspid("NSpid:\t99999999999999999999999\n", &ns),
			 -ERANGE);
	/* 32 levels at most, as the kernel nests them */
	for (int i = 1; i <= PROC_NSPID_MAX; i++)
		p += sprintf(p, "\t%d", i);
	strcpy(p, "\n");
	ck_assert_int_eq(proc_parse_status_nspid(deep, &ns), 0);
	ck_assert_uint_eq(ns.n, PROC_NSPID_MAX);
	ck_assert_int_eq(ns.ids[PROC_NSPID_MAX - 1], PROC_NSPID_MAX);
	strcpy(p, "\t33\n");
	ns.n = 99;
	ck_assert_int_eq(proc_parse_status_nspid(deep, &ns), -EINVAL);
	ck_assert_uint_eq(ns.n, 99); /* untouched */
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
	uint64_t mine, self_ns;
	ProcNspid ns;
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

	/* ids and namespace: the process's own, as /proc/self says */
	ck_assert_int_eq(proc_get_nspid("/proc", self, tid, &ns), 0);
	ck_assert_int_eq(ns.ids[0], tid);
	ck_assert_int_eq(proc_get_pidns("/proc", self, &mine), 0);
	ck_assert_int_eq(proc_get_pidns("/proc", 0, &self_ns), 0);
	ck_assert_uint_eq(mine, self_ns);
}
END_TEST

START_TEST(test_gone)
{
	ProcNspid ns;
	uint64_t inode;
	ProcUids u;

	/* pid_max is at most 2^22: this pid never exists */
	ck_assert_int_eq(proc_get_uids("/proc", 99999999, 0, &u), -ESRCH);
	ck_assert_int_eq(proc_get_nspid("/proc", 99999999, 0, &ns), -ESRCH);
	ck_assert_int_eq(proc_get_pidns("/proc", 99999999, &inode), -ESRCH);
}
END_TEST

int main(void)
{
	return check_run_case(
		"daemon-proc", "proc",
		CHECK_TESTS(test_status_uid, test_status_nspid, test_real_proc, test_gone), NULL,
		NULL);
}
