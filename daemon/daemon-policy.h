/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy in force, as the daemon uses it: loading it (keeping the last
 * good policy when a file is broken), and evaluating it per uid for the
 * user and groups the resolver knows (resolver.h).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "daemon.h"
#include "resolver.h"

/* Loads the policy. On a reload (initial false) a policy with a broken
 * file is not taken: the last good one stays, *ret_error says why. At start
 * the good files are used and the broken ones logged. */
int daemon_policy_load(Daemon *d, bool initial, char **ret_error);
/* One evaluation, in the caller's storage: each caller has its own, so
 * one evaluation never overwrites another's answer. */
typedef struct PolicyEval {
	PolicyGrant grant;
	char user[64]; /* the user's name for messages, or "#UID" */
} PolicyEval;

/* The grant policy gives uid, and the user's name, into *ret. Never
 * blocks: -EINPROGRESS when the resolver does not know uid yet
 * (daemon_policy_wait(), then call again), -ESRCH for a uid that is no
 * known user. */
int daemon_policy_eval(Daemon *d, uid_t uid, PolicyEval *ret);
/* The same for a user at hand: a PolicyUser with only .uid set is the
 * user NSS could not resolve ([User #UID] and [Default] only). */
int daemon_policy_eval_user(Daemon *d, const PolicyUser *u, PolicyEval *ret);
/* resolver_wait() for uid: done runs from the loop when it is known, or
 * the lookup failed or timed out. -EOPNOTSUPP without a resolver. */
int daemon_policy_wait(Daemon *d, uid_t uid, resolver_done_t done, void *userdata,
		       void (*free_userdata)(void *userdata));
/* The text of a failed lookup (a resolver_done_t error) into buf. */
const char *daemon_resolve_error(uid_t uid, int error, char *buf, size_t size);
