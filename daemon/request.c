// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The checks before a grant, in order, and the grant itself; see request.h.
 * Every refusal names the reason and, where policy decided, the limit and
 * the file:line that set it.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bus.h"
#include "irq-threads.h"
#include "log.h"
#include "manager.h"
#include "pidfd.h"
#include "policy-cache.h"
#include "polkit.h"
#include "proc.h"
#include "request.h"
#include "utf8.h"

static const char *const native_errors[_ERR_MAX] = {
	[ERR_PERMISSION_DENIED] = NATIVE_ERROR "PermissionDenied",
	[ERR_POLICY_DENIED] = NATIVE_ERROR "PolicyDenied",
	[ERR_NO_SUCH_PROCESS] = NATIVE_ERROR "NoSuchProcess",
	[ERR_NO_SUCH_GRANT] = NATIVE_ERROR "NoSuchGrant",
	[ERR_INVALID_ARGS] = NATIVE_ERROR "InvalidArgs",
	[ERR_LIMITS_EXCEEDED] = NATIVE_ERROR "LimitsExceeded",
	[ERR_RATE_LIMITED] = NATIVE_ERROR "RateLimited",
	[ERR_REFUSING] = NATIVE_ERROR "Refusing",
	[ERR_FAILED] = NATIVE_ERROR "Failed",
	[ERR_NO_MEMORY] = DBUS_ERROR_NO_MEMORY,
};

/* rtkit 0.13 answers AccessDenied for EPERM/EACCES/EBUSY, NoMemory, and
 * Failed for the rest; its clients only tell those apart. */
static const char *const rtkit_errors[_ERR_MAX] = {
	[ERR_PERMISSION_DENIED] = DBUS_ERROR_ACCESS_DENIED,
	[ERR_POLICY_DENIED] = DBUS_ERROR_ACCESS_DENIED,
	[ERR_NO_SUCH_PROCESS] = DBUS_ERROR_FAILED,
	[ERR_NO_SUCH_GRANT] = DBUS_ERROR_FAILED,
	[ERR_INVALID_ARGS] = DBUS_ERROR_INVALID_ARGS,
	[ERR_LIMITS_EXCEEDED] = DBUS_ERROR_ACCESS_DENIED,
	[ERR_RATE_LIMITED] = DBUS_ERROR_ACCESS_DENIED,
	[ERR_REFUSING] = DBUS_ERROR_ACCESS_DENIED,
	[ERR_FAILED] = DBUS_ERROR_FAILED,
	[ERR_NO_MEMORY] = DBUS_ERROR_NO_MEMORY,
};

const char *request_error_name(RequestError e, BusFlavour f)
{
	if (e < 0 || e >= _ERR_MAX)
		return DBUS_ERROR_FAILED;
	return f == FLAVOUR_RTKIT ? rtkit_errors[e] : native_errors[e];
}

static void request_free(Request *r)
{
	if (!r)
		return;
	safe_close(r->pidfd);
	if (r->msg)
		dbus_message_unref(r->msg);
	free(r);
}

static void request_free_void(void *p)
{
	request_free(p);
}

_printf_(3, 4) static void request_fail(Request *r, RequestError e, const char *format, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, format);
	utf8_vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	log_id(LOG_DEBUG, LOG_ID_REFUSAL, "Refused request of uid %u (pid %d): %s",
	       (unsigned)r->uid, (int)r->caller_pid, text);
	bus_reply_error(r->d->bus, r->msg, request_error_name(e, r->flavour), "%s", text);
	request_free(r);
}

/* The kernel's rule for one task acting on another (and prlimit()'s): the
 * target's real, effective and saved uid are all the caller's. Credentials
 * are per thread, so this is asked of the process (its main thread) and of
 * the thread itself. Root may act on anyone. 0, or -EPERM with the
 * refusal written into buf. */
