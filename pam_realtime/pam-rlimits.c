// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rlimit half of pam_realtime: turns a PolicyGrant into a plan and
 * applies it with setrlimit(). See pam-rlimits.h. No logging here; the
 * session code reports each outcome with the file:line behind it.
 */
#include <errno.h>
#include <sys/resource.h>

#include "pam-rlimits.h"

int rlimit_plan_from_grant(const PolicyGrant *g, RlimitPlan *ret)
{
	RlimitPlan plan = {};

	for (size_t i = 0; i < POLICY_RLIMIT_MAX; i++) {
		const PolicyRlimit *l = policy_rlimit(i);
		PolicyKey key;
		uint64_t v;
		int r;

		r = policy_grant_rlimit(g, l->resource, &v);
		if (r == -ENODATA)
			continue;
		if (r < 0)
			return r;

		/* A RLIMIT_RTPRIO of 0 where RealtimePriority= is higher was
		 * decided by Policies= (no fifo): say that one in the log. */
		if (l->resource == RLIMIT_RTPRIO && v == 0 && g->realtime_priority > 0)
			key = POLICY_KEY_POLICIES;
		else
			key = l->key;
		plan.items[plan.n_items++] = (RlimitItem){
			.resource = l->resource,
			.name = l->name,
			.key = key,
			/* rlim_t is 64 bits wide on every ABI meson builds us for
			 * (_FILE_OFFSET_BITS=64); clamp rather than wrap anyway. */
			.value = v >= (uint64_t)RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)v,
			.source = &g->source[key],
		};
	}

	*ret = plan;
	return (int)plan.n_items;
}

int rlimit_item_apply(const RlimitItem *it, struct rlimit *ret_old, struct rlimit *ret_new)
{
	struct rlimit old, want = { .rlim_cur = it->value, .rlim_max = it->value };

	if (getrlimit(it->resource, &old) < 0)
		return -errno;

	if (setrlimit(it->resource, &want) >= 0) {
		*ret_old = old;
		*ret_new = want;
		return RLIMIT_APPLIED_EXACT;
	}
	if (errno != EPERM)
		return -errno;

	/* Only raising the hard limit needs CAP_SYS_RESOURCE. Give the
	 * session as much as the current hard limit allows, and leave the
	 * hard limit alone: lowering it could never be undone. */
	want = (struct rlimit){ .rlim_cur = old.rlim_max, .rlim_max = old.rlim_max };
	if (setrlimit(it->resource, &want) < 0)
		return -errno;

	*ret_old = old;
	*ret_new = want;
	return RLIMIT_APPLIED_SOFT_ONLY;
}
