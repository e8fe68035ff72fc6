// SPDX-License-Identifier: GPL-2.0-or-later
/* Granting realtime or a nice level to a thread, and rlimits to a process;
 * see request-sched.h. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bus.h"
#include "log.h"
#include "macro.h"
#include "pidfd.h"
#include "proc.h"
#include "request-check.h"
#include "request-sched.h"

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

/* Whether the canary watches r's thread already: the table holds a
 * realtime grant of that very thread, and the canary took the table at its
 * last change. A grant to it then needs no hand-off of a pending target
 * (which would rebuild the canary's list twice to end where it began). */
static bool request_watched(Request *r)
{
	Grant *g = grant_table_find(r->d->grants, r->pid, r->tid);

	return r->d->canary_synced && g && g->kind != POLICY_GRANT_NICE &&
	       g->process->start_time == r->pid_start && g->start_time == r->tid_start;
}

/* After sched_apply() the thread may have changed its own scheduling
 * before the read-back: lowered its priority (any thread may), or raised it
 * within its own RLIMIT_RTPRIO. What it holds is supervised if it is a
 * grant of the same sort that policy allows; otherwise the grant is undone.
 * Either way it never stays realtime outside the table, where no canary,
 * per-user cap or reload would see it. Returns 0 with what to record. */
static int request_read_back(Request *r, const PolicyGrant *g, const SchedState *before,
			     PolicyGrantKind *ret_kind, int *ret_value)
{
	PolicyGrantKind kind;
	SchedState now;
	int value, k;

	k = sched_get_state(r->tid, &now);
	if (k < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d of process %d exited during the grant", (int)r->tid,
				     (int)r->pid);
	if (sched_state_as_grant(&now, &kind, &value) >= 0 &&
	    (kind == POLICY_GRANT_NICE) == (r->kind == POLICY_GRANT_NICE) &&
	    policy_grant_allows(g, kind, value, NULL) >= 0) {
		if (kind != r->kind || value != r->value)
			log_id(LOG_DEBUG, LOG_ID_GRANT,
			       "Thread %d changed itself to %s %d right after its grant of %s %d; "
			       "supervising that",
			       (int)r->tid, policy_grant_kind_to_string(kind), value,
			       policy_grant_kind_to_string(r->kind), r->value);
		*ret_kind = kind;
		*ret_value = value;
		return 0;
	}
	k = sched_restore(r->tid, r->kind, before);
	if (k < 0 && k != -ESRCH)
		log_error_errno(k, "Failed to undo the grant of %s %d to thread %d: %m",
				policy_grant_kind_to_string(r->kind), r->value, (int)r->tid);
	return request_error(r, REQUEST_E_FAILED,
			     "thread %d does not hold %s %d after it was set (it runs %s %d now, "
			     "not a grant its policy allows); the grant is undone",
			     (int)r->tid, policy_grant_kind_to_string(r->kind), r->value,
			     procfs_sched_policy_to_string(now.policy),
			     now.policy == SCHED_FIFO || now.policy == SCHED_RR ? now.priority
										: now.nice);
}

/* Whether the main thread of r's process holds the change, having called
 * execve() as the pinned thread right after it (grants.h): the process
 * lives, and no grant of the main thread's own covers what it runs. */
static bool request_change_execed(Request *r, SchedState *ret_now)
{
	Grant *m = grant_table_find(r->d->grants, r->pid, r->pid);

	return r->tid != r->pid && pidfd_alive(r->pidfd) == 0 &&
	       sched_get_state(r->pid, ret_now) >= 0 &&
	       sched_state_may_hold(ret_now, r->kind, r->value) &&
	       !(m && m->process->start_time == r->pid_start &&
		 sched_state_may_hold(ret_now, m->kind, m->value)) &&
	       pidfd_alive(r->pidfd) == 0;
}

/* The pinned thread exited between the checks before and after the change:
 * the change went to it (and left with it), to no thread, or to a thread
 * that took the tid in between, which nobody would ever supervise; or the
 * thread called execve() and is its process's main thread now, with the
 * change. That thread goes back to what the pinned one ran with before, or
 * when that was realtime (which a new thread need not have had), to
 * SCHED_OTHER at its own nice level; sched_restore() never raises it. */