static int owned_by(const ProcUids *u, uid_t caller, const char *what, char *buf, size_t size)
{
	if (caller == 0 || (u->ruid == caller && u->euid == caller && u->suid == caller))
		return 0;
	if (u->ruid != caller)
		snprintf(buf, size, "%s belongs to uid %u, not to the caller (uid %u)", what,
			 (unsigned)u->ruid, (unsigned)caller);
	else
		snprintf(buf, size,
			 "%s runs with effective uid %u and saved uid %u, not only as the caller "
			 "(uid %u)",
			 what, (unsigned)u->euid, (unsigned)u->suid, (unsigned)caller);
	return -EPERM;
}

/* Whether the caller may act on thread tid of process pid: the process's
 * and the thread's uids are both owned_by() the caller. Returns
 * _ERR_INVALID (no error) and the process's real uid (whose policy
 * applies) in *ret_owner, or the error to answer with its text in buf. */
static RequestError check_owner(const char *proc, pid_t pid, pid_t tid, uid_t caller,
				uid_t *ret_owner, char *buf, size_t size)
{
	char what[64];
	ProcUids u;

	if (proc_get_uids(proc, pid, 0, &u) < 0) {
		snprintf(buf, size, "process %d does not exist", (int)pid);
		return ERR_NO_SUCH_PROCESS;
	}
	snprintf(what, sizeof(what), "process %d", (int)pid);
	if (owned_by(&u, caller, what, buf, size) < 0)
		return ERR_PERMISSION_DENIED;
	*ret_owner = u.ruid;
	if (tid == pid)
		return _ERR_INVALID; /* the main thread: its uids were those */
	/* /proc/PID/task/TID exists only for a thread of PID */
	if (proc_get_uids(proc, pid, tid, &u) < 0) {
		snprintf(buf, size, "thread %d is not a thread of process %d", (int)tid, (int)pid);
		return ERR_NO_SUCH_PROCESS;
	}
	snprintf(what, sizeof(what), "thread %d of process %d", (int)tid, (int)pid);
	if (owned_by(&u, caller, what, buf, size) < 0)
		return ERR_PERMISSION_DENIED;
	return _ERR_INVALID;
}

/* The target exists, belongs to the caller, tid is its thread, and both are pinned. */
static int request_pin(Request *r)
{
	GrantProcess *p;
	RequestError e;
	char text[256];
	int k;

	if (r->pid_arg > INT_MAX || r->tid_arg > INT_MAX) {
		request_fail(r, ERR_INVALID_ARGS, "pid %" PRIu64 " / tid %" PRIu64 " out of range",
			     r->pid_arg, r->tid_arg);
		return -EINVAL;
	}
	r->pid = r->pid_arg ? (pid_t)r->pid_arg : r->caller_pid;
	r->tid = r->tid_arg ? (pid_t)r->tid_arg : r->pid;

	/* A process already in the table is pinned by the table's pidfd: while
	 * that is alive, the pid is still the process with that start time. */
	p = grant_table_find_process(r->d->grants, r->pid);
	if (p && pidfd_alive(p->pidfd) == 0) {
		r->pidfd = fcntl(p->pidfd, F_DUPFD_CLOEXEC, 3);
		if (r->pidfd < 0) {
			k = -errno;
			request_fail(r, ERR_FAILED, "could not pin process %d: %s", (int)r->pid,
				     strerror(-k));
			return k;
		}
		r->pid_start = p->start_time;
	} else {
		r->pidfd = pidfd_open_cloexec(r->pid);
		if (r->pidfd < 0) {
			k = r->pidfd;
			/* 6.1: EINVAL for a thread that leads no process; later: ENOENT */
			if (k == -EINVAL || k == -ENOENT)
				request_fail(r, ERR_NO_SUCH_PROCESS,
					     "%d is not a process (a thread id?)", (int)r->pid);
			else if (k == -ESRCH)
				request_fail(r, ERR_NO_SUCH_PROCESS, "process %d does not exist",
					     (int)r->pid);
			else
				request_fail(r, ERR_FAILED, "could not pin process %d: %s",
					     (int)r->pid, strerror(-k));
			return k;
		}
		if (proc_get_start_time(r->d->grants->proc, r->pid, 0, &r->pid_start) < 0) {
			request_fail(r, ERR_NO_SUCH_PROCESS, "process %d exited", (int)r->pid);
			return -ESRCH;
		}
	}

	e = check_owner(r->d->grants->proc, r->pid, r->tid, r->uid, &r->owner, text, sizeof(text));
	if (e >= 0) {
		request_fail(r, e, "%s", text);
		return -EPERM;
	}

	/* /proc/PID/task/TID/stat exists only for a thread of PID. */
	k = proc_get_start_time(r->d->grants->proc, r->pid, r->tid, &r->tid_start);
	if (pidfd_alive(r->pidfd) < 0) {
		request_fail(r, ERR_NO_SUCH_PROCESS, "process %d exited", (int)r->pid);
		return -ESRCH;
	}
	if (k < 0) {
		request_fail(r, ERR_NO_SUCH_PROCESS, "thread %d is not a thread of process %d",
			     (int)r->tid, (int)r->pid);
		return -ESRCH;
	}
	return 0;
}

