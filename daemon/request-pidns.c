// SPDX-License-Identifier: GPL-2.0-or-later
/* The ids a caller names, mapped through its pid namespace. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "creds.h"
#include "daemon-policy.h"
#include "macro.h"
#include "parse.h"
#include "proc.h"
#include "request-check.h"
#include "request-pidns.h"

/* realtimed's own pid namespace, read once */
static int self_pidns(Request *r, uint64_t *ret)
{
	int k;

	if (r->d->pidns == 0) {
		k = proc_get_pidns(r->d->args.proc, 0, &r->d->pidns);
		if (k < 0)
			return k;
	}
	*ret = r->d->pidns;
	return 0;
}

/* The caller's pid namespace, cached with its credentials (creds.h). */
static int caller_pidns(Request *r, uint64_t *ret)
{
	const char *sender = r->msg ? dbus_message_get_sender(r->msg) : NULL;
	int k;

	if (sender && creds_cache_get_pidns(r->d->creds, sender, ret) == 0 && *ret != 0)
		return 0;
	k = proc_get_pidns(r->d->args.proc, r->caller_pid, ret);
	if (k == 0 && sender)
		(void)creds_cache_set_pidns(r->d->creds, sender, *ret);
	return k;
}

/* The id a /proc entry names; false for ".", "self" and the like. */
static bool entry_id(const struct dirent *de, pid_t *ret)
{
	uint64_t v;

	if (parse_decimal(de->d_name, INT_MAX, &v) < 0 || v == 0)
		return false;
	*ret = (pid_t)v;
	return true;
}

typedef struct Search {
	unsigned level; /* the depth of the namespace whose id is sought */
	pid_t id;
	bool innermost; /* else a thread whose innermost id is id */
	unsigned scanned, read;
} Search;

/* The thread of pid whose id at s->level is s->id, else with s->innermost
 * the first whose innermost id is. */
static int find_thread(Request *r, pid_t pid, Search *s, pid_t *ret)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[PATH_MAX];
	struct dirent *de;
	pid_t inner = 0, t;
	ProcNspid ns;

	snprintf(path, sizeof(path), "%s/%d/task", r->d->args.proc, (int)pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		if (!entry_id(de, &t))
			continue;
		if (s->read++ == PIDNS_READ_MAX)
			return -E2BIG;
		/* a thread that ended meanwhile is not the one */
		if (proc_get_nspid(r->d->args.proc, pid, t, &ns) < 0 || ns.n <= s->level)
			continue;
		if (ns.ids[s->level] == s->id) {
			*ret = t;
			return 0;
		}
		if (s->innermost && inner == 0 && ns.ids[ns.n - 1] == s->id)
			inner = t;
	}
	if (inner == 0)
		return -ESRCH;
	*ret = inner;
	return 0;
}

/* The process living in the caller's very namespace (another at the same
 * depth may reuse the id) whose id there is s->id; its ids in *ret_ns. */
static int find_process(Request *r, Search *s, pid_t *ret, ProcNspid *ret_ns)
{
	const char *proc = r->d->args.proc;
	_cleanup_(closedirp) DIR *d = opendir(proc);
	struct dirent *de;
	struct stat st;
	ProcNspid ns;
	uint64_t inode;
	pid_t p;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!entry_id(de, &p))
			continue;
		if (s->scanned++ == PIDNS_SCAN_MAX)
			return -E2BIG;
		/* /proc/PID is the process's uid's: others' are never the
		 * caller's to name (root's are any) */
		if (r->uid != 0 &&
		    (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || st.st_uid != r->uid))
			continue;
		if (proc_get_pidns(proc, p, &inode) < 0 || inode != r->caller_pidns)
			continue;
		if (s->read++ == PIDNS_READ_MAX)
			return -E2BIG;
		if (proc_get_nspid(proc, p, 0, &ns) < 0 || ns.n != s->level + 1 ||
		    ns.ids[s->level] != s->id)
			continue;
		*ret = p;
		*ret_ns = ns;
		return 0;
	}
	return -ESRCH;
}

/* The answer to a failed search: sought ("pid 5"), missing ("pid 5 is no
 * process"). */
static int search_error(Request *r, int k, const char *sought, const char *missing)
{
	if (k > 0) /* the rate check's answer */
		return k;
	if (k == -E2BIG)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "%s: realtimed gave up looking for it in the caller's pid "
				     "namespace (pid:[%" PRIu64 "]) after %u processes or threads",
				     sought, r->caller_pidns, PIDNS_READ_MAX);
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "%s in the caller's pid namespace (pid:[%" PRIu64 "])",
				     missing, r->caller_pidns);
	return request_error(r, k, "%s: could not look it up in the caller's pid namespace: %s",
			     sought, strerror(-k));
}

