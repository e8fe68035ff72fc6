/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/state.c: the grant table written to the state
 * directory and adopted by a new table, as after a daemon restart. Targets
 * are this process's own threads with a "nice 0" grant, which they already
 * hold, so nothing needs privileges. Lines whose process is gone, whose start
 * time or owner differs, or that are garbage, are not adopted. A thread
 * other than the main one is adopted pinned by its own pidfd, with no bus
 * owner.
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-main.h"
#include "pidfd.h"
#include "proc.h"
#include "state.h"
#include "../sleeper.h"

#define DIR_TEMPLATE "/tmp/test-daemon-state.XXXXXX"
static char dir[sizeof(DIR_TEMPLATE)];

/* Each test's own state directory, from the template again each time (with
 * CK_FORK=no the tests share one process). */
static void setup(void)
{
	strcpy(dir, DIR_TEMPLATE);
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void daemon_init(Daemon *d)
{
	char conf[256];
	const char *files[] = { conf };
	FILE *f;

	memset(d, 0, sizeof(*d));
	d->args.state_dir = dir;
	d->args.proc = "/proc";
	ck_assert_int_ge(sd_event_new(&d->event), 0);
	ck_assert_int_eq(grant_table_new(d->event, "/proc", NULL, NULL, &d->grants), 0);
	/* the policy adoption decides by: whoever runs the test may hold nice 0 */
	snprintf(conf, sizeof(conf), "%s/policy.conf", dir);
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[Default]\nNice=0\n", f);
	fclose(f);
	ck_assert_int_eq(policy_load_files(files, 1, &d->policy), 0);
}

static void daemon_fini(Daemon *d)
{
	d->save_source = sd_event_source_disable_unref(d->save_source);
	d->grants = grant_table_free(d->grants);
	d->policy = policy_free(d->policy);
	d->event = sd_event_unref(d->event);
}

static uint64_t start_of(pid_t pid, pid_t tid)
{
	uint64_t st = 0;

	ck_assert_int_eq(procfs_start_time("/proc", pid, tid, &st), 0);
	return st;
}

START_TEST(test_save_and_adopt)
{
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);
	const SchedState before = { .policy = SCHED_BATCH, .nice = 3, .reset_on_fork = true };
	char path[256], line[256];
	Daemon d;
	FILE *f;

	daemon_init(&d);
	ck_assert_int_eq(grant_table_add(d.grants, self, st, getuid(), pidfd_open_cloexec(self),
					 self, st, POLICY_GRANT_NICE, 0, &before, 1234, NULL),
			 0);
	ck_assert_int_eq(daemon_state_save(&d), 0);
	daemon_fini(&d);

	/* add what a restart must not adopt */
	snprintf(path, sizeof(path), "%s/grants", dir);
	f = fopen(path, "a");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "99999999 1 %u 99999999 1 fifo 50 1\n", (unsigned)getuid()); /* gone */
	fprintf(f, "%d %llu %u %d %llu nice 0 1\n", (int)self, (unsigned long long)st + 1,
		(unsigned)getuid(), (int)self,
		(unsigned long long)st + 1); /* pid reused meanwhile */
	fprintf(f, "%d %llu %u %d %llu nice 0 1\n", (int)self, (unsigned long long)st,
		(unsigned)getuid() + 1, (int)self, (unsigned long long)st); /* another owner */
	fprintf(f, "%d %llu %u %d %llu fifo 50 1\n", (int)self, (unsigned long long)st,
		(unsigned)getuid(), (int)self,
		(unsigned long long)st); /* no longer runs as granted */
	fprintf(f, "garbage\n\n# comment\n1 2 3\n");
	fclose(f);

	daemon_init(&d);
	ck_assert_int_eq(daemon_state_adopt(&d), 1);
	ck_assert_uint_eq(d.grants->n_grants, 1);
	{
		Grant *g = grant_table_find(d.grants, self, self);

		ck_assert_ptr_nonnull(g);
		ck_assert_int_eq(g->kind, POLICY_GRANT_NICE);
		ck_assert_uint_eq(g->since_usec, 1234); /* "since" survives the restart */
		ck_assert_uint_eq(g->start_time, st);
		/* and so does what a reset puts back */
		ck_assert_int_eq(g->before.policy, SCHED_BATCH);
		ck_assert_int_eq(g->before.nice, 3);
		ck_assert(g->before.reset_on_fork);
	}
	/* the adoption rewrote the file with only what was adopted */
	ck_assert_int_ge(sd_event_run(d.event, 0), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	{
		int n = 0;

		while (fgets(line, sizeof(line), f))
			if (line[0] != '#')
				n++;
		ck_assert_int_eq(n, 1);
	}
	fclose(f);
	daemon_fini(&d);
}
END_TEST

