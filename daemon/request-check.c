// SPDX-License-Identifier: GPL-2.0-or-later
/* The checks before a grant; each refusal names its reason and source. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "daemon-policy.h"
#include "pidfd.h"
#include "proc.h"
#include "request-check.h"
#include "request-sched.h"
#include "users.h"

static int refusing(Request *r, uid_t uid, uint64_t until, uint64_t now)
{
	const PolicyDaemon *pd = policy_daemon(r->d->policy);

	request_cite_daemon(r, "CanaryRefuseSec");
	return request_error(r, REQUEST_E_REFUSING,
			     "refusing uid %u for %" PRIu64
			     " more seconds: the canary watchdog found its realtime threads "
			     "starving the system (CanaryRefuseSec=%" PRIu64 "s)",
			     (unsigned)uid, (until - now) / 1000000 + 1,
			     pd->canary_refuse_usec / 1000000);
}

int request_check_admission(Request *r, uint64_t now)
{
	const PolicyDaemon *pd = policy_daemon(r->d->policy);
	uint64_t until;
	User *u;

	if (r->type != REQUEST_SCHED && r->type != REQUEST_LIMITS)
		return 0;
	u = users_get(r->d->users, r->uid, now);
	if (!u)
		return request_error(r, -ENOMEM, "out of memory");
	until = user_cooldown_until(u, now);
	if (until > 0)
		return refusing(r, r->uid, until, now);
	if (user_count_action(u, pd->actions_per_burst, pd->burst_usec, now))
		return 0;
	request_cite_daemon(r, "ActionsPerBurst");
	return request_error(r, REQUEST_E_RATE_LIMITED,
			     "too many requests from uid %u: at most %u per %" PRIu64
			     " s (ActionsPerBurst=, BurstSec=)",
			     (unsigned)r->uid, pd->actions_per_burst, pd->burst_usec / 1000000);
}

int request_check_refusing(Request *r, uint64_t now)
{
	uid_t uid = r->uid;
	uint64_t until;

	if (r->type != REQUEST_SCHED && r->type != REQUEST_LIMITS)
		return 0;
	until = user_cooldown_until(users_find(r->d->users, uid), now);
	if (until == 0 && r->owner != r->uid) {
		uid = r->owner;
		until = user_cooldown_until(users_find(r->d->users, uid), now);
	}
	return until > 0 ? refusing(r, uid, until, now) : 0;
}

int request_check_args(Request *r)
{
	if (r->pid_arg > INT_MAX || r->tid_arg > INT_MAX)
		return request_error(r, REQUEST_E_INVALID_ARGS,
				     "pid %" PRIu64 " / tid %" PRIu64 " out of range", r->pid_arg,
				     r->tid_arg);
	r->pid = r->pid_arg ? (pid_t)r->pid_arg : r->caller_pid;
	r->tid = r->tid_arg ? (pid_t)r->tid_arg : r->pid;
	return 0;
}

/* The kernel's rule for acting on another task (prlimit()'s): all three uids. */
static bool owned_by_caller(const Request *r, const ProcUids *u)
{
	return r->uid == 0 || (u->ruid == r->uid && u->euid == r->uid && u->suid == r->uid);
}

/* The one answer to a non-root caller whose pid names none of its processes
 * (another user's, none, a thread id): alike for each, as hidepid= hides them. */
static int not_callers(Request *r)
{
	return request_error(r, REQUEST_E_PERMISSION_DENIED,
			     "pid %d names no process of the caller (one whose real, effective "
			     "and saved uids are all the caller's)",
			     (int)r->pid);
}

/* The uids of the main thread (tid 0) or of tid: once pinned, through r's
 * pidfds (PIDFD_GET_INFO, 6.13+), else from /proc. -ESRCH when tid is no
 * thread of the process. */