/* Still the same process and thread as when pinned, and still the caller's? */
static int request_recheck(Request *r)
{
	RequestError e;
	char text[256];
	uint64_t st;
	uid_t owner;

	if (pidfd_alive(r->pidfd) < 0 ||
	    proc_get_start_time(r->d->grants->proc, r->pid, r->tid, &st) < 0 ||
	    st != r->tid_start) {
		request_fail(r, ERR_NO_SUCH_PROCESS, "thread %d of process %d exited", (int)r->tid,
			     (int)r->pid);
		return -ESRCH;
	}
	/* and still the caller's: a thread may change its uids (or exec a
	 * setuid program) while polkit thinks */
	e = check_owner(r->d->grants->proc, r->pid, r->tid, r->uid, &owner, text, sizeof(text));
	if (e >= 0 || owner != r->owner) {
		request_fail(r, e >= 0 ? e : ERR_PERMISSION_DENIED, "%s",
			     e >= 0 ? text : "the process changed its owner");
		return -EPERM;
	}
	return 0;
}

static int request_check_policy(Request *r, const PolicyGrant **ret_grant, const char **ret_user)
{
	const PolicyGrant *g;
	const char *user;
	PolicyRefusal why;
	char text[512];
	int k;

	k = daemon_policy_eval(r->d, r->owner, &g, &user);
	if (k < 0) {
		if (k == -ESRCH)
			request_fail(r, ERR_POLICY_DENIED, "uid %u is not a known user",
				     (unsigned)r->owner);
		else
			request_fail(r, ERR_FAILED, "could not evaluate the policy for uid %u: %s",
				     (unsigned)r->owner, strerror(-k));
		return k;
	}
	*ret_grant = g;
	*ret_user = user;

	if (r->type == REQUEST_LIMITS)
		return 0;

	if (r->compat_rt) {
		unsigned allowed = g->set[POLICY_KEY_POLICIES] ? g->policies : 0;

		if ((allowed & POLICY_SCHED_FIFO) && g->compat_policy == POLICY_SCHED_FIFO)
			r->kind = GRANT_FIFO;
		else if (allowed & POLICY_SCHED_RR)
			r->kind = GRANT_RR;
		else
			r->kind = GRANT_FIFO;
	}
	k = policy_grant_allows(g, (PolicyGrantKind)r->kind, r->value, &why);
	if (k < 0) {
		(void)policy_refusal_format(&why, user, text, sizeof(text));
		request_fail(r, k == -EINVAL ? ERR_INVALID_ARGS : ERR_POLICY_DENIED, "%s", text);
		return k;
	}
	if (r->value > manager_canary_max_priority(r->d)) {
		request_fail(r, ERR_POLICY_DENIED,
			     "priority %d is above %d, the highest the canary watchdog can preempt "
			     "here (see SAFETY in realtimed(8))",
			     r->value, manager_canary_max_priority(r->d));
		return -EPERM;
	}
	return 0;
}

