// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The users' table; see users.h. A list, not a hash: a lookup scans at
 * most USERS_MAX entries, a microsecond, and most machines have a few.
 */
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "users.h"

struct Users {
	User *users[USERS_MAX];
	size_t n;
	User overflow;
	uint64_t seq;	     /* of the refusals, over all users */
	RefusalPace unknown; /* the journal's pace of the uids NSS does not know */
};

static void user_init(User *u, uid_t uid, uint64_t now)
{
	refusal_ring_done(&u->refusals);
	*u = (User){ .uid = uid, .active_usec = now, .refusals = u->refusals };
}

int users_new(Users **ret)
{
	Users *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->overflow.refusals.journal = REFUSAL_PACE_INIT;
	user_init(&t->overflow, USER_OVERFLOW, 0);
	t->unknown = REFUSAL_PACE_INIT;
	*ret = t;
	return 0;
}

Users *users_free(Users *t)
{
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		refusal_ring_done(&t->users[i]->refusals);
		free(t->users[i]);
	}
	refusal_ring_done(&t->overflow.refusals);
	return mfree(t);
}

bool user_holds(const User *u, uint64_t now)
{
	return u->callers > 0 || u->polkit_grant > 0 || u->polkit_manage > 0 ||
	       u->polkit_interactive || u->cooldown_until_usec > now;
}

User *users_find(Users *t, uid_t uid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->users[i]->uid == uid)
			return t->users[i];
	return NULL;
}

User *users_get(Users *t, uid_t uid, uint64_t now)
{
	User *u = users_find(t, uid), *idle = NULL;

	if (u) {
		u->active_usec = now;
		return u;
	}
	if (t->n < USERS_MAX) {
		u = calloc(1, sizeof(*u));
		if (!u)
			return NULL;
		user_init(u, uid, now);
		t->users[t->n++] = u;
		return u;
	}
	/* full: of the users that hold nothing in flight, one without
	 * refusals kept before one with them, the one active longest ago
	 * gives way */
	for (size_t i = 0; i < t->n; i++) {
		User *x = t->users[i];

		if (user_holds(x, now))
			continue;
		if (!idle || (x->refusals.n == 0) > (idle->refusals.n == 0) ||
		    ((x->refusals.n == 0) == (idle->refusals.n == 0) &&
		     x->active_usec < idle->active_usec))
			idle = x;
	}
	if (!idle)
		return &t->overflow;
	user_init(idle, uid, now);
	return idle;
}

User *users_overflow(Users *t)
{
	return &t->overflow;
}

User *users_next(Users *t, size_t *iter)
{
	return *iter < t->n ? t->users[(*iter)++] : NULL;
}

size_t users_count(const Users *t)
{
	return t->n;
}

bool user_count_action(User *u, unsigned burst, uint64_t interval_usec, uint64_t now)
{
	u->actions.interval_usec = interval_usec;
	u->actions.burst = burst;
	return ratelimit_below(&u->actions, now);
}

bool users_cool_down(Users *t, uid_t uid, uint64_t until_usec, uint64_t now)
{
	User *u = users_get(t, uid, now);

	if (!u)
		u = &t->overflow; /* no memory: a refusal must not be lost */
	if (until_usec > u->cooldown_until_usec)
		u->cooldown_until_usec = until_usec;
	return u->uid == uid;
}

uint64_t user_cooldown_until(const User *u, uint64_t now)
{
	return u && u->cooldown_until_usec > now ? u->cooldown_until_usec : 0;
}

uint64_t users_next_seq(Users *t)
{
	return ++t->seq;
}

RefusalPace *users_unknown_pace(Users *t)
{
	return &t->unknown;
}