static int get_uids(Request *r, bool pinned, pid_t tid, ProcUids *ret)
{
	int fd = tid ? r->tidfd : r->pidfd;
	PidfdInfo info = {};
	int k;

	if (pinned && fd >= 0 && r->d->args.use_pidfds) {
		k = pidfd_get_info(fd, &info);
		if (k == 0 && (pid_t)info.tgid != r->pid)
			return -ESRCH; /* a thread of another process */
		if (k == 0) {
			*ret = (ProcUids){ info.ruid, info.euid, info.suid };
			return 0;
		}
		if (k != -EOPNOTSUPP)
			return k;
	}
	return proc_get_uids(r->d->args.proc, r->pid, tid, ret);
}

/* The process is the caller's (its real uid in *ret_owner); asked before
 * anything is said of its threads. pinned: r->pidfd names it. */
static int check_process_owner(Request *r, bool pinned, uid_t *ret_owner)
{
	ProcUids u;

	if (get_uids(r, pinned, 0, &u) < 0) {
		if (r->uid != 0)
			return not_callers(r);
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS, "process %d does not exist",
				     (int)r->pid);
	}
	if (!owned_by_caller(r, &u))
		return not_callers(r);
	*ret_owner = u.ruid;
	return 0;
}

/* Credentials are per thread: the thread's own uids must be the caller's;
 * which they are is not said. pinned: r->tidfd names it, where there is one. */
static int check_thread_owner(Request *r, bool pinned)
{
	ProcUids u;

	if (r->tid == r->pid)
		return 0; /* the main thread: the process's uids were its */
	if (get_uids(r, pinned, r->tid, &u) < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d is not a thread of process %d", (int)r->tid,
				     (int)r->pid);
	if (!owned_by_caller(r, &u))
		return request_error(r, REQUEST_E_PERMISSION_DENIED,
				     "thread %d of process %d runs with a real, effective or saved "
				     "uid that is not the caller's",
				     (int)r->tid, (int)r->pid);
	return 0;
}

static int check_owner(Request *r, bool pinned, uid_t *ret_owner)
{
	int k = check_process_owner(r, pinned, ret_owner);

	return k != 0 ? k : check_thread_owner(r, pinned);
}

int request_check_owner(Request *r)
{
	return check_owner(r, false, &r->owner);
}

/* Pins a tid other than the main thread's by a PIDFD_THREAD pidfd (6.9+;
 * else start times do). A thread whose grant's pidfd is not readable is the
 * one the table recorded: its start time is the table's. *ret_known: whether
 * r->tid_start is set. */
static int pin_thread(Request *r, bool *ret_known)
{
	Grant *g;

	*ret_known = false;
	r->tidfd = -EBADF;
	if (r->tid == r->pid || !r->d->args.use_pidfds)
		return 0;
	g = grant_table_find(r->d->grants, r->pid, r->tid);
	if (g && g->pidfd >= 0 && g->process->start_time == r->pid_start &&
	    pidfd_alive(g->pidfd) == 0) {
		r->tidfd = fcntl(g->pidfd, F_DUPFD_CLOEXEC, 3);
		if (r->tidfd < 0)
			return -errno;
		r->tid_start = g->start_time;
		*ret_known = true;
		return 0;
	}
	r->tidfd = pidfd_open_thread(r->tid);
	if (r->tidfd == -ESRCH)
		return -ESRCH;
	if (r->tidfd < 0)
		r->tidfd = -EBADF; /* an older kernel: start times tell */
	return 0;
}

int request_target_alive(Request *r)
{
	uint64_t st;

	if (pidfd_alive(r->pidfd) < 0)
		return -ESRCH;
	/* a thread pidfd not readable: the thread lives, its tid is its own */
	if (r->tidfd >= 0)
		return pidfd_alive(r->tidfd);
	if (procfs_start_time(r->d->args.proc, r->pid, r->tid, &st) < 0 || st != r->tid_start)
		return -ESRCH;
	return 0;
}

/* pidfd_open() failed with k: the detail for root and for a caller whose own
 * thread it names (/proc shows it those); not_callers() for anyone else. */
