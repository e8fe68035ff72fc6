// SPDX-License-Identifier: GPL-2.0-or-later
/* A request's life: the checks, polkit, the grant or reset, the answer. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon-policy.h"
#include "demote.h"
#include "log.h"
#include "polkit.h"
#include "request-check.h"
#include "request-pidns.h"
#include "request-refused.h"
#include "request-sched.h"
#include "user-wait.h"
#include "utf8.h"

int request_error(Request *r, int code, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	utf8_vsnprintf(r->why, sizeof(r->why), format, ap);
	va_end(ap);
	return code;
}

void request_cite(Request *r, const PolicySource *s)
{
	if (s && s->file)
		utf8_snprintf(r->cite, sizeof(r->cite), "%s:%u", s->file, s->line);
}

void request_cite_daemon(Request *r, const char *key)
{
	request_cite(r, policy_daemon_source(r->d->policy, key));
}

static Request *request_free(Request *r)
{
	if (!r)
		return NULL;
	safe_close(r->pidfd);
	safe_close(r->tidfd);
	if (r->msg)
		dbus_message_unref(r->msg);
	if (r->reply)
		dbus_message_unref(r->reply);
	return mfree(r);
}

static void request_free_void(void *p)
{
	request_free(p);
}

/* The one answer to r: its reply on success (code 0), else the error of
 * code with r->why. Frees r. */
static void request_finish(Request *r, int code)
{
	const DaemonHooks *h = r->d->hooks;

	if (code != 0) {
		if (!r->why[0])
			(void)request_error(r, code, "%s", code < 0 ? strerror(-code) : "refused");
		/* a reset's at debug only: a client can provoke these at will */
		if (r->type == REQUEST_SCHED || r->type == REQUEST_LIMITS)
			request_record_refusal(r, code);
		else
			log_id(LOG_DEBUG, LOG_ID_NOT_SERVED, "%s request of uid %u (pid %d): %s",
			       code < 0 ? "Failed" : "Refused", (unsigned)r->uid,
			       (int)r->caller_pid, r->why);
	}
	if (h && h->answer)
		h->answer(r->d, r->msg, r->flavour, code, r->why, r->reply);
	request_free(r);
}

static void request_run(Request *r, int (*step)(Request *r, bool *ret_pending));

static void on_owner_resolved(int error, uid_t uid, void *userdata)
{
	Request *r = userdata;
	char text[256];

	/* never -ESRCH, an answer: the checks say "not a known user" */
	if (error < 0) {
		log_id(LOG_WARNING, LOG_ID_NOT_SERVED, "Request of uid %u (pid %d): %s",
		       (unsigned)r->uid, (int)r->caller_pid,
		       daemon_resolve_error(uid, error, text, sizeof(text)));
		request_finish(r, request_error(r, REQUEST_E_FAILED, "%s; nothing granted", text));
		return;
	}
	request_run(r, r->resume);
}

static const UserWaitOps owner_wait = { .done = on_owner_resolved,
					.free_userdata = request_free_void };

/* r waits for the owner's lookup, as for polkit; step carries on after it. */
static int request_park(Request *r, int (*step)(Request *r, bool *ret_pending), bool *ret_pending)
{
	char text[256];
	int k;

	r->resume = step;
	r->waited = true;
	k = user_wait_one(r->d, r->owner, &owner_wait, r);
	if (k >= 0) {
		*ret_pending = true;
		return 0;
	}
	r->waited = false;
	return request_error(r, k == -EBUSY ? REQUEST_E_FAILED : k, "%s; nothing granted",
			     daemon_resolve_error(r->owner, k, text, sizeof(text)));
}

static int step_grant(Request *r, bool *ret_pending)
{
	PolicyEval e;
	int k;

	/* after a wait the target, the policy and the cool-down may have
	 * changed: check them again */
	k = request_recheck(r);
	if (k == 0)
		k = request_check_refusing(r, now_usec(CLOCK_MONOTONIC));
	if (k != 0)
		return k;
	k = request_check_policy(r, &e);
	if (k == -EINPROGRESS)
		return request_park(r, step_grant, ret_pending);
	/* The limits again: a burst that waited passed them while none was
	 * granted. Nothing runs between this check and the grant. */
	if (k == 0)
		k = request_check_limits(r, e.user);
	if (k != 0)
		return k;
	if (r->type == REQUEST_LIMITS)
		return request_grant_limits(r, &e.grant, e.user);
	return request_grant_sched(r, &e.grant, e.user);
}

static void on_polkit(int k, void *userdata)
{
	Request *r = userdata;
	PolicyEval e;
	const char *user = "?";

	if (k > 0) {
		request_run(r, step_grant);
		return;
	}
	if (daemon_policy_eval(r->d, r->owner, &e) >= 0)
		user = e.user;
	request_cite_daemon(r, "Polkit"); /* Polkit=yes sent the user to polkit */
	if (k == 0)
		k = request_error(r, REQUEST_E_PERMISSION_DENIED,
				  "polkit did not authorize %s for user %s (no [User] or [Group] "
				  "rule covers the user)",
				  request_polkit_action(r), user);
	else
		k = request_error(r, REQUEST_E_PERMISSION_DENIED,
				  "polkit could not be asked (%s); only users a policy rule covers "
				  "are served",
				  strerror(-k));
	request_finish(r, k);
}

