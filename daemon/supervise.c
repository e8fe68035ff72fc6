// SPDX-License-Identifier: GPL-2.0-or-later
/* What the canary watches of the grant table; see supervise.h. */
#include <errno.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "supervise.h"

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