static int request_check_limits(Request *r, const char *user)
{
	const PolicyDaemon *pd = policy_daemon(r->d->policy);
	GrantTable *t = r->d->grants;
	GrantProcess *p;
	Grant *existing;
	unsigned np, nt;

	if (r->type == REQUEST_SCHED) {
		p = grant_table_find_process(t, r->pid);
		if (p && p->start_time != r->pid_start)
			p = NULL;
		existing = p ? grant_table_find(t, r->pid, r->tid) : NULL;
		grant_table_count_user(t, r->owner, &np, &nt);

		/* Near a cap, dead threads must not count: revalidate the user's
		 * grants then, not on every request (cheap when far from it). */
		if (!existing &&
		    (np >= pd->processes_per_user_max || nt >= pd->threads_per_user_max ||
		     (np == 0 && grant_table_n_users(t) >= pd->users_max))) {
			grant_table_prune(t, (uid_t)-1);
			p = grant_table_find_process(t, r->pid);
			if (p && p->start_time != r->pid_start)
				p = NULL;
			grant_table_count_user(t, r->owner, &np, &nt);
		}

		if (!existing) {
			if (np == 0 && grant_table_n_users(t) >= pd->users_max) {
				request_fail(r, ERR_LIMITS_EXCEEDED,
					     "%u users hold grants already (UsersMax=%u)",
					     grant_table_n_users(t), pd->users_max);
				return -EUSERS;
			}
			if (!p && np >= pd->processes_per_user_max) {
				request_fail(r, ERR_LIMITS_EXCEEDED,
					     "user %s holds grants for %u processes already "
					     "(ProcessesPerUserMax=%u)",
					     user, np, pd->processes_per_user_max);
				return -EUSERS;
			}
			if (nt >= pd->threads_per_user_max) {
				request_fail(r, ERR_LIMITS_EXCEEDED,
					     "user %s holds grants for %u threads already "
					     "(ThreadsPerUserMax=%u)",
					     user, nt, pd->threads_per_user_max);
				return -EUSERS;
			}
		}
	}

	if (!daemon_user_ratelimit(r->d, r->uid)) {
		request_fail(r, ERR_RATE_LIMITED,
			     "too many requests from uid %u: at most %u per %" PRIu64
			     " s (ActionsPerBurst=, BurstSec=)",
			     (unsigned)r->uid, pd->actions_per_burst, pd->burst_usec / 1000000);
		return -EBUSY;
	}
	return 0;
}

#define RTKIT_POLKIT_ACTIONS "/usr/share/polkit-1/actions/org.freedesktop.RealtimeKit1.policy"

static const char *request_polkit_action(const Request *r)
{
	if (r->type == REQUEST_LIMITS)
		return "org.realtimed.acquire-limits";
	/* rtkit's action ids exist only where Debian's rtkit package installed
	 * them; polkitd refuses unknown actions, so fall back to ours. */
	if (r->flavour == FLAVOUR_RTKIT && access(RTKIT_POLKIT_ACTIONS, F_OK) == 0)
		return r->kind == GRANT_NICE ? "org.freedesktop.RealtimeKit1.acquire-high-priority"
					     : "org.freedesktop.RealtimeKit1.acquire-real-time";
	return r->kind == GRANT_NICE ? "org.realtimed.acquire-high-priority"
				     : "org.realtimed.acquire-realtime";
}

/* RLIMIT_RTTIME of the target must be at most policy's RTTime; lowered
 * here when the daemon may, refused otherwise (as rtkit does). */