static void request_undo_reused(Request *r, const SchedState *before)
{
	SchedState now, to = *before;
	pid_t tid = r->tid;
	int k;

	if (sched_get_state(tid, &now) < 0 || !sched_state_may_hold(&now, r->kind, r->value)) {
		if (!request_change_execed(r, &now))
			return;
		tid = r->pid;
	}
	if (sched_state_known(&to) &&
	    (to.policy == SCHED_FIFO || to.policy == SCHED_RR || to.policy == SCHED_DEADLINE))
		to = SCHED_STATE_UNKNOWN;
	k = sched_restore(tid, r->kind, &to);
	if (k < 0 && k != -ESRCH)
		log_error_errno(k, "Failed to undo %s %d on tid %d, which another thread took: %m",
				policy_grant_kind_to_string(r->kind), r->value, (int)tid);
	else if (k == 0)
		log_id(LOG_NOTICE, LOG_ID_GRANT,
		       "Thread %d of process %d exited or called execve() while it was granted "
		       "%s %d; the change is undone on thread %d",
		       (int)r->tid, (int)r->pid, policy_grant_kind_to_string(r->kind), r->value,
		       (int)tid);
}

/* Sets the grant on the thread, verifies it, and records it. The canary
 * watches a realtime thread from before it is set (pending) until the
 * table holds it, or until it is undone. */
static int request_apply(Request *r, const PolicyGrant *g, const SchedState *before,
			 PolicyGrantKind *ret_kind, int *ret_value)
{
	int k;

	/* The pin, right before the change: the canary's start may have
	 * taken long, and a thread that exited meanwhile may have left its
	 * tid to another. While the pinned thread lives its tid is its own
	 * (a PIDFD_THREAD pidfd, the process's for the main thread; the
	 * start time where the kernel has no thread pidfds). */
	if (request_target_alive(r) < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d of process %d exited before the grant", (int)r->tid,
				     (int)r->pid);
	k = sched_apply(r->tid, r->kind, r->value);
	if (k < 0)
		return request_error(r, k, "could not set %s %d on thread %d: %s",
				     policy_grant_kind_to_string(r->kind), r->value, (int)r->tid,
				     strerror(-k));
	/* Verify again: the thread we set is still the one that was pinned,
	 * and it holds a grant we can supervise. A thread that exited
	 * meanwhile may have left its tid to another before the change
	 * landed; that one is put back. */
	if (request_target_alive(r) < 0) {
		request_undo_reused(r, before);
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "thread %d of process %d exited during the grant", (int)r->tid,
				     (int)r->pid);
	}
	return request_read_back(r, g, before, ret_kind, ret_value);
}

int request_grant_sched(Request *r, const PolicyGrant *g, const char *user)
{
	SchedState before;
	/* set by request_apply() when it returns 0; initialized for -O2 */
	PolicyGrantKind kind = POLICY_GRANT_NICE;
	Grant *grant;
	bool unchanged, handed = false;
	int value = 0, k;

	if (r->kind != POLICY_GRANT_NICE) {
		k = request_lower_rttime(r, g, user);
		if (k != 0)
			return k;
	}

	/* The target was checked last at request_pin(), or after polkit or
	 * the resolver by request_recheck() (request.c): nothing of realtimed ran since, so that
	 * answer stands for what the thread ran with before. request_apply() checks the pin again
	 * right before the change (the canary's start below takes a while) and right after it. */
	if (request_before(r, &before) < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS, "thread %d of process %d exited",
				     (int)r->tid, (int)r->pid);

	if (r->kind != POLICY_GRANT_NICE && !request_watched(r)) {
		CanaryTarget pending = {
			.pid = r->pid, .tid = r->tid, .start_time = r->tid_start, .uid = r->owner
		};

		/* A grant nobody watches is not made. */
		handed = true;
		k = supervise_canary_sync(r->d, &pending);
		if (k < 0)
			return request_error(r, REQUEST_E_FAILED,
					     "the canary watchdog could not take thread %d: %s; "
					     "nothing was granted",
					     (int)r->tid, strerror(-k));
	}
	k = request_apply(r, g, &before, &kind, &value);
	if (k != 0) {
		/* Only then does the canary let go of the pending target. */
		if (handed)
			supervise_canary_sync(r->d, NULL);
		return k;
	}

	grant = grant_table_find(r->d->grants, r->pid, r->tid);
	unchanged = grant && grant->process->start_time == r->pid_start &&
		    grant->start_time == r->tid_start && grant->kind == kind &&
		    grant->value == value;
	/* The table keeps the pidfds that pinned the thread for this request. */
	k = grant_table_add_pinned(r->d->grants, r->pid, r->pid_start, r->owner, TAKE_FD(r->pidfd),
				   r->tid, TAKE_FD(r->tidfd), r->tid_start, kind, value, &before,
				   now_usec(CLOCK_REALTIME), &grant);
	if (k < 0) {
		(void)sched_restore(r->tid, r->kind, &before);
		supervise_canary_sync(r->d, NULL);
		return request_error(r, REQUEST_E_NO_MEMORY, "could not record the grant: %s",
				     strerror(-k));
	}
	/* Its Demoted signal goes to the connection that asked last. */
	grant_set_owner(grant, r->msg ? dbus_message_get_sender(r->msg) : NULL);
	/* A change of the table hands the canary the table; a repeated grant
	 * changes nothing there, so the pending target goes here. */
	if (unchanged && handed)
		supervise_canary_sync(r->d, NULL);
	log_id(LOG_DEBUG, LOG_ID_GRANT, "Granted %s %d to thread %d of process %d (user %s)",
	       policy_grant_kind_to_string(kind), value, (int)r->tid, (int)r->pid, user);
	return 0;
}

