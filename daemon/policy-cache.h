/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy in force, as the daemon uses it: loading it (keeping the last
 * good policy when a file is broken), evaluating it per uid with a short
 * cache, and the per-user rate limit of requests ([Daemon] BurstSec=,
 * ActionsPerBurst=).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "daemon.h"

/* Loads the policy. On a reload (initial false) a policy with a broken
 * file is not taken: the last good one stays, *ret_error says why. At start
 * the good files are used and the broken ones logged. */
int daemon_policy_load(Daemon *d, bool initial, char **ret_error);
/* The grant policy gives uid, and the user's name for messages; both stay
 * valid until the next call. -ESRCH for a uid that is no known user. */
int daemon_policy_eval(Daemon *d, uid_t uid, const PolicyGrant **ret_grant, const char **ret_user);
/* Counts one request of uid; false if over [Daemon] ActionsPerBurst. */
bool daemon_user_ratelimit(Daemon *d, uid_t uid);