static int request_check_rttime(Request *r, const PolicyGrant *g, const char *user)
{
	uint64_t soft, hard, max = g->rttime_usec;
	struct rlimit rl;
	char src[300];
	int k;

	if (!g->set[POLICY_KEY_RTTIME] || max == POLICY_INFINITY)
		return 0;
	k = proc_get_limit(r->d->grants->proc, r->pid, "Max realtime timeout", &soft, &hard);
	if (k < 0) {
		request_fail(r, ERR_FAILED, "could not read the limits of process %d: %s",
			     (int)r->pid, strerror(-k));
		return k;
	}
	if (hard <= max)
		return 0;
	rl.rlim_max = max;
	rl.rlim_cur = soft < max ? soft : max;
	if (prlimit(r->pid, RLIMIT_RTTIME, &rl, NULL) == 0)
		return 0;
	k = -errno;
	policy_source_format(&g->source[POLICY_KEY_RTTIME], POLICY_KEY_RTTIME, src, sizeof(src));
	if (hard == UINT64_MAX)
		request_fail(r, ERR_POLICY_DENIED,
			     "RLIMIT_RTTIME of process %d is unlimited, above the limit %" PRIu64
			     " us for user %s (%s); set RLIMIT_RTTIME first",
			     (int)r->pid, max, user, src);
	else
		request_fail(r, ERR_POLICY_DENIED,
			     "RLIMIT_RTTIME of process %d is %" PRIu64
			     " us, above the limit %" PRIu64
			     " us for user %s (%s); set RLIMIT_RTTIME first",
			     (int)r->pid, hard, max, user, src);
	return k;
}

/* What the thread ran with before realtimed's first grant to it: what an
 * undo or a reset puts back. */
static int request_before(Request *r, SchedState *ret)
{
	Grant *existing = grant_table_find(r->d->grants, r->pid, r->tid);

	if (existing && existing->process->start_time == r->pid_start &&
	    existing->start_time == r->tid_start) {
		*ret = existing->before;
		return 0;
	}
	return sched_get_state(r->tid, ret);
}

/* After sched_apply() the thread may have changed its own scheduling
 * before the read-back: lowered its priority (any thread may), or raised it
 * within its own RLIMIT_RTPRIO. What it holds is supervised if it is a
 * grant of the same sort that policy allows; otherwise the grant is undone.
 * Either way it never stays realtime outside the table, where no canary,
 * per-user cap or reload would see it. Returns 0 with what to record. */
static int request_read_back(Request *r, const PolicyGrant *g, const SchedState *before,
			     GrantKind *ret_kind, int *ret_value)
{
	GrantKind kind;
	SchedState now;
	int value, k;

	k = sched_get_state(r->tid, &now);
	if (k < 0) {
		request_fail(r, ERR_NO_SUCH_PROCESS,
			     "thread %d of process %d exited during the grant", (int)r->tid,
			     (int)r->pid);
		return k;
	}
	if (sched_state_as_grant(&now, &kind, &value) >= 0 &&
	    (kind == GRANT_NICE) == (r->kind == GRANT_NICE) &&
	    policy_grant_allows(g, (PolicyGrantKind)kind, value, NULL) >= 0) {
		if (kind != r->kind || value != r->value)
			log_id(LOG_DEBUG, LOG_ID_GRANT,
			       "Thread %d changed itself to %s %d right after its grant of %s %d; "
			       "supervising that",
			       (int)r->tid, grant_kind_to_string(kind), value,
			       grant_kind_to_string(r->kind), r->value);
		*ret_kind = kind;
		*ret_value = value;
		return 0;
	}
	k = sched_restore(r->tid, r->kind, before);
	if (k < 0 && k != -ESRCH)
		log_error_errno(k, "Failed to undo the grant of %s %d to thread %d: %m",
				grant_kind_to_string(r->kind), r->value, (int)r->tid);
	request_fail(r, ERR_FAILED,
		     "thread %d does not hold %s %d after it was set (it runs %s %d now, not "
		     "a grant its policy allows); the grant is undone",
		     (int)r->tid, grant_kind_to_string(r->kind), r->value,
		     sched_policy_to_string(now.policy),
		     now.policy == SCHED_FIFO || now.policy == SCHED_RR ? now.priority : now.nice);
	return -EPERM;
}

