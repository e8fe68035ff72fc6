// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pam_realtime.so: the login-time grant of realtimed.
 *
 *   session optional pam_realtime.so [debug] [conf=FILE]... [nocaps]
 *
 * At open_session it evaluates the realtime.conf(5) policy for PAM_USER
 * (common/'s policy_user_resolve(), NSS groups included, then
 * policy_load_for_user() and policy_eval_for_user()) and sets soft and hard
 * RLIMIT_RTPRIO, RLIMIT_MEMLOCK, RLIMIT_RTTIME and RLIMIT_NICE on the calling
 * process, which the session (and systemd --user, through the systemd-user
 * service) inherits. Capabilities= become ambient capabilities after the
 * application's setuid (pam-ambient.h). It never blocks a login: every
 * problem is logged with pam_syslog() and answered PAM_IGNORE or
 * PAM_SESSION_ERR, as pam_realtime(8) documents. No global state: the
 * module may run in threaded programs and in several PAM handles at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "macro.h"
#include "pam-ambient.h"
#include "pam-args.h"
#include "pam-rlimits.h"
#include "policy-allow.h"
#include "policy.h"

#define AMBIENT_DATA_NAME "pam_realtime_ambient"

/* Kept with pam_set_data() from open_session until pam_end(). */
typedef struct AmbientRequest {
	uint64_t caps;
	AmbientSaved saved;
	bool debug;
} AmbientRequest;

/* "RealtimePriority=95 from /etc/realtime/realtime.conf:12 [Group audio]";
 * where no file sets the key, policy_source_format()'s "no policy file
 * sets Policies=". */
static void decision_format(const PolicyGrant *g, PolicyKey k, char *buf, size_t size)
{
	const PolicySource *s = &g->source[k];
	char value[128], where[512];

	policy_source_format(s, k, where, sizeof(where));
	if (!s->file) {
		snprintf(buf, size, "%s", where);
		return;
	}
	if (policy_grant_format(g, k, value, sizeof(value)) < 0)
		snprintf(value, sizeof(value), "?");
	snprintf(buf, size, "%s=%s from %s [%s]", policy_key_to_string(k), value, where,
		 s->section ? s->section : "?");
}

/* Logs that the module failed to do what (printf) and answers for it:
 * PAM_BUF_ERR, at LOG_CRIT, when r is -ENOMEM, else PAM_IGNORE. Either
 * way nothing is granted. */
_printf_(3, 4) static int fail(pam_handle_t *pamh, int r, const char *what, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, what);
	vsnprintf(text, sizeof(text), what, ap);
	va_end(ap);
	pam_syslog(pamh, r == -ENOMEM ? LOG_CRIT : LOG_ERR, "Failed to %s: %s; granting nothing",
		   text, strerror(-r));
	return r == -ENOMEM ? PAM_BUF_ERR : PAM_IGNORE;
}

static void args_parse(pam_handle_t *pamh, int argc, const char **argv, PamArgs *ret)
{
	pam_args_init(ret);

	for (int i = 0; i < argc; i++) {
		int r = pam_args_parse_one(ret, argv[i]);

		if (r == -E2BIG)
			pam_syslog(pamh, LOG_ERR,
				   "Ignoring module argument \"%s\": more than %d conf= arguments; "
				   "see pam_realtime(8)",
				   argv[i], PAM_ARGS_CONF_MAX);
		else if (r < 0 && argv[i] && startswith(argv[i], "conf="))
			pam_syslog(pamh, LOG_ERR,
				   "Ignoring module argument \"%s\": conf= needs an absolute path; "
				   "see pam_realtime(8)",
				   argv[i]);
		else if (r < 0)
			pam_syslog(pamh, LOG_ERR,
				   "Ignoring unknown module argument \"%s\"; known are debug, "
				   "conf=FILE and nocaps, see pam_realtime(8)",
				   argv[i] ? argv[i] : "(null)");
	}
}

/* Loads the policy; only the sections that concern u when the user is
 * known (every file is still checked whole), all of it otherwise. */
