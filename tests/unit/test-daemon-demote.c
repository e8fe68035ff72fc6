/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/demote.c: a demotion touches a thread only while
 * its tid is still the thread that was granted. The grant table reads
 * start times from a fake /proc (a directory of this test's), so a tid can
 * be made to look reused: its start time there differs from the grant's.
 * The threads are real threads of this test at SCHED_BATCH nice 12, and
 * their grants record SCHED_IDLE as what they ran with before, so a
 * demotion that touches one is seen (SCHED_IDLE), and needs no privilege.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bus-object.h"
#include "check-main.h"
#include "daemon.h"
#include "pidfd.h"

static char dir[] = "/tmp/test-daemon-demote.XXXXXX";
static char proc[sizeof(dir) + 8], state[sizeof(dir) + 8], conf[sizeof(dir) + 16];

typedef struct Sleeper {
	pthread_t thread;
	pid_t tid;
	int pipe[2];
} Sleeper;

static void *sleeper_main(void *userdata)
{
	Sleeper *s = userdata;
	struct sched_param sp = {};
	char c;

	/* what the thread chose for itself */
	(void)sched_setscheduler(0, SCHED_BATCH, &sp);
	(void)setpriority(PRIO_PROCESS, 0, 12);
	__atomic_store_n(&s->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	while (read(s->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void sleeper_start(Sleeper *s)
{
	ck_assert_int_eq(pipe(s->pipe), 0);
	ck_assert_int_eq(pthread_create(&s->thread, NULL, sleeper_main, s), 0);
	while (__atomic_load_n(&s->tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
}

static int policy_of(pid_t tid)
{
	return sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

/* /proc/PID/task/TID/stat in the fake proc, with start time st (field 22). */
static void fake_stat(pid_t pid, pid_t tid, uint64_t st)
{
	char path[512], line[256];

	snprintf(path, sizeof(path), "%s/%d", proc, (int)pid);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d", proc, (int)pid, (int)tid);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", proc, (int)pid, (int)tid);
	snprintf(line, sizeof(line), "%d (test) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 2 0 %llu 0 0\n",
		 (int)tid, (unsigned long long)st);
	write_file(path, line);
}

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(conf, sizeof(conf), "%s/policy.conf", dir);
	ck_assert_int_eq(mkdir(proc, 0755), 0);
	ck_assert_int_eq(mkdir(state, 0755), 0);
	/* whoever runs the test may hold nice levels from 10 on, no realtime */
	write_file(conf, "[Default]\nNice=10\n");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/test-daemon-demote.XXXXXX");
}

static void daemon_init(Daemon *d)
{
	const char *files[] = { conf };

	memset(d, 0, sizeof(*d));
	d->args.state_dir = state;
	ck_assert_int_ge(sd_event_new(&d->event), 0);
	/* no event: no exit watches, the fake /proc decides */
	ck_assert_int_eq(grant_table_new(NULL, proc, NULL, NULL, &d->grants), 0);
	ck_assert_int_eq(policy_load_files(files, 1, &d->policy), 0);
	ck_assert_uint_eq(policy_n_errors(d->policy), 0);
}

static void daemon_fini(Daemon *d)
{
	d->grants = grant_table_free(d->grants);
	d->policy = policy_free(d->policy);
	d->event = sd_event_unref(d->event);
}

/* A nice-5 grant (below Nice=10: the policy does not allow it) of tid,
 * recorded with start time 1000, SCHED_IDLE before it. */
static void grant(Daemon *d, pid_t tid)
{
	const SchedState before = { .policy = SCHED_IDLE, .nice = 12 };
	pid_t self = getpid();

	ck_assert_int_eq(grant_table_add(d->grants, self, 1, getuid(), pidfd_open_cloexec(self),
					 tid, 1000, GRANT_NICE, 5, &before, 0, NULL),
			 0);
}

START_TEST(test_reload_skips_reused_tid)
{
	Sleeper reused = {}, same = {};
	Daemon d;

	sleeper_start(&reused);
	sleeper_start(&same);
	daemon_init(&d);
	grant(&d, reused.tid);
	grant(&d, same.tid);
	fake_stat(getpid(), reused.tid, 2000); /* another thread took the tid since */
	fake_stat(getpid(), same.tid, 1000);

	daemon_demote_disallowed(&d, "the test's policy");
	/* the granted thread is demoted; the newcomer with its tid is not touched */
	ck_assert_int_eq(policy_of(same.tid), SCHED_IDLE);
	ck_assert_int_eq(policy_of(reused.tid), SCHED_BATCH);
	ck_assert_int_eq(getpriority(PRIO_PROCESS, (id_t)reused.tid), 12);
	/* both grants are gone from the table */
	ck_assert_uint_eq(d.grants->n_grants, 0);
	daemon_fini(&d);
}
END_TEST

START_TEST(test_reset_skips_reused_tid)
{
	Sleeper reused = {};
	Daemon d;

	sleeper_start(&reused);
	daemon_init(&d);
	grant(&d, reused.tid);
	fake_stat(getpid(), reused.tid, 2000);

	/* the thread at that tid now holds no grant: nothing to reset */
	ck_assert_uint_eq(daemon_reset_grants(&d, getpid(), reused.tid), 0);
	ck_assert_int_eq(policy_of(reused.tid), SCHED_BATCH);
	ck_assert_uint_eq(d.grants->n_grants, 0);

	/* the same thread, still the granted one: reset */
	grant(&d, reused.tid);
	fake_stat(getpid(), reused.tid, 1000);
	ck_assert_uint_eq(daemon_reset_grants(&d, getpid(), reused.tid), 1);
	ck_assert_int_eq(policy_of(reused.tid), SCHED_IDLE);
	daemon_fini(&d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-demote");
	TCase *tc;

	tc = check_add_case(s, "demote",
			    CHECK_TESTS(test_reload_skips_reused_tid, test_reset_skips_reused_tid));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