/* Policy and the per-user limits, then polkit if no rule covers the user. */
static int step_user(Request *r, bool *ret_pending)
{
	const PolicyDaemon *pd = policy_daemon(r->d->policy);
	PolicyEval e;
	int k;

	k = request_recheck(r);
	if (k == 0)
		k = request_check_policy(r, &e);
	if (k == -EINPROGRESS)
		return request_park(r, step_user, ret_pending);
	if (k == 0)
		k = request_check_limits(r, e.user);
	if (k != 0)
		return k;

	/* root callers and root-owned targets need no polkit */
	if (r->uid == 0 || r->owner == 0 || !policy_grant_needs_polkit(&e.grant, pd))
		return step_grant(r, ret_pending);
	/* set before: from here on, on_polkit() may carry on at any time */
	r->waited = true;
	k = polkit_check(r->d->polkit, request_polkit_action(r), r->pid, r->pid_start, r->uid,
			 on_polkit, r, request_free_void);
	if (k == 0) {
		*ret_pending = true;
		return 0;
	}
	r->waited = false; /* answered at once */
	if (k == -EBUSY)
		return request_error(r, REQUEST_E_RATE_LIMITED,
				     "too many authorization checks are pending; try again later");
	if (k == -EDQUOT)
		return request_error(r, REQUEST_E_RATE_LIMITED,
				     "uid %u waits for %u authorization checks already; try again "
				     "when they are answered",
				     (unsigned)r->uid, POLKIT_GRANT_PER_UID);
	if (k < 0)
		return request_error(r, k, "could not ask polkit: %s", strerror(-k));
	return step_grant(r, ret_pending); /* a cached yes */
}

/* Maps r's ids (request-pidns.h) and finds the target with check, again when
 * the tid is an id in the namespace below the process's. */
static int request_target(Request *r, int (*check)(Request *r))
{
	int k;

	k = request_check_args(r);
	if (k == 0)
		k = request_map_pidns(r);
	if (k == 0)
		k = check(r);
	if (k == REQUEST_E_NO_SUCH_PROCESS) {
		k = request_pidns_retry(r, k);
		if (k == 0)
			k = check(r);
	}
	if (k == 0)
		k = request_pidns_verify(r);
	return k;
}

static int step_start(Request *r, bool *ret_pending)
{
	int k;

	k = request_target(r, request_pin);
	if (k == 0)
		k = request_check_refusing(r, now_usec(CLOCK_MONOTONIC));
	if (k != 0)
		return k;
	return step_user(r, ret_pending);
}

/* Runs step, and answers unless r is left waiting. */
static void request_run(Request *r, int (*step)(Request *r, bool *ret_pending))
{
	bool pending = false;
	int k;

	k = step(r, &pending);
	if (!pending)
		request_finish(r, k);
}

/* Only what realtimed granted is undone: root's "reset" of anything else
 * could raise it (nice 19 to 0, SCHED_IDLE to SCHED_OTHER). */
static int request_reset(Request *r)
{
	bool thread = r->type == REQUEST_RESET_THREAD;
	int k;

	k = request_target(r, request_check_owner);
	if (k != 0)
		return k;
	if (demote_reset(r->d, r->pid, thread ? r->tid : 0) > 0)
		return 0;
	if (thread)
		return request_error(r, REQUEST_E_NO_SUCH_GRANT,
				     "thread %d of process %d holds no grant of realtimed; it is "
				     "left as it is",
				     (int)r->tid, (int)r->pid);
	return request_error(r, REQUEST_E_NO_SUCH_GRANT,
			     "process %d holds no grant of realtimed; it is left as it is",
			     (int)r->pid);
}

void request_start(Daemon *d, DBusMessage *m, const RequestArgs *args)
{
	Request *r;
	int k;

	r = calloc(1, sizeof(*r));
	if (!r) {
		if (d->hooks && d->hooks->answer)
			d->hooks->answer(d, m, args->flavour, REQUEST_E_NO_MEMORY, "out of memory",
					 NULL);
		return;
	}
	*r = (Request){ .d = d,
			.msg = dbus_message_ref(m),
			.type = args->type,
			.flavour = args->flavour,
			.kind = args->kind,
			.compat_rt = args->compat_rt,
			.value = args->value,
			.pid_arg = args->pid,
			.tid_arg = args->tid,
			.uid = args->uid,
			.caller_pid = args->caller_pid,
			.pidfd = -EBADF,
			.tidfd = -EBADF };

	if (r->type == REQUEST_RESET_THREAD || r->type == REQUEST_RESET_PROCESS)
		k = request_reset(r);
	else if ((k = request_check_admission(r, now_usec(CLOCK_MONOTONIC))) == 0) {
		request_run(r, step_start);
		return;
	}
	request_finish(r, k);
}
