/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The policy in force: loading it, and evaluating it per uid through the resolver. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "daemon.h"
#include "resolver.h"

/* On a reload (!initial) a policy with a broken file is not taken and
 * *ret_error says why; at start the broken files are logged and skipped. */
int daemon_policy_load(Daemon *d, bool initial, char **ret_error);
/* One evaluation, in the caller's storage. */
typedef struct PolicyEval {
	PolicyGrant grant;
	char user[64]; /* the user's name for messages, or "#UID" */
} PolicyEval;

/* Never blocks: -EINPROGRESS when the resolver does not know uid yet (wait,
 * then call again), -ESRCH for no known user. */
int daemon_policy_eval(Daemon *d, uid_t uid, PolicyEval *ret);
/* A PolicyUser with only .uid set: one NSS could not resolve. */
int daemon_policy_eval_user(Daemon *d, const PolicyUser *u, PolicyEval *ret);
/* resolver_wait(); -EOPNOTSUPP without a resolver. */
int daemon_policy_wait(Daemon *d, uid_t uid, resolver_done_t done, void *userdata,
		       void (*free_userdata)(void *userdata));
/* The text of a failed lookup (a resolver_done_t error) into buf; returns buf. */
const char *daemon_resolve_error(uid_t uid, int error, char *buf, size_t size);
