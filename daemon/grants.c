// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The grant table; see grants.h. Lists, not hashes: the table is bounded by
 * [Daemon] UsersMax x ProcessesPerUserMax x ThreadsPerUserMax and in
 * practice holds a few dozen threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "grants.h"
#include "log.h"
#include "macro.h"
#include "pidfd.h"
#include "proc.h"
#include "time-util.h"

/* How often grants without a pidfd of their own are revalidated. */
#define REVALIDATE_USEC (1 * USEC_PER_SEC)

int grant_table_new(sd_event *event, const char *proc, grant_table_changed_t changed,
		    void *userdata, GrantTable **ret)
{
	GrantTable *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->proc = strdup(proc ? proc : "/proc");
	if (!t->proc) {
		free(t);
		return -ENOMEM;
	}
	t->event = event ? sd_event_ref(event) : NULL;
	t->changed = changed;
	t->userdata = userdata;
	*ret = t;
	return 0;
}

static void grant_free(Grant *g)
{
	sd_event_source_disable_unref(g->exit_source);
	safe_close(g->pidfd);
	free(g);
}

static void process_free(GrantProcess *p)
{
	Grant *g, *n;

	for (g = p->grants; g; g = n) {
		n = g->next;
		grant_free(g);
	}
	sd_event_source_disable_unref(p->exit_source);
	safe_close(p->pidfd);
	free(p);
}

GrantTable *grant_table_free(GrantTable *t)
{
	GrantProcess *p, *n;

	if (!t)
		return NULL;
	for (p = t->processes; p; p = n) {
		n = p->next;
		process_free(p);
	}
	sd_event_source_disable_unref(t->revalidate_source);
	sd_event_unref(t->event);
	free(t->proc);
	free(t);
	return NULL;
}

static void revalidate_arm(GrantTable *t);

static void table_changed(GrantTable *t)
{
	revalidate_arm(t);
	if (t->changed)
		t->changed(t, t->userdata);
}