static int policy_open(pam_handle_t *pamh, const PamArgs *args, const PolicyUser *u, Policy **ret)
{
	PolicyPaths paths = {}; /* the compiled-in default locations */
	Policy *p = NULL;
	int r;

	if (args->n_conf > 0)
		r = u ? policy_load_files_for_user(args->conf, args->n_conf, u, &p)
		      : policy_load_files(args->conf, args->n_conf, &p);
	else
		r = u ? policy_load_for_user(&paths, u, &p) : policy_load(&paths, &p);
	if (r < 0)
		return fail(pamh, r, "load the realtime policy");

	/* A rejected file is skipped whole; the others are in force. Say so at
	 * every login until it is fixed: silence would hide a lost grant. */
	for (size_t i = 0; i < policy_n_errors(p); i++) {
		const PolicyError *e = policy_error(p, i);

		if (e->line > 0)
			pam_syslog(pamh, LOG_ERR,
				   "Ignoring policy file %s: line %u: %s. Nothing in that file is "
				   "applied until it is fixed; check it with \"realtimectl policy "
				   "check\"",
				   e->file, e->line, e->message);
		else
			pam_syslog(pamh, LOG_ERR,
				   "Ignoring policy file %s: %s. Nothing in that file is applied "
				   "until it is fixed; check it with \"realtimectl policy check\"",
				   e->file, e->message);
	}

	if (policy_n_files(p) == 0) {
		if (args->debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "No realtime policy file is in force; granting nothing");
		policy_free(p);
		return PAM_IGNORE;
	}

	*ret = p;
	return PAM_SUCCESS;
}

/* Sets every limit of the plan; returns PAM_SUCCESS or PAM_SESSION_ERR. */
static int rlimits_apply(pam_handle_t *pamh, const PamArgs *args, const char *user,
			 const PolicyGrant *g, const RlimitPlan *plan)
{
	int ret = PAM_SUCCESS;

	for (size_t i = 0; i < plan->n_items; i++) {
		const RlimitItem *it = &plan->items[i];
		const char *name = it->name;
		char why[768], want[32], old_cur[32], old_max[32], now[32];
		struct rlimit old, new;
		int r;

		decision_format(g, it->key, why, sizeof(why));
		policy_rlimit_format(it->value, want, sizeof(want));

		r = rlimit_item_apply(it, &old, &new);
		if (r < 0) {
			pam_syslog(pamh, LOG_ERR, "Failed to set %s of %s to %s (%s): %s", name,
				   user, want, why, strerror(-r));
			ret = PAM_SESSION_ERR;
			continue;
		}

		policy_rlimit_format(old.rlim_cur, old_cur, sizeof(old_cur));
		policy_rlimit_format(old.rlim_max, old_max, sizeof(old_max));
		policy_rlimit_format(new.rlim_cur, now, sizeof(now));

		switch ((RlimitApplied)r) {
		case RLIMIT_APPLIED_EXACT:
			if (args->debug)
				pam_syslog(pamh, LOG_DEBUG,
					   "Set %s of %s to %s (was soft %s, hard %s): %s", name,
					   user, want, old_cur, old_max, why);
			break;
		case RLIMIT_APPLIED_SOFT_ONLY:
			pam_syslog(pamh, LOG_ERR,
				   "Cannot raise the hard %s of %s from %s to %s (%s): raising a "
				   "hard limit needs CAP_SYS_RESOURCE, which this process lacks. "
				   "Run the login program as root with its full capability set "
				   "(check its service's CapabilityBoundingSet= or the container's "
				   "capabilities). "
				   "The soft limit was set to the current hard limit, %s, instead",
				   name, user, old_max, want, why, now);
			ret = PAM_SESSION_ERR;
			break;
		case _RLIMIT_APPLIED_MAX:
		case _RLIMIT_APPLIED_INVALID:
			ret = PAM_SESSION_ERR;
			break;
		}
	}

	return ret;
}