/* A thread other than the main one is adopted pinned by its own pidfd
 * (6.9+), opened before its start time is checked, and with no owner on
 * the bus: which connection asked for it is not known after a restart, so
 * its Demoted goes to watchers only. */
START_TEST(test_adopted_thread_pinned_no_owner)
{
	pid_t self = getpid(), tid;
	uint64_t st = start_of(self, 0);
	SleeperThread sl;
	int pipefd[2];
	Grant *g = NULL;
	Daemon d;

	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(sleeper_thread_start(&sl, pipefd[0], NULL), 0);
	tid = sl.tid;

	daemon_init(&d);
	ck_assert_int_eq(grant_table_add(d.grants, self, st, getuid(), pidfd_open_cloexec(self),
					 tid, start_of(self, tid), POLICY_GRANT_NICE, 0, NULL, 1,
					 &g),
			 0);
	grant_set_owner(g, ":1.42");
	ck_assert_int_eq(daemon_state_save(&d), 0);
	daemon_fini(&d);

	daemon_init(&d);
	ck_assert_int_eq(daemon_state_adopt(&d), 1);
	g = grant_table_find(d.grants, self, tid);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(g->owner, "");
	{
		int probe = pidfd_open_thread(tid);

		if (probe != -EINVAL) /* Linux 6.9+: pinned by its own pidfd */
			ck_assert_int_ge(g->pidfd, 0);
		safe_close(probe);
	}
	daemon_fini(&d);
	ck_assert_int_eq(write(pipefd[1], "x", 1), 1);
	pthread_join(sl.thread, NULL);
}
END_TEST

/* A v1 line (written before the state before the grant was kept) is still
 * adopted; that state is unknown then, and written so. */
START_TEST(test_v1_line)
{
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);
	char path[256], line[256];
	bool found = false;
	Daemon d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/grants", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"# realtimed grant table v1: pid pid-start uid tid tid-start kind value since\n");
	fprintf(f, "%d %llu %u %d %llu nice 0 77\n", (int)self, (unsigned long long)st,
		(unsigned)getuid(), (int)self, (unsigned long long)st);
	fclose(f);

	daemon_init(&d);
	ck_assert_int_eq(daemon_state_adopt(&d), 1);
	ck_assert(!sched_state_known(&grant_table_find(d.grants, self, self)->before));
	ck_assert_int_ge(sd_event_run(d.event, 0), 0);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	ck_assert_ptr_nonnull(strstr(line, "v2"));
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#') {
			ck_assert_ptr_nonnull(strstr(line, " nice 0 77 unknown "));
			found = true;
		}
	fclose(f);
	ck_assert(found);
	daemon_fini(&d);
}
END_TEST

START_TEST(test_empty_table_removes_file)
{
	char path[256];
	Daemon d;
	FILE *f;

	snprintf(path, sizeof(path), "%s/grants", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("99999999 1 0 99999999 1 rr 5 1\n", f);
	fclose(f);
	daemon_init(&d);
	ck_assert_int_eq(daemon_state_adopt(&d), 0);
	ck_assert_int_ge(sd_event_run(d.event, 0), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	/* no file at all is fine too */
	ck_assert_int_eq(daemon_state_adopt(&d), 0);
	daemon_fini(&d);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-state", "state",
			      CHECK_TESTS(test_save_and_adopt, test_v1_line,
					  test_empty_table_removes_file,
					  test_adopted_thread_pinned_no_owner),
			      setup, teardown);
}
