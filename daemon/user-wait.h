/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Work parked until users' lookups end (resolver.h): a bus call, a grant
 * request or a reload's judging of the grants needs users the resolver
 * does not know yet; it waits, the loop goes on answering everyone else,
 * and it carries on from the loop when the lookups have ended. The one
 * mechanism for it: user_wait_new(), user_wait_add() for each user, then
 * user_wait_release().
 *
 * done runs once, from the loop, after the last lookup ended (never from
 * within user_wait_add() or user_wait_release()), with the first failed
 * lookup; each (optional) runs as each lookup ends and may add waits. The
 * work (userdata) is the wait's from a user_wait_release() that returned
 * true until done runs, which then owns it; free_userdata runs instead of
 * done when a wait never ends (the resolver is freed: the daemon stops).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "daemon.h"

typedef struct UserWait UserWait;

typedef struct UserWaitOps {
	/* uid's lookup ended: error 0, -ESRCH (no such user, an answer) or
	 * its failure (resolver_done_t) */
	void (*each)(uid_t uid, int error, void *userdata);
	/* every lookup ended: error is the first failure (never -ESRCH) and
	 * error_uid its user, or 0 */
	void (*done)(int error, uid_t error_uid, void *userdata);
	void (*free_userdata)(void *userdata); /* may be NULL */
} UserWaitOps;

/* A wait for userdata's work, held by the caller until user_wait_release();
 * NULL without memory. ops is static. */
UserWait *user_wait_new(Daemon *d, const UserWaitOps *ops, void *userdata);
/* Waits for uid's lookup too: 0, or -EBUSY, -ENOMEM, -EOPNOTSUPP (no
 * resolver: unit tests) and nothing waits. */
int user_wait_add(UserWait *w, uid_t uid);
/* Lookups waited for that have not ended. */
unsigned user_wait_pending(const UserWait *w);
/* Ends the caller's hold: true when lookups are waited for (the work is
 * the wait's now), false when none is (w is freed, the work stays the
 * caller's). */
bool user_wait_release(UserWait *w);
/* user_wait_new(), _add(uid) and _release() in one: 0 when parked, else
 * the error of user_wait_add() (or -ENOMEM) and the work stays the
 * caller's. */
int user_wait_one(Daemon *d, uid_t uid, const UserWaitOps *ops, void *userdata);
