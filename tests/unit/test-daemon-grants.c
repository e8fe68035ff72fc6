/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/grants.c: the grant table keyed by (pid, tid, start
 * time). Uses this process and its own threads as targets (no scheduler
 * change is made): adding, updating in place, per-user counts, distinct
 * users, a reused pid replacing stale grants, a thread exit found by pruning,
 * the change callback, and a thread's grant kept with the pidfd its request
 * pinned it by (never one opened again by number, which may name another
 * thread by then).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check-main.h"
#include "grants.h"
#include "pidfd.h"
#include "proc.h"

static unsigned changes;

static void on_changed(GrantTable *t, void *userdata)
{
	changes++;
}

static GrantTable *table(void)
{
	GrantTable *t = NULL;

	ck_assert_int_eq(grant_table_new(NULL, "/proc", on_changed, NULL, &t), 0);
	changes = 0;
	return t;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(GrantTable *, grant_table_free);

static uint64_t start_of(pid_t pid, pid_t tid)
{
	uint64_t st = 0;

	ck_assert_int_eq(procfs_start_time("/proc", pid, tid, &st), 0);
	return st;
}

/* Does the thread still have its start time in /proc, as prune reads it? */
static bool task_exists(pid_t pid, pid_t tid)
{
	uint64_t st;

	return procfs_start_time("/proc", pid, tid, &st) >= 0;
}

START_TEST(test_add_find_update)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);
	Grant *g = NULL;
	unsigned np, nt;

	ck_assert_int_eq(grant_table_add(t, self, st, 4101, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_FIFO, 70, NULL, 1, &g),
			 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_eq(grant_table_find(t, self, self), g);
	ck_assert_ptr_null(grant_table_find(t, self, self + 1));
	ck_assert_uint_eq(t->n_grants, 1);
	ck_assert_uint_eq(t->n_processes, 1);

	/* the same thread again updates in place; the extra pidfd is closed */
	ck_assert_int_eq(grant_table_add(t, self, st, 4101, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_RR, 40, NULL, 2, &g),
			 0);
	ck_assert_uint_eq(t->n_grants, 1);
	ck_assert_int_eq(g->kind, POLICY_GRANT_RR);
	ck_assert_int_eq(g->value, 40);
	grant_table_count_user(t, 4101, &np, &nt);
	ck_assert_uint_eq(np, 1);
	ck_assert_uint_eq(nt, 1);
	grant_table_count_user(t, 4102, &np, &nt);
	ck_assert_uint_eq(np + nt, 0);
	ck_assert_uint_eq(grant_table_n_users(t), 1);
	ck_assert_uint_eq(changes, 2);

	grant_table_remove(t, g);
	ck_assert_uint_eq(t->n_grants, 0);
	ck_assert_uint_eq(t->n_processes, 0); /* the last grant takes its process along */
	ck_assert_uint_eq(changes, 3);
}
END_TEST

START_TEST(test_new_process_needs_pidfd)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);

	ck_assert_int_eq(grant_table_add(t, self, st, 1, -EBADF, self, st, POLICY_GRANT_FIFO, 1,
					 NULL, 0, NULL),
			 -EBADF);
	ck_assert_uint_eq(t->n_grants, 0);
}
END_TEST

START_TEST(test_pid_reuse_replaces)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);

	ck_assert_int_eq(grant_table_add(t, self, st - 1, 4101, pidfd_open_cloexec(self), self,
					 st - 1, POLICY_GRANT_FIFO, 50, NULL, 0, NULL),
			 0);
	/* the same pid with another start time is another process: the old grant is stale */
	ck_assert_int_eq(grant_table_add(t, self, st, 4103, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_RR, 10, NULL, 0, NULL),
			 0);
	ck_assert_uint_eq(t->n_grants, 1);
	ck_assert_uint_eq(grant_table_find_process(t, self)->uid, 4103);
	ck_assert_uint_eq(grant_table_find_process(t, self)->start_time, st);
}
END_TEST