static void request_finish_sched(Request *r, const PolicyGrant *g, const char *user)
{
	SchedState before;
	GrantKind kind;
	Grant *grant;
	bool unchanged;
	uint64_t st;
	int value, k;

	if (r->kind != GRANT_NICE && request_check_rttime(r, g, user) < 0)
		return;

	/* The tid is still the pinned thread right before it is changed (the
	 * checks above took time), and right after. */
	if (request_recheck(r) < 0)
		return;
	k = request_before(r, &before);
	if (k < 0) {
		request_fail(r, ERR_NO_SUCH_PROCESS, "thread %d of process %d exited", (int)r->tid,
			     (int)r->pid);
		return;
	}

	if (r->kind != GRANT_NICE) {
		CanaryTarget pending = { .pid = r->pid, .tid = r->tid, .start_time = r->tid_start };

		manager_canary_sync(r->d, &pending);
	}
	k = sched_apply(r->tid, r->kind, r->value);
	if (k < 0) {
		manager_canary_sync(r->d, NULL);
		request_fail(r, ERR_FAILED, "could not set %s %d on thread %d: %s",
			     grant_kind_to_string(r->kind), r->value, (int)r->tid, strerror(-k));
		return;
	}
	/* Verify again: the thread we set is still the one that was pinned,
	 * and it holds a grant we can supervise. Only then does the canary let
	 * go of the pending target: the table (or nothing) takes over. A thread
	 * that exited meanwhile took its grant along; its tid may be another
	 * thread's already, which is left alone. */
	if (pidfd_alive(r->pidfd) < 0 ||
	    proc_get_start_time(r->d->grants->proc, r->pid, r->tid, &st) < 0 ||
	    st != r->tid_start) {
		manager_canary_sync(r->d, NULL);
		request_fail(r, ERR_NO_SUCH_PROCESS,
			     "thread %d of process %d exited during the grant", (int)r->tid,
			     (int)r->pid);
		return;
	}
	if (request_read_back(r, g, &before, &kind, &value) < 0) {
		manager_canary_sync(r->d, NULL);
		return;
	}

	grant = grant_table_find(r->d->grants, r->pid, r->tid);
	unchanged = grant && grant->process->start_time == r->pid_start &&
		    grant->start_time == r->tid_start && grant->kind == kind &&
		    grant->value == value;
	k = grant_table_add(r->d->grants, r->pid, r->pid_start, r->owner, TAKE_FD(r->pidfd), r->tid,
			    r->tid_start, kind, value, &before, now_usec(CLOCK_REALTIME), &grant);
	if (k < 0) {
		(void)sched_restore(r->tid, r->kind, &before);
		manager_canary_sync(r->d, NULL);
		request_fail(r, ERR_NO_MEMORY, "could not record the grant: %s", strerror(-k));
		return;
	}
	/* A change of the table hands the canary the table; a repeated grant
	 * changes nothing there, so the pending target goes here. */
	if (unchanged && r->kind != GRANT_NICE)
		manager_canary_sync(r->d, NULL);
	log_id(LOG_DEBUG, LOG_ID_GRANT, "Granted %s %d to thread %d of process %d (user %s)",
	       grant_kind_to_string(kind), value, (int)r->tid, (int)r->pid, user);
	bus_reply_empty(r->d->bus, r->msg);
	request_free(r);
}

/* GrantLimits raises a limit that is a right (a limit already above policy
 * stays), and sets RLIMIT_RTTIME, a safety ceiling on realtime, to exactly
 * what policy says, lowering it too. RLIMIT_RTTIME goes first: a process
 * never holds a raised RLIMIT_RTPRIO without the ceiling. (A user whose
 * Policies= lacks fifo gets RLIMIT_RTPRIO 0 from policy_grant_rlimit(): no
 * raise.) */