GrantProcess *grant_table_find_process(GrantTable *t, pid_t pid)
{
	for (GrantProcess *p = t->processes; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

Grant *grant_table_find(GrantTable *t, pid_t pid, pid_t tid)
{
	GrantProcess *p = grant_table_find_process(t, pid);

	if (!p)
		return NULL;
	for (Grant *g = p->grants; g; g = g->next)
		if (g->tid == tid)
			return g;
	return NULL;
}

static void unlink_process(GrantTable *t, GrantProcess *p)
{
	for (GrantProcess **pp = &t->processes; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	t->n_processes--;
	t->n_grants -= p->n_grants;
	process_free(p);
}

static void unlink_grant(GrantTable *t, Grant *g)
{
	GrantProcess *p = g->process;

	for (Grant **gg = &p->grants; *gg; gg = &(*gg)->next)
		if (*gg == g) {
			*gg = g->next;
			break;
		}
	p->n_grants--;
	t->n_grants--;
	grant_free(g);
	if (p->n_grants == 0)
		unlink_process(t, p);
}

void grant_table_remove(GrantTable *t, Grant *g)
{
	unlink_grant(t, g);
	table_changed(t);
}

void grant_set_owner(Grant *g, const char *name)
{
	if (!name || strlen(name) >= sizeof(g->owner))
		name = "";
	strcpy(g->owner, name);
}

static int on_thread_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Grant *g = userdata;
	GrantTable *t = g->process->table;

	/* Readable PIDFD_THREAD pidfd: the thread exited, or called execve()
	 * and lives on as the main thread. */
	if (grant_table_follow_exec(t, g))
		table_changed(t);
	else
		grant_table_remove(t, g);
	return 0;
}

/* Takes tidfd, the pidfd that pinned a non-leader thread for its grant,
 * and watches it for the thread's exit. Never a pidfd opened here by
 * number: by now the tid may name another thread. Without one (a kernel
 * before 6.9, the main thread, a test) revalidation by start time covers
 * the thread. */
static void grant_watch_thread(GrantTable *t, Grant *g, int tidfd)
{
	g->exit_source = sd_event_source_disable_unref(g->exit_source);
	safe_close(g->pidfd);
	g->pidfd = -EBADF;
	if (tidfd < 0)
		return;
	if (g->tid == g->process->pid) {
		safe_close(tidfd); /* the process's pidfd pins the main thread */
		return;
	}
	g->pidfd = tidfd;
	/* without a watch, revalidation still asks the pidfd */
	if (t->event &&
	    sd_event_add_io(t->event, &g->exit_source, g->pidfd, EPOLLIN, on_thread_pidfd, g) < 0)
		g->exit_source = NULL;
}

static int on_pidfd(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	GrantProcess *p = userdata;
	GrantTable *t = p->table;

	/* Readable pidfd: the process exited, its threads with it. */
	unlink_process(t, p);
	table_changed(t);
	return 0;
}

int grant_table_add(GrantTable *t, pid_t pid, uint64_t pid_start, uid_t uid, int pidfd, pid_t tid,
		    uint64_t tid_start, PolicyGrantKind kind, int value, const SchedState *before,
		    uint64_t since_usec, Grant **ret)
{
	return grant_table_add_pinned(t, pid, pid_start, uid, pidfd, tid, -EBADF, tid_start, kind,
				      value, before, since_usec, ret);
}

int grant_table_add_pinned(GrantTable *t, pid_t pid, uint64_t pid_start, uid_t uid, int pidfd,
			   pid_t tid, int tidfd, uint64_t tid_start, PolicyGrantKind kind,
			   int value, const SchedState *before, uint64_t since_usec, Grant **ret)
{
	_cleanup_close_ int fd = pidfd, thread_fd = tidfd;
	GrantProcess *p;
	Grant *g = NULL;
	int r;

	p = grant_table_find_process(t, pid);
	if (p && (p->start_time != pid_start || p->uid != uid)) {
		/* The pid was reused since: the old grants are stale. */
		unlink_process(t, p);
		p = NULL;
	}

	if (!p) {
		if (fd < 0)
			return -EBADF;
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->table = t;
		p->pid = pid;
		p->start_time = pid_start;
		p->uid = uid;
		p->pidfd = TAKE_FD(fd);
		if (t->event) {
			r = sd_event_add_io(t->event, &p->exit_source, p->pidfd, EPOLLIN, on_pidfd,
					    p);
			if (r < 0) {
				process_free(p);
				return r;
			}
		}
		p->next = t->processes;
		t->processes = p;
		t->n_processes++;
	} else {
		for (g = p->grants; g; g = g->next)
			if (g->tid == tid)
				break;
		if (g && g->start_time != tid_start) {
			/* A reused tid in the same process: the stale grant is
			 * replaced in place. */
			g->start_time = tid_start;
			g->before = before ? *before : SCHED_STATE_UNKNOWN;
			g->owner[0] = '\0';
			grant_watch_thread(t, g, TAKE_FD(thread_fd));
		} else if (g) {
			/* the same thread: pinned by a pidfd from now on, if it was
			 * not (adopted without one) */
			if (g->pidfd < 0 && thread_fd >= 0)
				grant_watch_thread(t, g, TAKE_FD(thread_fd));
			if (g->kind == kind && g->value == value) {
				if (ret)
					*ret = g;
				return 0;
			}
		}
	}

	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g) {
			if (p->n_grants == 0)
				unlink_process(t, p);
			return -ENOMEM;
		}
		g->process = p;
		g->tid = tid;
		g->start_time = tid_start;
		g->before = before ? *before : SCHED_STATE_UNKNOWN;
		g->pidfd = -EBADF;
		grant_watch_thread(t, g, TAKE_FD(thread_fd));
		g->next = p->grants;
		p->grants = g;
		p->n_grants++;
		t->n_grants++;
	}
	g->kind = kind;
	g->value = value;
	g->since_usec = since_usec;

	table_changed(t);
	if (ret)
		*ret = g;
	return 0;
}

static Grant *grant_after(const Grant *g)
{
	if (g->next)
		return g->next;
	for (GrantProcess *p = g->process->next; p; p = p->next)
		if (p->grants)
			return p->grants;
	return NULL;
}

GrantIter grant_iter_start(GrantTable *t)
{
	GrantIter it = { .go_on = true };

	for (GrantProcess *p = t->processes; p && !it.next; p = p->next)
		it.next = p->grants;
	return it;
}

bool grant_iter_next(GrantIter *it)
{
	if (!it->go_on || !it->next)
		return false;
	it->grant = it->next;
	it->process = it->grant->process;
	it->next = grant_after(it->grant);
	it->go_on = false;
	return true;
}

int grant_table_check(GrantTable *t, const Grant *g)
{
	uint64_t st;
	int k;

	k = pidfd_alive(g->process->pidfd);
	if (k >= 0 && g->pidfd >= 0)
		k = pidfd_alive(g->pidfd);
	if (k < 0)
		return k;
	k = procfs_start_time(t->proc, g->process->pid, g->tid, &st);
	if (k == -ENOENT || k == -ESRCH || (k >= 0 && st != g->start_time))
		return -ESRCH;
	return k < 0 ? k : 0;
}

