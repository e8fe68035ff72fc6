// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rlimits policy sets: which key sets each, its names, and the value
 * a grant implies (see policy.h). pam_realtime and realtimed's GrantLimits
 * both walk this one table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>

#include "macro.h"
#include "policy-allow.h"
#include "policy.h"

/* RLIMIT_RTPRIO opens SCHED_FIFO (and SCHED_RR) up to its value: the same
 * decision as a grant of fifo at RealtimePriority=, or none. */
static uint64_t rlimit_rtprio(const PolicyGrant *g)
{
	return policy_grant_allows(g, POLICY_GRANT_FIFO, g->realtime_priority, NULL) >= 0
		       ? (uint64_t)g->realtime_priority
		       : 0;
}

/* The kernel's encoding of a nice level: RLIMIT_NICE = 20 - nice. */
static uint64_t rlimit_nice(const PolicyGrant *g)
{
	return (uint64_t)(20 - g->nice);
}

static uint64_t rlimit_from_value(uint64_t v)
{
	return v == POLICY_INFINITY ? (uint64_t)RLIM_INFINITY : v;
}

static uint64_t rlimit_memlock(const PolicyGrant *g)
{
	return rlimit_from_value(g->memlock);
}

static uint64_t rlimit_rttime(const PolicyGrant *g)
{
	return rlimit_from_value(g->rttime_usec);
}

/* The rlimits policy sets, the one mapping between rlimits, keys and names
 * for every part. RLIMIT_RTTIME comes first: it bounds realtime, so a
 * process that is given its limits in this order never holds a raised
 * RLIMIT_RTPRIO without its ceiling. */
static const struct {
	PolicyRlimit rlimit;
	uint64_t (*value)(const PolicyGrant *g);
} rlimits[POLICY_RLIMIT_MAX] = {
	{ { RLIMIT_RTTIME, "RLIMIT_RTTIME", "Max realtime timeout", POLICY_KEY_RTTIME, true },
	  rlimit_rttime },
	{ { RLIMIT_RTPRIO, "RLIMIT_RTPRIO", "Max realtime priority", POLICY_KEY_REALTIME_PRIORITY,
	    false },
	  rlimit_rtprio },
	{ { RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK", "Max locked memory", POLICY_KEY_MEMLOCK, false },
	  rlimit_memlock },
	{ { RLIMIT_NICE, "RLIMIT_NICE", "Max nice priority", POLICY_KEY_NICE, false },
	  rlimit_nice },
};

const PolicyRlimit *policy_rlimit(size_t i)
{
	return i < ELEMENTSOF(rlimits) ? &rlimits[i].rlimit : NULL;
}

int policy_grant_rlimit(const PolicyGrant *g, int resource, uint64_t *ret)
{
	for (size_t i = 0; i < ELEMENTSOF(rlimits); i++) {
		if (rlimits[i].rlimit.resource != resource)
			continue;
		if (!g->set[rlimits[i].rlimit.key])
			return -ENODATA;
		*ret = rlimits[i].value(g);
		return 0;
	}
	return -EINVAL;
}

void policy_rlimit_format(uint64_t v, char *buf, size_t size)
{
	if (v == (uint64_t)RLIM_INFINITY)
		snprintf(buf, size, "infinity");
	else
		snprintf(buf, size, "%" PRIu64, v);
}