/* The raise at the pam_end() of the session's process: what was raised. */
static uint64_t ambient_request_raise(pam_handle_t *pamh, const AmbientRequest *req,
				      const char *names)
{
	int r;

	if (getuid() == 0 && geteuid() == 0)
		pam_syslog(pamh, LOG_WARNING,
			   "pam_realtime: raising ambient capabilities %s while still root: the "
			   "application calls pam_end() before its setuid(), which clears them. "
			   "Use the rlimits instead, or the service's AmbientCapabilities= (for "
			   "systemd --user: a drop-in for user@.service)",
			   names);

	r = ambient_raise(req->caps);
	if (r < 0) {
		pam_syslog(
			pamh, LOG_ERR,
			"pam_realtime: Failed to raise ambient capabilities %s for the session: %s",
			names, strerror(-r));
		return 0;
	}
	if (req->debug)
		pam_syslog(pamh, LOG_DEBUG,
			   "pam_realtime: Raised ambient capabilities %s for the session (uid %u)",
			   names, (unsigned)getuid());
	return req->caps;
}

static void ambient_request_free(pam_handle_t *pamh, void *data, int error_status)
{
	AmbientRequest *req = data;
	int status = error_status & ~(PAM_DATA_REPLACE | PAM_DATA_SILENT);
	uint64_t raised = 0;
	char names[128];
	int r;

	if (!req)
		return;

	/* A new request from a second open_session took over; it carries the
	 * original keepcaps flag. */
	if (error_status & PAM_DATA_REPLACE)
		goto done;

	ambient_format(req->caps, names, sizeof(names));

	/* PAM_DATA_SILENT marks the pam_end() of the process that goes on to
	 * run the session, after its setuid (as pam_cap's "defer" expects).
	 * Any other pam_end() is the application cleaning up: nothing raised. */
	if ((error_status & PAM_DATA_SILENT) && status == PAM_SUCCESS)
		raised = ambient_request_raise(pamh, req, names);

	/* Raised, failed or not asked: keepcaps has served either way. Left
	 * set, a child that drops root later (before an execve()) would keep
	 * root's permitted set; so would this process, after its setuid(),
	 * keep what the flag kept beyond the raised ones. */
	r = ambient_release(&req->saved, raised);
	if (r < 0)
		pam_syslog(pamh, LOG_ERR,
			   "pam_realtime: Failed to give up the capabilities kept for %s across "
			   "setuid(): %s",
			   names, strerror(-r));

done:
	free(req);
}

/* Schedules Capabilities= for pam_end(); returns a PAM status. */
static int ambient_schedule(pam_handle_t *pamh, const PamArgs *args, const char *user,
			    const PolicyGrant *g)
{
	_cleanup_free_ AmbientRequest *req = NULL;
	const void *previous = NULL;
	char why[768], names[128];
	AmbientSaved saved;
	int r;

	if (!g->set[POLICY_KEY_CAPABILITIES] || g->capabilities == 0)
		return PAM_SUCCESS;

	decision_format(g, POLICY_KEY_CAPABILITIES, why, sizeof(why));
	ambient_format(g->capabilities, names, sizeof(names));

	if (args->nocaps) {
		if (args->debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "Not raising ambient capabilities %s for %s (%s): nocaps", names,
				   user, why);
		return PAM_SUCCESS;
	}

	r = ambient_prepare(g->capabilities, &saved);
	if (r < 0) {
		const char *reason =
			r == -EPERM ? "this process does not hold them (permitted and bounding "
				      "set) or may not raise ambient capabilities"
			: r == -EOPNOTSUPP ? "the kernel has no ambient capabilities (Linux 4.3 or "
					     "newer needed)"
			: r == -EINVAL	   ? "only cap_sys_nice and cap_ipc_lock may be granted"
					   : strerror(-r);

		pam_syslog(pamh, LOG_ERR,
			   "Cannot grant ambient capabilities %s to %s (%s): %s. The rlimits are "
			   "set regardless",
			   names, user, why, reason);
		return PAM_SESSION_ERR;
	}

	req = malloc(sizeof(*req));
	if (!req) {
		(void)ambient_release(&saved, 0);
		pam_syslog(pamh, LOG_CRIT, "Out of memory");
		return PAM_BUF_ERR;
	}

	/* Opened twice in one handle: keep what the first found. */
	if (pam_get_data(pamh, AMBIENT_DATA_NAME, &previous) == PAM_SUCCESS && previous)
		saved = ((const AmbientRequest *)previous)->saved;

	*req = (AmbientRequest){ .caps = g->capabilities, .saved = saved, .debug = args->debug };

	r = pam_set_data(pamh, AMBIENT_DATA_NAME, req, ambient_request_free);
	if (r != PAM_SUCCESS) {
		(void)ambient_release(&saved, 0);
		pam_syslog(pamh, LOG_ERR,
			   "Cannot keep ambient capabilities %s for %s until pam_end(): %s", names,
			   user, pam_strerror(pamh, r));
		return PAM_SESSION_ERR;
	}
	TAKE_PTR(req);

	if (args->debug)
		pam_syslog(pamh, LOG_DEBUG,
			   "Ambient capabilities %s for %s will be raised at pam_end() after the "
			   "application's setuid (%s)",
			   names, user, why);
	return PAM_SUCCESS;
}

