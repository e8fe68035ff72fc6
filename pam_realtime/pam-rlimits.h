/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * From a policy grant to process rlimits: which of RLIMIT_RTPRIO,
 * RLIMIT_MEMLOCK, RLIMIT_RTTIME and RLIMIT_NICE the grant sets, to what
 * (soft and hard alike, as pam_limits does), and setting them on the calling
 * process. The values come from common/'s policy_grant_rlimit(); a limit the
 * policy does not set is not in the plan and stays as it is.
 */
#pragma once

#include <stddef.h>
#include <sys/resource.h>

#include "policy.h"

#define RLIMIT_PLAN_MAX POLICY_RLIMIT_MAX

typedef struct RlimitItem {
	int resource;		    /* RLIMIT_* */
	const char *name;	    /* "RLIMIT_RTPRIO", ... */
	PolicyKey key;		    /* the policy key that decided it */
	rlim_t value;		    /* for soft and hard; RLIM_INFINITY for infinity */
	const PolicySource *source; /* points into the grant */
} RlimitItem;

typedef struct RlimitPlan {
	RlimitItem items[RLIMIT_PLAN_MAX];
	size_t n_items;
} RlimitPlan;

/* How rlimit_item_apply() went. */
typedef enum RlimitApplied {
	RLIMIT_APPLIED_EXACT,	  /* soft and hard are now the planned value */
	RLIMIT_APPLIED_SOFT_ONLY, /* the hard limit could not be raised (EPERM: no
				   * CAP_SYS_RESOURCE); the soft limit was raised to
				   * the current hard limit instead */
	_RLIMIT_APPLIED_MAX,
	_RLIMIT_APPLIED_INVALID = -EINVAL,
} RlimitApplied;

/* Fills ret with one item per resource whose key the grant sets, in the
 * policy library's order (policy_rlimit(): RTTIME, RTPRIO, MEMLOCK, NICE).
 * Returns the number of items, or -errno if the policy library rejects the
 * grant (ret untouched then). */
int rlimit_plan_from_grant(const PolicyGrant *g, RlimitPlan *ret);

/* Sets soft and hard of it->resource on the calling process to it->value.
 * Returns an RlimitApplied, and the limits before and after in ret_old and
 * ret_new; -errno when nothing could be set (outputs untouched then). */
int rlimit_item_apply(const RlimitItem *it, struct rlimit *ret_old, struct rlimit *ret_new);