/* GrantLimits and RTTime='s ceiling */
/* r's process exited while prlimit() set limit name to *rl, and the pid
 * may have gone to another process before the change landed. That one is
 * put back to what it had (old, prlimit()'s answer) when it shows exactly
 * what was set, which a process that merely took the pid hardly ever
 * does; what it changed itself since stays. */
static void undo_reused(Request *r, int resource, const char *name, const struct rlimit *rl,
			const struct rlimit *old)
{
	struct rlimit now;
	int k;

	if (prlimit(r->pid, resource, NULL, &now) < 0 || now.rlim_cur != rl->rlim_cur ||
	    now.rlim_max != rl->rlim_max)
		return;
	k = RET_NERRNO(prlimit(r->pid, resource, old, NULL));
	if (k < 0 && k != -ESRCH)
		log_error_errno(k, "Failed to undo %s on pid %d, which another process took: %m",
				name, (int)r->pid);
	else if (k == 0)
		log_id(LOG_NOTICE, LOG_ID_GRANT,
		       "Process %d exited while its %s was set; the change is undone on the "
		       "process that took its pid",
		       (int)r->pid, name);
}

/* prlimit() of limit name to *rl on r's pinned process: 0, -ESRCH when the
 * process exited before or during the change, or -errno. While the pinned
 * process lives its pid is its own, so the pin is checked right before and
 * right after, as request-sched.c does for a thread. */
static int set_limit(Request *r, int resource, const char *name, const struct rlimit *rl)
{
	struct rlimit old;

	if (pidfd_alive(r->pidfd) < 0)
		return -ESRCH;
	if (prlimit(r->pid, resource, rl, &old) < 0)
		return -errno;
	if (pidfd_alive(r->pidfd) < 0) {
		undo_reused(r, resource, name, rl, &old);
		return -ESRCH;
	}
	return 0;
}

/* GrantLimits raises a limit that is a right (a limit already above policy
 * stays), and sets a ceiling (RLIMIT_RTTIME) to exactly what policy says,
 * lowering it too, in the library's order: the ceiling first, so a process
 * never holds a raised RLIMIT_RTPRIO without it. (A user whose Policies=
 * lacks fifo gets RLIMIT_RTPRIO 0 from policy_grant_rlimit(): no raise.) */

/* Sets limit l on r's process if policy has it; appends it to dict. */
static int grant_limit(Request *r, const PolicyGrant *g, const PolicyRlimit *l,
		       DBusMessageIter *dict)
{
	uint64_t want, soft, hard;
	struct rlimit rl;
	DBusMessageIter e;
	int k;

	if (policy_grant_rlimit(g, l->resource, &want) < 0)
		return 0;
	k = proc_get_limit(r->d->args.proc, r->pid, l->proc_name, &soft, &hard);
	if (k < 0)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "could not read the limits of process %d: %s", (int)r->pid,
				     strerror(-k));
	if (l->ceiling)
		rl.rlim_cur = rl.rlim_max = want;
	else {
		rl.rlim_cur = soft > want ? soft : want;
		rl.rlim_max = hard > want ? hard : want;
	}
	k = rl.rlim_cur != soft || rl.rlim_max != hard ? set_limit(r, l->resource, l->name, &rl)
						       : 0;
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "process %d exited while its limits were set", (int)r->pid);
	if (k < 0)
		return request_error(r, k, "could not set %s of process %d to %" PRIu64 ": %s%s",
				     l->name, (int)r->pid, want, strerror(-k),
				     k == -EPERM ? " (realtimed needs CAP_SYS_RESOURCE for this)"
						 : "");
	if (!dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &e) ||
	    !bus_append_string(&e, l->name) ||
	    !dbus_message_iter_append_basic(&e, DBUS_TYPE_UINT64, &rl.rlim_max) ||
	    !dbus_message_iter_close_container(dict, &e))
		return request_error(r, REQUEST_E_NO_MEMORY, "out of memory");
	return 0;
}