_public_ int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	_cleanup_(policy_freep) Policy *p = NULL;
	const char *user = NULL;
	PolicyGrant g;
	RlimitPlan plan;
	PamArgs args;
	int r, ret;

	args_parse(pamh, argc, argv, &args);

	r = pam_get_item(pamh, PAM_USER, (const void **)&user);
	if (r != PAM_SUCCESS || isempty(user)) {
		pam_syslog(pamh, LOG_ERR,
			   "The application set no user name (PAM_USER); granting nothing");
		return PAM_IGNORE;
	}

	/* The user first (NSS, with the groups): loading then keeps only the
	 * rules that concern them. A user NSS cannot resolve is reported after
	 * the policy's own errors, so that a broken file is logged at every
	 * login, whoever logs in. */
	r = policy_user_resolve(user, &u);
	if (r == -ENOMEM)
		return fail(pamh, r, "resolve user \"%s\"", user);

	ret = policy_open(pamh, &args, u, &p);
	if (ret != PAM_SUCCESS)
		return ret;

	if (u)
		r = policy_eval_for_user(p, u, &g);
	if (r == -ESRCH) {
		pam_syslog(pamh, LOG_ERR,
			   "User \"%s\" is unknown to the system (NSS); granting nothing", user);
		return PAM_IGNORE;
	}
	if (r < 0)
		return fail(pamh, r, "evaluate the realtime policy for %s", user);

	/* [Default] describes what the daemon may grant on request, with
	 * polkit's consent when Polkit=yes. Handing it out at login would skip
	 * that consent, so at login only a [User] or [Group] rule counts. */
	if (policy_grant_needs_polkit(&g, policy_daemon(p))) {
		if (args.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "No [User] or [Group] rule covers %s and Polkit=yes: [Default] "
				   "is granted by realtimed with polkit's consent, not at login; "
				   "granting nothing",
				   user);
		return PAM_IGNORE;
	}

	r = rlimit_plan_from_grant(&g, &plan);
	if (r < 0)
		return fail(pamh, r, "compute the rlimits of %s", user);
	if (plan.n_items == 0 && !(g.set[POLICY_KEY_CAPABILITIES] && g.capabilities != 0)) {
		if (args.debug)
			pam_syslog(pamh, LOG_DEBUG,
				   "The realtime policy sets no limit for %s; granting nothing",
				   user);
		return PAM_IGNORE;
	}

	ret = rlimits_apply(pamh, &args, user, &g, &plan);

	r = ambient_schedule(pamh, &args, user, &g);
	if (r != PAM_SUCCESS && ret == PAM_SUCCESS)
		ret = r;

	return ret;
}

_public_ int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	/* Limits stay with the processes that inherited them; ambient
	 * capabilities are handled at pam_end(). */
	return PAM_SUCCESS;
}