static const struct {
	int resource;
	const char *key;
	const char *proc_name;
	bool ceiling;
} limit_table[] = {
	{ RLIMIT_RTTIME, "RLIMIT_RTTIME", "Max realtime timeout", true },
	{ RLIMIT_RTPRIO, "RLIMIT_RTPRIO", "Max realtime priority", false },
	{ RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", "Max locked memory", false },
	{ RLIMIT_NICE, "RLIMIT_NICE", "Max nice priority", false },
};

static void request_finish_limits(Request *r, const PolicyGrant *g, const char *user)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	DBusMessageIter it, dict;

	reply = dbus_message_new_method_return(r->msg);
	if (!reply)
		goto oom;
	dbus_message_iter_init_append(reply, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{st}", &dict))
		goto oom;

	for (size_t i = 0; i < ELEMENTSOF(limit_table); i++) {
		uint64_t want, soft, hard;
		struct rlimit rl;
		DBusMessageIter e;
		int k;

		if (policy_grant_rlimit(g, limit_table[i].resource, &want) < 0)
			continue;
		k = proc_get_limit(r->d->grants->proc, r->pid, limit_table[i].proc_name, &soft,
				   &hard);
		if (k < 0) {
			dbus_message_iter_abandon_container(&it, &dict);
			request_fail(r, ERR_NO_SUCH_PROCESS,
				     "could not read the limits of process %d: %s", (int)r->pid,
				     strerror(-k));
			return;
		}
		if (limit_table[i].ceiling)
			rl.rlim_cur = rl.rlim_max = want;
		else {
			rl.rlim_cur = soft > want ? soft : want;
			rl.rlim_max = hard > want ? hard : want;
		}
		if ((rl.rlim_cur != soft || rl.rlim_max != hard) &&
		    prlimit(r->pid, limit_table[i].resource, &rl, NULL) < 0) {
			k = -errno;
			dbus_message_iter_abandon_container(&it, &dict);
			request_fail(r, ERR_FAILED,
				     "could not set %s of process %d to %" PRIu64 ": %s%s",
				     limit_table[i].key, (int)r->pid, want, strerror(-k),
				     k == -EPERM ? " (realtimed needs CAP_SYS_RESOURCE for this)"
						 : "");
			return;
		}
		if (!dbus_message_iter_open_container(&dict, DBUS_TYPE_DICT_ENTRY, NULL, &e) ||
		    !bus_append_string(&e, limit_table[i].key) ||
		    !dbus_message_iter_append_basic(&e, DBUS_TYPE_UINT64, &rl.rlim_max) ||
		    !dbus_message_iter_close_container(&dict, &e)) {
			dbus_message_iter_abandon_container(&it, &dict);
			goto oom;
		}
	}
	if (!dbus_message_iter_close_container(&it, &dict))
		goto oom;
	log_id(LOG_DEBUG, LOG_ID_GRANT, "Granted the policy's limits to process %d (user %s)",
	       (int)r->pid, user);
	bus_send(r->d->bus, reply);
	request_free(r);
	return;
oom:
	request_fail(r, ERR_NO_MEMORY, "out of memory");
}

static void request_finish(Request *r, bool after_polkit)
{
	const PolicyGrant *g;
	const char *user;

	/* After polkit the world may have moved on: check the target again. The
	 * policy too (it may have been reloaded); without polkit that is a cache hit. */
	if ((after_polkit && request_recheck(r) < 0) || request_check_policy(r, &g, &user) < 0)
		return;
	if (r->type == REQUEST_LIMITS)
		request_finish_limits(r, g, user);
	else
		request_finish_sched(r, g, user);
}

static void on_polkit(int k, void *userdata)
{
	Request *r = userdata;
	const PolicyGrant *g;
	const char *user;

	if (k > 0) {
		request_finish(r, true);
		return;
	}
	if (daemon_policy_eval(r->d, r->owner, &g, &user) < 0)
		user = "?";
	if (k == 0)
		request_fail(r, ERR_PERMISSION_DENIED,
			     "polkit did not authorize %s for user %s (no [User] or [Group] rule "
			     "covers the user)",
			     request_polkit_action(r), user);
	else
		request_fail(r, ERR_PERMISSION_DENIED,
			     "polkit could not be asked (%s); only users a policy rule covers are "
			     "served",
			     strerror(-k));
}

void request_start(Daemon *d, DBusMessage *m, RequestType type, BusFlavour flavour, GrantKind kind,
		   bool compat_rt, int value, uint64_t pid_arg, uint64_t tid_arg)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);
	const PolicyGrant *g;
	const char *user;
	Request *r;
	int k;

	r = calloc(1, sizeof(*r));
	if (!r) {
		bus_reply_error(d->bus, m, DBUS_ERROR_NO_MEMORY, "out of memory");
		return;
	}
	*r = (Request){ .d = d,
			.msg = dbus_message_ref(m),
			.type = type,
			.flavour = flavour,
			.kind = kind,
			.compat_rt = compat_rt,
			.value = value,
			.pid_arg = pid_arg,
			.tid_arg = tid_arg,
			.pidfd = -EBADF };

	k = bus_get_creds(d, m, &r->uid, &r->caller_pid);
	if (k < 0) {
		request_fail(r, ERR_FAILED,
			     "could not get the caller's credentials from the bus: %s",
			     strerror(-k));
		return;
	}
	if (type == REQUEST_SCHED && d->refuse_until_usec > now_usec(CLOCK_MONOTONIC)) {
		request_fail(r, ERR_REFUSING,
			     "refusing grants for %" PRIu64
			     " more seconds: the canary watchdog found the system starving "
			     "(CanaryRefuseSec=%" PRIu64 "s)",
			     (d->refuse_until_usec - now_usec(CLOCK_MONOTONIC)) / 1000000 + 1,
			     policy_daemon(d->policy)->canary_refuse_usec / 1000000);
		return;
	}
	if (request_pin(r) < 0 || request_check_policy(r, &g, &user) < 0 ||
	    request_check_limits(r, user) < 0)
		return;

	/* root callers and root-owned targets need no polkit */
	if (r->uid != 0 && r->owner != 0 && policy_grant_needs_polkit(g, pd)) {
		k = polkit_check(d->polkit, request_polkit_action(r), r->pid, r->pid_start, r->uid,
				 on_polkit, r, request_free_void);
		if (k == 0)
			return; /* on_polkit() carries on */
		if (k < 0) {
			if (k == -EBUSY)
				request_fail(r, ERR_RATE_LIMITED,
					     "too many authorization checks are pending");
			else
				request_fail(r, ERR_FAILED, "could not ask polkit: %s",
					     strerror(-k));
			return;
		}
	}
	request_finish(r, false);
}