Grant *grant_table_follow_exec(GrantTable *t, Grant *g)
{
	GrantProcess *p = g->process;
	PolicyGrantKind kind;
	SchedState now;
	uint64_t st;
	Grant *m;
	int value;

	if (g->tid == p->pid || pidfd_alive(p->pidfd) < 0 ||
	    procfs_start_time(t->proc, p->pid, p->pid, &st) < 0 || st != p->start_time ||
	    sched_get_state(p->pid, &now) < 0 || !sched_state_may_hold(&now, g->kind, g->value) ||
	    sched_state_as_grant(&now, &kind, &value) < 0 ||
	    /* what was read was of this process's main thread */
	    pidfd_alive(p->pidfd) < 0)
		return NULL;
	for (m = p->grants; m; m = m->next)
		if (m->tid == p->pid)
			break;
	if (m && sched_state_may_hold(&now, m->kind, m->value))
		return NULL; /* the main thread's own grant covers what it runs */

	log_id(LOG_INFO, LOG_ID_GRANT,
	       "Thread %d of process %d called execve() and runs %s %d as its main thread: "
	       "its grant stays, supervised",
	       (int)g->tid, (int)p->pid, policy_grant_kind_to_string(kind), value);
	if (m) {
		/* The main thread's grant was of the thread de_thread() ended:
		 * it takes over g's. */
		m->before = g->before;
		m->since_usec = g->since_usec;
		memcpy(m->owner, g->owner, sizeof(m->owner));
		unlink_grant(t, g);
		g = m;
	} else {
		g->tid = p->pid;
		grant_watch_thread(t, g, -EBADF); /* the process's pidfd pins it */
	}
	g->start_time = st;
	g->kind = kind;
	g->value = value;
	return g;
}

unsigned grant_table_prune(GrantTable *t, uid_t uid)
{
	unsigned n = 0;
	bool followed = false;

	GRANT_TABLE_FOREACH(p, g, t) {
		if (uid != (uid_t)-1 && p->uid != uid)
			continue;
		/* gone for sure, or kept: a thread that cannot be told apart
		 * now stays supervised until it can */
		if (grant_table_check(t, g) != -ESRCH)
			continue;
		if (grant_table_follow_exec(t, g)) {
			followed = true;
			continue;
		}
		unlink_grant(t, g);
		n++;
	}
	if (n > 0 || followed)
		table_changed(t);
	return n;
}

static int on_revalidate(sd_event_source *s, uint64_t usec, void *userdata)
{
	GrantTable *t = userdata;

	if (grant_table_prune(t, (uid_t)-1) == 0)
		revalidate_arm(t); /* else the change did */
	return 0;
}

/* A grant of a thread other than the main one, without a PIDFD_THREAD
 * pidfd (Linux before 6.9), is not told when its thread exits or execs:
 * while one is held, the table looks again every REVALIDATE_USEC. */
static void revalidate_arm(GrantTable *t)
{
	bool unpinned = false;

	if (!t->event)
		return;
	GRANT_TABLE_FOREACH(p, g, t)
		if (g->tid != p->pid && g->pidfd < 0) {
			unpinned = true;
			break;
		}
	if (!unpinned) {
		if (t->revalidate_source)
			(void)sd_event_source_set_enabled(t->revalidate_source, SD_EVENT_OFF);
		return;
	}
	if (!t->revalidate_source) {
		if (sd_event_add_time_relative(t->event, &t->revalidate_source, CLOCK_MONOTONIC,
					       REVALIDATE_USEC, 0, on_revalidate, t) < 0)
			t->revalidate_source = NULL;
		return;
	}
	if (sd_event_source_get_enabled(t->revalidate_source, NULL) > 0)
		return; /* already due */
	(void)sd_event_source_set_time_relative(t->revalidate_source, REVALIDATE_USEC);
	(void)sd_event_source_set_enabled(t->revalidate_source, SD_EVENT_ONESHOT);
}

void grant_table_count_user(GrantTable *t, uid_t uid, unsigned *ret_processes,
			    unsigned *ret_threads)
{
	unsigned np = 0, nt = 0;

	for (GrantProcess *p = t->processes; p; p = p->next)
		if (p->uid == uid) {
			np++;
			nt += p->n_grants;
		}
	*ret_processes = np;
	*ret_threads = nt;
}

unsigned grant_table_n_users(GrantTable *t)
{
	unsigned n = 0;

	for (GrantProcess *p = t->processes; p; p = p->next) {
		bool seen = false;

		for (GrantProcess *q = t->processes; q != p; q = q->next)
			if (q->uid == p->uid) {
				seen = true;
				break;
			}
		if (!seen)
			n++;
	}
	return n;
}

int grant_table_users(GrantTable *t, uid_t **ret_uids, size_t *ret_n)
{
	_cleanup_free_ uid_t *uids = NULL;
	size_t n = 0;

	for (GrantProcess *p = t->processes; p; p = p->next) {
		bool seen = false;

		for (size_t i = 0; i < n && !seen; i++)
			seen = uids[i] == p->uid;
		if (seen)
			continue;
		if (n % 16 == 0) {
			uid_t *more = reallocarray(uids, n + 16, sizeof(uid_t));

			if (!more)
				return -ENOMEM;
			uids = more;
		}
		uids[n++] = p->uid;
	}
	*ret_uids = TAKE_PTR(uids);
	*ret_n = n;
	return 0;
}