static int pin_failed(Request *r, int k)
{
	ProcUids u;
	bool thread;

	if (k != -EINVAL && k != -ENOENT && k != -ESRCH)
		return request_error(r, k, "could not pin process %d: %s", (int)r->pid,
				     strerror(-k));
	/* 6.1: EINVAL for a thread that leads no process; later: ENOENT */
	thread = k != -ESRCH &&
		 (r->uid == 0 ||
		  (proc_get_uids(r->d->args.proc, r->pid, 0, &u) == 0 && owned_by_caller(r, &u)));
	if (thread)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "%d is not a process (a thread id?)", (int)r->pid);
	if (r->uid != 0)
		return not_callers(r);
	return request_error(r, REQUEST_E_NO_SUCH_PROCESS, "process %d does not exist",
			     (int)r->pid);
}

int request_pin(Request *r)
{
	const char *proc = r->d->args.proc;
	GrantProcess *p;
	bool known, in_table;
	int k;

	/* the table's live pidfd pins the process with the table's start time */
	p = grant_table_find_process(r->d->grants, r->pid);
	in_table = p && pidfd_alive(p->pidfd) == 0;
	if (in_table) {
		r->pidfd = fcntl(p->pidfd, F_DUPFD_CLOEXEC, 3);
		if (r->pidfd < 0) {
			k = -errno;
			return request_error(r, k, "could not pin process %d: %s", (int)r->pid,
					     strerror(-k));
		}
		r->pid_start = p->start_time;
	} else {
		r->pidfd = pidfd_open_cloexec(r->pid);
		if (r->pidfd < 0)
			return pin_failed(r, r->pidfd);
	}

	k = check_process_owner(r, true, &r->owner);
	if (k != 0)
		return k;
	if (!in_table && procfs_start_time(proc, r->pid, 0, &r->pid_start) < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS, "process %d exited",
				     (int)r->pid);

	/* pinned first: what is read below, while it stays unreadable, is of
	 * that thread */
	k = pin_thread(r, &known);
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d is not a thread of process %d", (int)r->tid,
				     (int)r->pid);
	if (k < 0)
		return request_error(r, k, "could not pin thread %d: %s", (int)r->tid,
				     strerror(-k));

	k = check_thread_owner(r, true);
	if (k != 0)
		return k;

	/* /proc/PID/task/TID/stat exists only for a thread of PID. */
	k = known ? 0 : procfs_start_time(proc, r->pid, r->tid, &r->tid_start);
	if (pidfd_alive(r->pidfd) < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS, "process %d exited",
				     (int)r->pid);
	if (k == 0 && r->tidfd >= 0)
		k = pidfd_alive(r->tidfd);
	if (k < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d is not a thread of process %d", (int)r->tid,
				     (int)r->pid);
	return 0;
}

int request_recheck(Request *r)
{
	uid_t owner;
	int k;

	if (!r->waited)
		return 0;
	r->waited = false;
	if (request_target_alive(r) < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS, "thread %d of process %d exited",
				     (int)r->tid, (int)r->pid);
	/* a thread may change its uids (or exec setuid) while polkit thinks */
	k = check_owner(r, true, &owner);
	if (k != 0)
		return k;
	if (owner != r->owner)
		return request_error(r, REQUEST_E_PERMISSION_DENIED,
				     "the process changed its owner");
	return 0;
}