/* Maps r's ids at r->pidns_level; caller: the caller's own NSpid ids. */
static int map_ids(Request *r, const ProcNspid *caller)
{
	unsigned level = r->pidns_level;
	Search sp = { .level = level, .id = (pid_t)r->pid_arg };
	Search st = { .level = level, .id = (pid_t)r->tid_arg };
	ProcNspid target = *caller;
	char sought[64], missing[96];
	int k;

	r->pid = r->caller_pid;
	if (r->pid_arg != 0 && sp.id != caller->ids[level]) {
		k = find_process(r, &sp, &r->pid, &target);
		if (k != 0) {
			snprintf(sought, sizeof(sought), "pid %d", (int)sp.id);
			snprintf(missing, sizeof(missing), "pid %d is no process", (int)sp.id);
			return search_error(r, k, sought, missing);
		}
	}
	/* the main thread: its id is the process's */
	r->tid = r->pid;
	if (r->tid_arg == 0 || st.id == target.ids[level])
		return 0;
	k = find_thread(r, r->pid, &st, &r->tid);
	if (k != 0) {
		snprintf(sought, sizeof(sought), "tid %d of pid %d", (int)st.id,
			 (int)target.ids[level]);
		snprintf(missing, sizeof(missing), "tid %d is no thread of pid %d", (int)st.id,
			 (int)target.ids[level]);
		return search_error(r, k, sought, missing);
	}
	return 0;
}

int request_map_pidns(Request *r)
{
	const char *proc = r->d->args.proc;
	ProcNspid caller;
	uint64_t self = 0; /* -O2 cannot see self_pidns() set it */
	int k;

	if (r->pid_arg == 0 && r->tid_arg == 0)
		return 0; /* the caller's own main thread: no id to map */
	k = caller_pidns(r, &r->caller_pidns);
	if (k == 0)
		k = self_pidns(r, &self);
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "the calling process %d exited; its ids cannot be mapped",
				     (int)r->caller_pid);
	if (k < 0)
		return request_error(r, k, "could not tell the pid namespace of process %d: %s",
				     (int)r->caller_pid, strerror(-k));
	if (r->caller_pidns == self)
		return 0;

	k = proc_get_nspid(proc, r->caller_pid, 0, &caller);
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "the calling process %d exited; its ids cannot be mapped",
				     (int)r->caller_pid);
	if (k < 0)
		return request_error(r, k, "could not read the pid namespace ids of process %d: %s",
				     (int)r->caller_pid, strerror(-k));
	/* one id only: not below realtimed's, its ids mean nothing here */
	if (caller.n < 2)
		return request_error(r, REQUEST_E_PERMISSION_DENIED,
				     "the caller's pid namespace (pid:[%" PRIu64
				     "]) is not below realtimed's; its ids cannot be mapped",
				     r->caller_pidns);
	r->pidns_level = caller.n - 1;
	return map_ids(r, &caller);
}

int request_pidns_verify(Request *r)
{
	const char *proc = r->d->args.proc;
	unsigned level = r->pidns_level;
	pid_t want = (pid_t)(r->tid_arg ? r->tid_arg : r->pid_arg);
	uint64_t inode;
	ProcNspid ns;

	if (level == 0)
		return 0;
	/* named by pid 0 or tid 0: the id of the process found, or the caller */
	if (want == 0 || (r->tid_arg == 0 && r->tid == r->caller_pid))
		return 0;
	if (proc_get_pidns(proc, r->pid, &inode) < 0 || inode != r->caller_pidns ||
	    proc_get_nspid(proc, r->pid, r->tid == r->pid ? 0 : r->tid, &ns) < 0 ||
	    ns.n != level + 1 || ns.ids[level] != want ||
	    (r->pidfd >= 0 && request_target_alive(r) < 0))
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d of the caller's pid namespace (pid:[%" PRIu64
				     "]) exited",
				     (int)want, r->caller_pidns);
	return 0;
}

int request_pidns_retry(Request *r, int code)
{
	const char *proc = r->d->args.proc;
	Search s = { .level = 0, .id = r->tid, .innermost = true };
	char path[PATH_MAX];
	uint64_t self, inode;
	pid_t tid;

	if (r->pidns_level > 0 || r->tid_arg == 0 || r->tid == r->pid)
		return code;
	/* a thread of the pid after all: the answer was about something else */
	snprintf(path, sizeof(path), "%s/%d/task/%d", proc, (int)r->pid, (int)r->tid);
	if (access(path, F_OK) == 0)
		return code;
	if (self_pidns(r, &self) < 0 || proc_get_pidns(proc, r->pid, &inode) < 0 || inode == self)
		return code;
	if (find_thread(r, r->pid, &s, &tid) < 0)
		return code;
	r->tid = tid;
	r->pidfd = safe_close(r->pidfd);
	r->tidfd = safe_close(r->tidfd);
	r->why[0] = 0;
	return 0;
}
