// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The policy in force, as the daemon uses it: loading (keeping the last good
 * policy when a file is broken), evaluation per uid through the policy
 * library with a short cache (NSS lookups are not free, and a burst of
 * requests from one user is the common case), and the per-user rate limit.
 * The cache lives POLICY_CACHE_USEC at most, so a user added to or removed
 * from a group is seen within seconds; a reload empties it at once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "policy-cache.h"
#include "utf8.h"

static PolicyPaths daemon_paths(const Daemon *d)
{
	return (PolicyPaths){
		.vendor_file = d->args.vendor_conf,
		.admin_file = d->args.admin_conf,
		.vendor_dropin_dir = d->args.vendor_conf_dir,
		.admin_dropin_dir = d->args.admin_conf_dir,
	};
}

int daemon_policy_load(Daemon *d, bool initial, char **ret_error)
{
	PolicyPaths paths = daemon_paths(d);
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
		/* Keep the last good policy whole rather than a policy with a file missing. */
		policy_free(p);
		return -EBADMSG;
	}

	policy_free(d->policy);
	d->policy = p;
	memset(d->policy_cache, 0, sizeof(d->policy_cache));
	return 0;
}

int daemon_policy_eval(Daemon *d, uid_t uid, const PolicyGrant **ret_grant, const char **ret_user)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	PolicyCacheEntry *slot = NULL;
	PolicyGrant g;
	int r;

	for (size_t i = 0; i < POLICY_CACHE_SIZE; i++) {
		PolicyCacheEntry *e = &d->policy_cache[i];

		if (e->valid && e->uid == uid && e->expires_usec > now) {
			*ret_grant = &e->grant;
			*ret_user = e->user;
			return 0;
		}
		if (!slot && (!e->valid || e->expires_usec <= now))
			slot = e;
	}
	if (!slot)
		slot = &d->policy_cache[uid % POLICY_CACHE_SIZE];

	r = policy_user_resolve_uid(uid, &u);
	if (r < 0)
		return r;
	r = policy_eval_for_user(d->policy, u, &g);
	if (r < 0)
		return r;

	slot->valid = true;
	slot->uid = uid;
	slot->expires_usec = now + POLICY_CACHE_USEC;
	slot->grant = g;
	/* a long name is cut between characters, not inside one */
	utf8_snprintf(slot->user, sizeof(slot->user), "%s", u->name);
	*ret_grant = &slot->grant;
	*ret_user = slot->user;
	return 0;
}

bool daemon_user_ratelimit(Daemon *d, uid_t uid)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	UserRate *u = NULL;

	for (size_t i = 0; i < d->n_rates; i++)
		if (d->rates[i].uid == uid) {
			u = &d->rates[i];
			break;
		}
	if (!u) {
		/* Forget idle users first; the table stays bounded. */
		size_t j = 0;

		for (size_t i = 0; i < d->n_rates; i++)
			if (!ratelimit_idle(&d->rates[i].rl, now))
				d->rates[j++] = d->rates[i];
		d->n_rates = j;
		if (d->n_rates >= USER_LIMITS_MAX)
			return false;
		if (d->n_rates % 16 == 0) {
			UserRate *n = realloc(d->rates, (d->n_rates + 16) * sizeof(*n));

			if (!n)
				return false;
			d->rates = n;
		}
		u = &d->rates[d->n_rates++];
		*u = (UserRate){ .uid = uid };
	}
	u->rl.interval_usec = pd->burst_usec;
	u->rl.burst = pd->actions_per_burst;
	return ratelimit_below(&u->rl, now);
}