static void *sleeper(void *arg)
{
	pid_t *tid = arg;

	__atomic_store_n(tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	usleep(200000);
	return NULL;
}

START_TEST(test_prune_dead_thread)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid(), tid = 0;
	uint64_t st = start_of(self, 0), tst;
	pthread_t th;

	ck_assert_int_eq(pthread_create(&th, NULL, sleeper, &tid), 0);
	while (__atomic_load_n(&tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	tst = start_of(self, tid);
	ck_assert_int_eq(grant_table_add(t, self, st, 4101, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_FIFO, 10, NULL, 0, NULL),
			 0);
	ck_assert_int_eq(grant_table_add(t, self, st, 4101, -EBADF, tid, tst, POLICY_GRANT_FIFO, 20,
					 NULL, 0, NULL),
			 0);
	ck_assert_uint_eq(t->n_grants, 2);
	ck_assert_uint_eq(grant_table_prune(t, (uid_t)-1), 0);
	pthread_join(th, NULL);
	/* pthread_join() returns when the thread has cleared its tid, a moment
	 * before the kernel removes it from /proc: wait for that (up to 5 s) */
	for (int i = 0; i < 5000 && task_exists(self, tid); i++)
		usleep(1000);
	/* another user's prune leaves it alone; this user's finds the dead thread */
	ck_assert_uint_eq(grant_table_prune(t, 4102), 0);
	ck_assert_uint_eq(grant_table_prune(t, 4101), 1);
	ck_assert_uint_eq(t->n_grants, 1);
	ck_assert_ptr_nonnull(grant_table_find(t, self, self));
	ck_assert_ptr_null(grant_table_find(t, self, tid));
}
END_TEST

/* A thread's /proc file that cannot be read (here a directory where its
 * stat should be: EISDIR) is no proof that the thread is gone: prune keeps
 * its grant, for a live realtime thread must never be left without one.
 * Once the file is gone (ENOENT), the grant goes. */
START_TEST(test_prune_keeps_unreadable)
{
	_cleanup_(grant_table_freep) GrantTable *t = NULL;
	char root[] = "/tmp/rt-grants-XXXXXX", path[PATH_MAX];
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/%d", root, (int)self);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/task", root, (int)self);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d", root, (int)self, (int)self);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, (int)self, (int)self);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(grant_table_new(NULL, root, on_changed, NULL, &t), 0);
	ck_assert_int_eq(grant_table_add(t, self, st, 4101, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_FIFO, 10, NULL, 0, NULL),
			 0);
	ck_assert_uint_eq(grant_table_prune(t, (uid_t)-1), 0);
	ck_assert_ptr_nonnull(grant_table_find(t, self, self));
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_uint_eq(grant_table_prune(t, (uid_t)-1), 1);
	ck_assert_ptr_null(grant_table_find(t, self, self));
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* The pidfd that pinned a thread for its request is the one the table
 * keeps and watches: here the thread exits between its pin and the record
 * (its tid free for another thread to take), and the table still knows it
 * gone, through that pidfd, where a pidfd opened by number now would fail
 * or name another thread. */
START_TEST(test_keeps_request_pidfd)
{
	pid_t self = getpid(), tid = 0;
	uint64_t st = start_of(self, 0), tst;
	GrantTable *t = NULL;
	sd_event *e = NULL;
	Grant *g = NULL;
	pthread_t th;
	int tidfd;

	ck_assert_int_ge(sd_event_new(&e), 0);
	ck_assert_int_eq(grant_table_new(e, "/proc", on_changed, NULL, &t), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, sleeper, &tid), 0);
	while (__atomic_load_n(&tid, __ATOMIC_SEQ_CST) == 0)
		usleep(1000);
	tst = start_of(self, tid);
	tidfd = pidfd_open_thread(tid);
	if (tidfd == -EINVAL) {
		/* before Linux 6.9: start times pin threads, nothing to keep */
		pthread_join(th, NULL);
		grant_table_free(t);
		sd_event_unref(e);
		return;
	}
	ck_assert_int_ge(tidfd, 0);

	/* a live thread: its grant holds the request's very pidfd */
	ck_assert_int_eq(grant_table_add_pinned(t, self, st, 4101, pidfd_open_cloexec(self), tid,
						tidfd, tst, POLICY_GRANT_FIFO, 20, NULL, 0, &g),
			 0);
	ck_assert_int_eq(g->pidfd, tidfd);
	/* repeated with a duplicate (request_pin() dups the table's): one kept */
	ck_assert_int_eq(grant_table_add_pinned(t, self, st, 4101, -EBADF, tid,
						fcntl(tidfd, F_DUPFD_CLOEXEC, 3), tst,
						POLICY_GRANT_FIFO, 20, NULL, 0, &g),
			 0);
	ck_assert_int_eq(g->pidfd, tidfd);
	grant_table_remove(t, g);
	ck_assert_uint_eq(t->n_grants, 0);

	/* the thread exits after its pin, before its record */
	tidfd = pidfd_open_thread(tid);
	ck_assert_int_ge(tidfd, 0);
	pthread_join(th, NULL);
	for (int i = 0; i < 5000 && task_exists(self, tid); i++)
		usleep(1000);
	ck_assert_int_eq(grant_table_add_pinned(t, self, st, 4101, pidfd_open_cloexec(self), tid,
						tidfd, tst, POLICY_GRANT_FIFO, 20, NULL, 0, &g),
			 0);
	ck_assert_msg(g->pidfd == tidfd, "the grant holds pidfd %d, not the request's %d", g->pidfd,
		      tidfd);
	ck_assert_int_eq(grant_table_check(t, g), -ESRCH);
	/* and its readable pidfd drops the grant, as an exit after the record does */
	for (int i = 0; i < 10 && grant_table_find(t, self, tid); i++)
		ck_assert_int_ge(sd_event_run(e, 100000), 0);
	ck_assert_ptr_null(grant_table_find(t, self, tid));
	grant_table_free(t);
	sd_event_unref(e);
}
END_TEST

/* The connection that asked for a grant is kept for its Demoted signal:
 * a unique name as the bus gives it; none for NULL or a name too long to
 * keep (Demoted then goes to no owner); an update keeps it until the next
 * asker is recorded. */
START_TEST(test_owner)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid();
	uint64_t st = start_of(self, 0);
	char longname[GRANT_OWNER_MAX + 8];
	Grant *g = NULL;

	ck_assert_int_eq(grant_table_add(t, self, st, 7, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_NICE, -5, NULL, 0, &g),
			 0);
	ck_assert_str_eq(g->owner, ""); /* not known until set, as after adoption */
	grant_set_owner(g, ":1.18446744073709551615.18446744073709551615");
	ck_assert_str_eq(g->owner, ":1.18446744073709551615.18446744073709551615");
	ck_assert_int_eq(grant_table_add(t, self, st, 7, -EBADF, self, st, POLICY_GRANT_NICE, -6,
					 NULL, 0, &g),
			 0);
	ck_assert_str_eq(g->owner, ":1.18446744073709551615.18446744073709551615");
	memset(longname, 'x', sizeof(longname) - 1);
	longname[0] = ':';
	longname[sizeof(longname) - 1] = '\0';
	grant_set_owner(g, longname);
	ck_assert_str_eq(g->owner, "");
	grant_set_owner(g, ":1.7");
	grant_set_owner(g, NULL);
	ck_assert_str_eq(g->owner, "");
}
END_TEST