int request_resolve_owned(Daemon *d, DBusMessage *m, BusFlavour f, uint64_t pid_arg,
			  const uint64_t *tid_arg, pid_t *ret_pid, pid_t *ret_tid)
{
	pid_t caller, pid, tid;
	RequestError e;
	char text[256];
	uid_t uid, owner;
	int k;

	k = bus_get_creds(d, m, &uid, &caller);
	if (k < 0) {
		bus_reply_error(d->bus, m, request_error_name(ERR_FAILED, f),
				"could not get the caller's credentials from the bus: %s",
				strerror(-k));
		return k;
	}
	if (pid_arg > INT_MAX || (tid_arg && *tid_arg > INT_MAX)) {
		bus_reply_error(d->bus, m, request_error_name(ERR_INVALID_ARGS, f),
				"pid %" PRIu64 " / tid %" PRIu64 " out of range", pid_arg,
				tid_arg ? *tid_arg : 0);
		return -EINVAL;
	}
	pid = pid_arg ? (pid_t)pid_arg : caller;
	tid = !tid_arg ? 0 : *tid_arg ? (pid_t)*tid_arg : pid;
	e = check_owner(d->grants->proc, pid, tid ? tid : pid, uid, &owner, text, sizeof(text));
	if (e >= 0) {
		bus_reply_error(d->bus, m, request_error_name(e, f), "%s", text);
		return -EPERM;
	}
	*ret_pid = pid;
	*ret_tid = tid;
	return 0;
}