int request_check_policy(Request *r, PolicyEval *ret)
{
	const PolicyGrant *g = &ret->grant;
	const char *user = ret->user;
	PolicyRefusal why;
	char text[512];
	int k;

	k = daemon_policy_eval(r->d, r->owner, ret);
	if (k == -EINPROGRESS)
		return k; /* the caller waits for the resolver */
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_POLICY_DENIED, "uid %u is not a known user",
				     (unsigned)r->owner);
	if (k < 0)
		return request_error(r, k, "could not evaluate the policy for uid %u: %s",
				     (unsigned)r->owner, strerror(-k));

	if (r->type == REQUEST_LIMITS)
		return 0;

	if (r->compat_rt) {
		unsigned allowed = g->set[POLICY_KEY_POLICIES] ? g->policies : 0;

		if ((allowed & POLICY_SCHED_FIFO) && g->compat_policy == POLICY_SCHED_FIFO)
			r->kind = POLICY_GRANT_FIFO;
		else if (allowed & POLICY_SCHED_RR)
			r->kind = POLICY_GRANT_RR;
		else
			r->kind = POLICY_GRANT_FIFO;
	}
	k = policy_grant_allows(g, r->kind, r->value, &why);
	if (k < 0) {
		(void)policy_refusal_format(&why, user, text, sizeof(text));
		request_cite(r, why.source);
		return request_error(
			r, k == -EINVAL ? REQUEST_E_INVALID_ARGS : REQUEST_E_POLICY_DENIED, "%s",
			text);
	}
	if (r->value > supervise_max_priority(r->d))
		return request_error(r, REQUEST_E_POLICY_DENIED,
				     "priority %d is above %d, the highest the canary watchdog can "
				     "preempt here (see SAFETY in realtimed(8))",
				     r->value, supervise_max_priority(r->d));
	return 0;
}

/* r's target in the table (same start time), or NULL. */
static GrantProcess *target_process(Request *r)
{
	GrantProcess *p = grant_table_find_process(r->d->grants, r->pid);

	return p && p->start_time == r->pid_start ? p : NULL;
}

int request_check_limits(Request *r, const char *user)
{
	const PolicyDaemon *pd = policy_daemon(r->d->policy);
	GrantTable *t = r->d->grants;
	GrantProcess *p;
	unsigned np, nt;

	if (r->type != REQUEST_SCHED)
		return 0;
	p = target_process(r);
	if (p && grant_table_find(t, r->pid, r->tid))
		return 0; /* an update of a grant holds nothing new */
	grant_table_count_user(t, r->owner, &np, &nt);

	/* near a cap, dead threads must not count: prune only then */
	if (np >= pd->processes_per_user_max || nt >= pd->threads_per_user_max ||
	    (np == 0 && grant_table_n_users(t) >= pd->users_max)) {
		grant_table_prune(t, (uid_t)-1);
		p = target_process(r);
		grant_table_count_user(t, r->owner, &np, &nt);
	}

	if (np == 0 && grant_table_n_users(t) >= pd->users_max) {
		request_cite_daemon(r, "UsersMax");
		return request_error(r, REQUEST_E_LIMITS_EXCEEDED,
				     "%u users hold grants already (UsersMax=%u)",
				     grant_table_n_users(t), pd->users_max);
	}
	if (!p && np >= pd->processes_per_user_max) {
		request_cite_daemon(r, "ProcessesPerUserMax");
		return request_error(r, REQUEST_E_LIMITS_EXCEEDED,
				     "user %s holds grants for %u processes already "
				     "(ProcessesPerUserMax=%u)",
				     user, np, pd->processes_per_user_max);
	}
	if (nt >= pd->threads_per_user_max) {
		request_cite_daemon(r, "ThreadsPerUserMax");
		return request_error(r, REQUEST_E_LIMITS_EXCEEDED,
				     "user %s holds grants for %u threads already "
				     "(ThreadsPerUserMax=%u)",
				     user, nt, pd->threads_per_user_max);
	}
	return 0;
}

#define RTKIT_POLKIT_ACTIONS "/usr/share/polkit-1/actions/org.freedesktop.RealtimeKit1.policy"

const char *request_polkit_action(const Request *r)
{
	if (r->type == REQUEST_LIMITS)
		return "org.realtimed.acquire-limits";
	/* rtkit's actions only where rtkit installed them: polkitd refuses
	 * unknown ones */
	if (r->flavour == FLAVOUR_RTKIT && access(RTKIT_POLKIT_ACTIONS, F_OK) == 0)
		return r->kind == POLICY_GRANT_NICE
			       ? "org.freedesktop.RealtimeKit1.acquire-high-priority"
			       : "org.freedesktop.RealtimeKit1.acquire-real-time";
	return r->kind == POLICY_GRANT_NICE ? "org.realtimed.acquire-high-priority"
					    : "org.realtimed.acquire-realtime";
}