START_TEST(test_users_counted_once)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid(), parent = getppid();
	uint64_t st = start_of(self, 0), pst = start_of(parent, 0);

	ck_assert_int_eq(grant_table_add(t, self, st, 7, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_NICE, -5, NULL, 0, NULL),
			 0);
	ck_assert_int_eq(grant_table_add(t, parent, pst, 7, pidfd_open_cloexec(parent), parent, pst,
					 POLICY_GRANT_NICE, -5, NULL, 0, NULL),
			 0);
	ck_assert_uint_eq(grant_table_n_users(t), 1);
	ck_assert_uint_eq(t->n_processes, 2);
	{
		/* and listed once, for the resolver (a reload, ListGrants) */
		_cleanup_free_ uid_t *uids = NULL;
		size_t n = 0;

		ck_assert_int_eq(grant_table_users(t, &uids, &n), 0);
		ck_assert_uint_eq(n, 1);
		ck_assert_uint_eq(uids[0], 7);
	}
	/* its last grant takes the process along */
	grant_table_remove(t, grant_table_find(t, parent, parent));
	ck_assert_uint_eq(t->n_processes, 1);
	ck_assert_uint_eq(t->n_grants, 1);
}
END_TEST

/* GRANT_TABLE_FOREACH is one loop over every grant of every process: a
 * break leaves it whole, a continue goes on to the next grant, and the body
 * may remove the grant it is at, and with its last grant its process. */
