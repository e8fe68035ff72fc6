// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Work parked until users' lookups end; see user-wait.h. A wait counts the
 * lookups it waits for and the holds on it (the caller's until release,
 * and one while each runs, so that each may add waits); when both are
 * gone, done runs, or free_userdata when a lookup never ended.
 */
#include <errno.h>
#include <stdlib.h>

#include "daemon-policy.h"
#include "user-wait.h"

struct UserWait {
	Daemon *d;
	const UserWaitOps *ops;
	void *userdata;
	unsigned waits; /* lookups waited for */
	unsigned holds;
	bool gone; /* a lookup never ended */
	int error; /* the first failed lookup's, and its uid */
	uid_t error_uid;
};

UserWait *user_wait_new(Daemon *d, const UserWaitOps *ops, void *userdata)
{
	UserWait *w = calloc(1, sizeof(*w));

	if (w)
		*w = (UserWait){ .d = d, .ops = ops, .userdata = userdata, .holds = 1 };
	return w;
}

static void user_wait_settle(UserWait *w)
{
	if (w->waits > 0 || w->holds > 0)
		return;
	if (!w->gone)
		w->ops->done(w->error, w->error_uid, w->userdata);
	else if (w->ops->free_userdata)
		w->ops->free_userdata(w->userdata);
	free(w);
}

static void on_user_resolved(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	UserWait *w = userdata;

	w->waits--;
	if (error < 0 && error != -ESRCH && w->error == 0) {
		w->error = error;
		w->error_uid = uid;
	}
	if (w->ops->each) {
		w->holds++;
		w->ops->each(uid, error, w->userdata);
		w->holds--;
	}
	user_wait_settle(w);
}

static void on_user_wait_gone(void *userdata)
{
	UserWait *w = userdata;

	w->waits--;
	w->gone = true;
	user_wait_settle(w);
}

int user_wait_add(UserWait *w, uid_t uid)
{
	int r = daemon_policy_wait(w->d, uid, on_user_resolved, w, on_user_wait_gone);

	if (r >= 0)
		w->waits++;
	return r;
}

unsigned user_wait_pending(const UserWait *w)
{
	return w->waits;
}

bool user_wait_release(UserWait *w)
{
	if (w->waits == 0 && w->holds == 1) {
		free(w);
		return false;
	}
	w->holds--;
	return true;
}

int user_wait_one(Daemon *d, uid_t uid, const UserWaitOps *ops, void *userdata)
{
	UserWait *w = user_wait_new(d, ops, userdata);
	int r;

	if (!w)
		return -ENOMEM;
	r = user_wait_add(w, uid);
	(void)user_wait_release(w);
	return r;
}
