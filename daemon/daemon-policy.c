// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "daemon-policy.h"
#include "resolver.h"
#include "utf8.h"

int daemon_policy_load(Daemon *d, bool initial, char **ret_error)
{
	PolicyPaths paths = {
		.vendor_file = d->args.vendor_conf,
		.admin_file = d->args.admin_conf,
		.vendor_dropin_dir = d->args.vendor_conf_dir,
		.admin_dropin_dir = d->args.admin_conf_dir,
	};
	Policy *p = NULL;
	size_t n;
	int r;

	r = policy_load(&paths, &p);
	if (r < 0)
		return log_error_errno(r, "Failed to load the policy: %m");

	n = policy_n_errors(p);
	for (size_t i = 0; i < n; i++) {
		const PolicyError *e = policy_error(p, i);

		log_id(LOG_ERR, LOG_ID_RELOAD, "%s:%u: %s (file ignored; fix it and reload)",
		       e->file, e->line, e->message);
		if (i == 0 && ret_error &&
		    asprintf(ret_error, "%s:%u: %s; the last good policy stays in force", e->file,
			     e->line, e->message) < 0)
			*ret_error = NULL;
	}
	if (n > 0 && !initial) {
		policy_free(p);
		return -EBADMSG;
	}

	policy_free(d->policy);
	d->policy = p;
	if (d->resolver)
		resolver_flush(d->resolver);
	return 0;
}

int daemon_policy_eval_user(Daemon *d, const PolicyUser *u, PolicyEval *ret)
{
	int r;

	r = policy_eval_for_user(d->policy, u, &ret->grant);
	if (r < 0)
		return r;
	if (u->name)
		utf8_snprintf(ret->user, sizeof(ret->user), "%s", u->name);
	else
		snprintf(ret->user, sizeof(ret->user), "#%u", (unsigned)u->uid);
	return 0;
}

int daemon_policy_eval(Daemon *d, uid_t uid, PolicyEval *ret)
{
	_cleanup_(policy_user_freep) PolicyUser *owned = NULL;
	const PolicyUser *u;
	int r;

	if (d->resolver) {
		r = resolver_get(d->resolver, uid, &u);
		if (r == -ENOENT)
			return -EINPROGRESS;
	} else {
		r = policy_user_resolve_uid(uid, &owned);
		u = owned;
	}
	if (r < 0)
		return r;
	return daemon_policy_eval_user(d, u, ret);
}

int daemon_policy_wait(Daemon *d, uid_t uid, resolver_done_t done, void *userdata,
		       void (*free_userdata)(void *userdata))
{
	if (!d->resolver)
		return -EOPNOTSUPP;
	return resolver_wait(d->resolver, uid, done, userdata, free_userdata);
}

const char *daemon_resolve_error(uid_t uid, int error, char *buf, size_t size)
{
	if (error == -ETIMEDOUT)
		snprintf(buf, size,
			 "could not resolve uid %u through NSS within %llu s (is the directory "
			 "down?)",
			 (unsigned)uid, (unsigned long long)(RESOLVE_TIMEOUT_USEC / USEC_PER_SEC));
	else if (error == -EBUSY)
		snprintf(buf, size,
			 "could not resolve uid %u: too many requests wait for user lookups (is "
			 "the directory down?)",
			 (unsigned)uid);
	else
		snprintf(buf, size, "could not resolve uid %u through NSS: %s", (unsigned)uid,
			 strerror(-error));
	return buf;
}
