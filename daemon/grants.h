/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The grant table: every thread that realtimed made realtime or raised the
 * nice level of, keyed by (pid, tid, start time), grouped by process. Each
 * process is pinned by a pidfd; when it becomes readable (the process
 * exited) its grants go. A non-leader thread is pinned by the PIDFD_THREAD
 * pidfd its request pinned it with (Linux 6.9+), watched the same way.
 * Linux 6.1 has no pidfd for a non-leader thread, so there a thread that
 * exits while its process lives is found by revalidation (start time)
 * before every count and listing, and once a second while such a grant is
 * held: a dead thread never counts against a limit nor shows up.
 *
 * A grant ends when its thread ends. A thread that calls execve() has not
 * ended: the kernel makes it the new program's main thread (with the
 * process's id and start time, and its own scheduling), so a grant whose
 * thread is gone while its process lives and the main thread holds what
 * the grant gave follows it there (grant_table_follow_exec()).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "sched-util.h"

/* Room for a unique bus name (":1.42"), up to two 64-bit numbers. */
#define GRANT_OWNER_MAX 48

typedef struct GrantTable GrantTable;
typedef struct GrantProcess GrantProcess;
typedef struct Grant Grant;

struct Grant {
	GrantProcess *process;
	pid_t tid;
	uint64_t start_time;
	PolicyGrantKind kind;
	int value;	     /* priority, or nice level */
	SchedState before;   /* what the thread ran with before its first grant */
	uint64_t since_usec; /* CLOCK_REALTIME */
	int pidfd;	     /* its request's PIDFD_THREAD pidfd (not the main thread), or -EBADF */
	sd_event_source *exit_source;
	/* the unique bus name of the connection that asked for it last, which
	 * its Demoted signal goes to; "" when not known (adopted at a start) */
	char owner[GRANT_OWNER_MAX];
	Grant *next;
};

struct GrantProcess {
	GrantTable *table;
	pid_t pid;
	uint64_t start_time;
	uid_t uid;
	int pidfd;
	sd_event_source *exit_source;
	Grant *grants;
	unsigned n_grants;
	GrantProcess *next;
};

/* Called after the table changed (grant added, removed, process exited). */
typedef void (*grant_table_changed_t)(GrantTable *t, void *userdata);

struct GrantTable {
	sd_event *event; /* NULL: no exit watches (unit tests) */
	char *proc;
	GrantProcess *processes;
	unsigned n_processes;
	unsigned n_grants;
	grant_table_changed_t changed;
	void *userdata;
	sd_event_source *revalidate_source; /* while a grant has no pidfd of its own */
};

int grant_table_new(sd_event *event, const char *proc, grant_table_changed_t changed,
		    void *userdata, GrantTable **ret);
GrantTable *grant_table_free(GrantTable *t);

GrantProcess *grant_table_find_process(GrantTable *t, pid_t pid);
Grant *grant_table_find(GrantTable *t, pid_t pid, pid_t tid);

/* Adds or updates the grant of (pid, tid). An update to the same kind and
 * value is no change (no callback), so repeated identical requests are cheap. pidfd is taken over
 * (closed on failure too) if the process is new to the table, else closed. A process or thread of
 * the same id but another start time is replaced. before (NULL: not known) is what the thread ran
 * with before the grant; an update keeps the one recorded at the first grant. */
int grant_table_add(GrantTable *t, pid_t pid, uint64_t pid_start, uid_t uid, int pidfd, pid_t tid,
		    uint64_t tid_start, PolicyGrantKind kind, int value, const SchedState *before,
		    uint64_t since_usec, Grant **ret);
/* grant_table_add(), and tidfd (taken over, closed when not kept) is the
 * PIDFD_THREAD pidfd that pinned tid, a thread other than the main one,
 * for the request: the grant keeps it and watches it for the thread's
 * exit. The table never opens one by number itself, which might name
 * another thread by then. -EBADF: no thread pidfd (a kernel before 6.9),
 * start times tell. */
int grant_table_add_pinned(GrantTable *t, pid_t pid, uint64_t pid_start, uid_t uid, int pidfd,
			   pid_t tid, int tidfd, uint64_t tid_start, PolicyGrantKind kind,
			   int value, const SchedState *before, uint64_t since_usec, Grant **ret);

void grant_table_remove(GrantTable *t, Grant *g);

/* Records name, a unique bus name, as the connection that asked for g.
 * NULL, or a name too long to keep: none. Not a change of the table (the
 * state file keeps no bus names: they mean nothing to another bus). */
void grant_set_owner(Grant *g, const char *name);

/* 0 while g's tid is still the thread that was granted: its process's
 * pidfd (and the thread's own, where the kernel gives one) is not readable,
 * and its start time in /proc is the one recorded. -ESRCH when it is gone
 * or its tid is another thread's now; another -errno when that cannot be
 * told now (a poll or a /proc read failed). Every path that changes a
 * thread by tid asks this first and touches it only on 0; only -ESRCH
 * ends a grant (a live realtime thread is never left without one). */
int grant_table_check(GrantTable *t, const Grant *g);

/* g, whose thread other than the main one is gone (grant_table_check()),
 * as the grant of its process's main thread, when that thread called
 * execve(): the process lives with its start time and its main thread
 * holds what g gave (sched_state_may_hold()), which no grant of the main
 * thread's own covers. Returns the grant that now covers the main thread
 * (g, moved; or the main thread's, which took g over, g being freed), with
 * what the thread runs now recorded; NULL when g's thread did not exec
 * (g untouched). Not a change of the table: the caller reports it. */
Grant *grant_table_follow_exec(GrantTable *t, Grant *g);

/* Drops grants whose thread is gone or was reused (grant_table_check()),
 * and moves those whose thread exec'ed (grant_table_follow_exec()).
 * uid == (uid_t)-1: all users. Returns how many were dropped. */
unsigned grant_table_prune(GrantTable *t, uid_t uid);

/* How many processes and threads uid holds grants for. */
void grant_table_count_user(GrantTable *t, uid_t uid, unsigned *ret_processes,
			    unsigned *ret_threads);
/* How many distinct users hold grants. */
unsigned grant_table_n_users(GrantTable *t);
/* The distinct users that hold grants, each once, into *ret_uids (freed
 * by the caller; NULL when there is none) and *ret_n. -ENOMEM. */
int grant_table_users(GrantTable *t, uid_t **ret_uids, size_t *ret_n);

/* Where a GRANT_TABLE_FOREACH is. The grant after the current one is looked
 * up before the body runs, so the body may remove the grant it is at (and
 * with its last grant its process), but no other. */
typedef struct GrantIter {
	GrantProcess *process;
	Grant *grant;
	Grant *next;
	bool go_on; /* the body ended or continued; not set by a break */
} GrantIter;

GrantIter grant_iter_start(GrantTable *t);
/* Moves to the next grant; false at the end, and after a break. */
bool grant_iter_next(GrantIter *it);

/* Every grant g of table t, with its process p, as one loop: break leaves
 * it, continue goes on to the next grant. The two inner for statements only
 * declare p and g, once per grant; the innermost sets go_on when the body
 * ends or continues, which a break skips, and grant_iter_next() then ends
 * the loop. */
#define GRANT_TABLE_FOREACH(p, g, t)                                                  \
	for (GrantIter p##_iter_ = grant_iter_start(t); grant_iter_next(&p##_iter_);) \
		for (GrantProcess *p = p##_iter_.process; p; p = NULL)                \
			for (Grant *g = p##_iter_.grant; g; g = NULL, p##_iter_.go_on = true)