int request_grant_limits(Request *r, const PolicyGrant *g, const char *user)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	DBusMessageIter it, dict;
	int k;

	reply = dbus_message_new_method_return(r->msg);
	if (!reply)
		return request_error(r, REQUEST_E_NO_MEMORY, "out of memory");
	dbus_message_iter_init_append(reply, &it);
	if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{st}", &dict))
		return request_error(r, REQUEST_E_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < POLICY_RLIMIT_MAX; i++) {
		k = grant_limit(r, g, policy_rlimit(i), &dict);
		if (k != 0) {
			dbus_message_iter_abandon_container(&it, &dict);
			return k;
		}
	}
	if (!dbus_message_iter_close_container(&it, &dict))
		return request_error(r, REQUEST_E_NO_MEMORY, "out of memory");
	log_id(LOG_DEBUG, LOG_ID_GRANT, "Granted the policy's limits to process %d (user %s)",
	       (int)r->pid, user);
	r->reply = TAKE_PTR(reply);
	return 0;
}

int request_lower_rttime(Request *r, const PolicyGrant *g, const char *user)
{
	uint64_t soft, hard, max = g->rttime_usec;
	struct rlimit rl;
	char src[300];
	int k;

	if (!g->set[POLICY_KEY_RTTIME] || max == POLICY_INFINITY)
		return 0;
	k = proc_get_limit(r->d->args.proc, r->pid, "Max realtime timeout", &soft, &hard);
	if (k < 0)
		return request_error(r, k, "could not read the limits of process %d: %s",
				     (int)r->pid, strerror(-k));
	if (hard <= max)
		return 0;
	rl.rlim_max = max;
	rl.rlim_cur = soft < max ? soft : max;
	k = set_limit(r, RLIMIT_RTTIME, "RLIMIT_RTTIME", &rl);
	if (k == 0)
		return 0;
	if (k == -ESRCH)
		return request_error(r, REQUEST_E_NO_SUCH_PROCESS,
				     "process %d exited before the grant", (int)r->pid);
	policy_source_format(&g->source[POLICY_KEY_RTTIME], POLICY_KEY_RTTIME, src, sizeof(src));
	request_cite(r, &g->source[POLICY_KEY_RTTIME]);
	if (hard == UINT64_MAX)
		return request_error(r, REQUEST_E_POLICY_DENIED,
				     "RLIMIT_RTTIME of process %d is unlimited, above the limit "
				     "%" PRIu64 " us for user %s (%s); set RLIMIT_RTTIME first",
				     (int)r->pid, max, user, src);
	return request_error(r, REQUEST_E_POLICY_DENIED,
			     "RLIMIT_RTTIME of process %d is %" PRIu64
			     " us, above the limit %" PRIu64
			     " us for user %s (%s); set RLIMIT_RTTIME first",
			     (int)r->pid, hard, max, user, src);
}

/* What the canary watches of the grant table */
int supervise_canary_sync(Daemon *d, const CanaryTarget *pending)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);
	CanarySettings settings = {
		.watchdog_usec = pd->canary ? pd->canary_watchdog_usec : 0,
		.refuse_usec = pd->canary_refuse_usec,
		.demote_unknown = pd->canary_demote_unknown,
	};
	_cleanup_free_ CanaryTarget *targets = NULL;
	size_t n = 0;
	int r = -ENOMEM;

	if (!d->canary)
		return 0;
	if (pd->canary && (d->grants->n_grants > 0 || pending)) {
		targets = calloc(d->grants->n_grants + 1, sizeof(*targets));
		if (!targets)
			goto done;
		GRANT_TABLE_FOREACH(p, g, d->grants) {
			/* Nice grants cannot starve anyone; only realtime ones are watched. */
			if (g->kind == POLICY_GRANT_NICE)
				continue;
			targets[n++] = (CanaryTarget){ .pid = p->pid,
						       .tid = g->tid,
						       .start_time = g->start_time,
						       .uid = p->uid };
		}
		if (pending)
			targets[n++] = *pending;
	}
	r = canary_update(d->canary, targets, n, &settings);
done:
	d->canary_synced = r >= 0;
	if (r < 0)
		return log_error_errno(r, "Failed to update the canary watchdog: %m");
	return 0;
}

int supervise_max_priority(Daemon *d)
{
	if (!d->canary || !policy_daemon(d->policy)->canary)
		return 99;
	return canary_max_grant_priority(d->canary);
}