START_TEST(test_foreach_is_one_loop)
{
	_cleanup_(grant_table_freep) GrantTable *t = table();
	pid_t self = getpid(), parent = getppid();
	uint64_t st = start_of(self, 0), pst = start_of(parent, 0);
	unsigned seen = 0, skipped = 0;

	/* two grants of this process (no exit watch: any tid will do), one of the parent */
	ck_assert_int_eq(grant_table_add(t, self, st, 7, pidfd_open_cloexec(self), self, st,
					 POLICY_GRANT_NICE, -5, NULL, 0, NULL),
			 0);
	ck_assert_int_eq(grant_table_add(t, self, st, 7, -EBADF, self + 1, st, POLICY_GRANT_NICE,
					 -5, NULL, 0, NULL),
			 0);
	ck_assert_int_eq(grant_table_add(t, parent, pst, 8, pidfd_open_cloexec(parent), parent, pst,
					 POLICY_GRANT_NICE, -5, NULL, 0, NULL),
			 0);
	ck_assert_uint_eq(t->n_grants, 3);

	GRANT_TABLE_FOREACH(p, g, t) {
		seen++;
		break;
	}
	ck_assert_uint_eq(seen, 1);

	seen = 0;
	GRANT_TABLE_FOREACH(p, g, t) {
		ck_assert_ptr_eq(g->process, p);
		if (p->pid == self) {
			skipped++;
			continue;
		}
		seen++;
	}
	ck_assert_uint_eq(skipped, 2);
	ck_assert_uint_eq(seen, 1);

	/* a break in the first process's grants does not go on to the next process */
	seen = 0;
	GRANT_TABLE_FOREACH(p, g, t) {
		seen++;
		if (p->n_grants == 2)
			break;
	}
	ck_assert_uint_eq(seen, t->processes->n_grants == 2 ? 1 : 2);

	seen = 0;
	GRANT_TABLE_FOREACH(p, g, t) {
		seen++;
		grant_table_remove(t, g);
	}
	ck_assert_uint_eq(seen, 3);
	ck_assert_uint_eq(t->n_grants, 0);
	ck_assert_uint_eq(t->n_processes, 0);
}
END_TEST

START_TEST(test_kind_names)
{
	static const char *const names[_POLICY_GRANT_KIND_MAX] = {
		[POLICY_GRANT_FIFO] = "fifo", [POLICY_GRANT_RR] = "rr", [POLICY_GRANT_NICE] = "nice"
	};
	/* one value out of range for each kind */
	static const int bad_value[_POLICY_GRANT_KIND_MAX] = {
		[POLICY_GRANT_FIFO] = 0, [POLICY_GRANT_RR] = 100, [POLICY_GRANT_NICE] = -21
	};

	for (PolicyGrantKind k = 0; k < _POLICY_GRANT_KIND_MAX; k++) {
		ck_assert_str_eq(policy_grant_kind_to_string(k), names[k]);
		ck_assert_int_eq(sched_apply(0, k, bad_value[k]), -EINVAL);
	}
	ck_assert_ptr_null(policy_grant_kind_to_string(_POLICY_GRANT_KIND_MAX));
	ck_assert_int_eq(policy_grant_kind_from_string("rr"), POLICY_GRANT_RR);
	ck_assert_int_eq(policy_grant_kind_from_string("deadline"), _POLICY_GRANT_KIND_INVALID);
	ck_assert_int_eq(policy_grant_kind_from_string(NULL), _POLICY_GRANT_KIND_INVALID);
}
END_TEST

int main(void)
{
	return check_run_case("daemon-grants", "grants",
			      CHECK_TESTS(test_add_find_update, test_new_process_needs_pidfd,
					  test_pid_reuse_replaces, test_prune_dead_thread,
					  test_prune_keeps_unreadable, test_keeps_request_pidfd,
					  test_owner, test_users_counted_once,
					  test_foreach_is_one_loop, test_kind_names),
			      NULL, NULL);
}
