// SPDX-License-Identifier: GPL-2.0-or-later
/* GrantLimits and RTTime='s ceiling; see request-limits.h. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>

#include "bus.h"
#include "log.h"
#include "pidfd.h"
#include "proc.h"
#include "request-limits.h"

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
