// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Each user's last refusals, in a ring per user, and the users in a table
 * of bounded size; see refusals.h. A user's ring grows (doubling) up to
 * REFUSALS_PER_USER entries, so a user refused once costs one entry. The
 * users are looked up by a scan: refusals are rare next to grants, and the
 * table is small.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "ratelimit.h"
#include "refusals.h"
#include "utf8.h"

/* The journal's pace for one user, or for every uid NSS does not know. */
typedef struct JournalPace {
	RateLimit rl;
	unsigned unlogged; /* refusals not logged since the last logged one */
} JournalPace;

static const JournalPace fresh_pace = {
	.rl = { .interval_usec = REFUSALS_JOURNAL_INTERVAL_USEC, .burst = REFUSALS_JOURNAL_BURST },
};

typedef struct RefusalUser {
	uid_t uid;
	Refusal *ring; /* n_allocated entries, n of them used */
	unsigned n, n_allocated;
	unsigned head;	   /* the oldest, when the ring is full */
	uint64_t last_seq; /* of the newest refusal: who is evicted first */
	JournalPace journal;
} RefusalUser;

struct RefusalLog {
	RefusalUser *users[REFUSALS_USERS_MAX];
	size_t n_users;
	uint64_t seq;
	JournalPace unknown; /* of the uids NSS does not know, together */
};

int refusal_log_new(RefusalLog **ret)
{
	RefusalLog *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->unknown = fresh_pace;
	*ret = l;
	return 0;
}

static RefusalUser *user_free(RefusalUser *u)
{
	if (u)
		free(u->ring);
	return mfree(u);
}

RefusalLog *refusal_log_free(RefusalLog *l)
{
	if (!l)
		return NULL;
	for (size_t i = 0; i < l->n_users; i++)
		user_free(l->users[i]);
	return mfree(l);
}

size_t refusal_log_n_users(const RefusalLog *l)
{
	return l->n_users;
}

void refusal_set_strings(Refusal *ret, const char *comm, const char *asked, const char *error,
			 const char *reason, const char *source)
{
	utf8_escape(comm ?: "", 0, ret->comm, sizeof(ret->comm));
	utf8_escape(asked ?: "", 0, ret->asked, sizeof(ret->asked));
	utf8_escape(error ?: "", 0, ret->error, sizeof(ret->error));
	utf8_escape(reason ?: "", 0, ret->reason, sizeof(ret->reason));
	utf8_escape(source ?: "", 0, ret->source, sizeof(ret->source));
}

/* The i-th refusal of u, oldest first. */
static Refusal *user_at(RefusalUser *u, unsigned i)
{
	return &u->ring[(u->head + i) % u->n_allocated];
}

/* uid's entry, made when missing (evicting the user longest unrefused
 * when the table is full); NULL without memory. */
static RefusalUser *user_get(RefusalLog *l, uid_t uid)
{
	RefusalUser *u;
	size_t slot = l->n_users;

	for (size_t i = 0; i < l->n_users; i++)
		if (l->users[i]->uid == uid)
			return l->users[i];
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	*u = (RefusalUser){ .uid = uid, .journal = fresh_pace };
	if (l->n_users == ELEMENTSOF(l->users)) {
		slot = 0;
		for (size_t i = 1; i < l->n_users; i++)
			if (l->users[i]->last_seq < l->users[slot]->last_seq)
				slot = i;
		user_free(l->users[slot]);
	} else
		l->n_users++;
	l->users[slot] = u;
	return u;
}

/* Whether r repeats last: folded into it rather than added. */
static bool repeats(const Refusal *last, const Refusal *r)
{
	if (last->rate_limited && r->rate_limited)
		return true;
	return last->pid == r->pid && last->tid == r->tid && streq(last->asked, r->asked) &&
	       streq(last->error, r->error) && streq(last->reason, r->reason) &&
	       streq(last->comm, r->comm) && streq(last->source, r->source);
}

/* A new slot at the end of u's ring: the oldest one when the ring is full. */
static Refusal *user_push(RefusalUser *u)
{
	Refusal *ring;
	unsigned want;

	if (u->n == REFUSALS_PER_USER) {
		Refusal *slot = user_at(u, 0);

		u->head = (u->head + 1) % u->n_allocated;
		return slot;
	}
	if (u->n == u->n_allocated) {
		/* not full, so head is 0: the entries are in order */
		want = u->n_allocated ? 2 * u->n_allocated : 2;
		if (want > REFUSALS_PER_USER)
			want = REFUSALS_PER_USER;
		ring = reallocarray(u->ring, want, sizeof(Refusal));
		if (!ring)
			return NULL;
		u->ring = ring;
		u->n_allocated = want;
	}
	return &u->ring[u->n++];
}

/* Whether a refusal is logged now, under pace p; see refusal_log_add(). */
static int journal_pace(JournalPace *p, uint64_t now_usec, unsigned *ret_unlogged)
{
	if (!ratelimit_below(&p->rl, now_usec)) {
		p->unlogged++;
		return 0;
	}
	if (ret_unlogged)
		*ret_unlogged = p->unlogged;
	p->unlogged = 0;
	return 1;
}

int refusal_log_add(RefusalLog *l, const Refusal *r, bool known_user, uint64_t now_usec,
		    unsigned *ret_unlogged)
{
	RefusalUser *u;
	Refusal *e = NULL;
	unsigned count = 1;

	if (!known_user)
		return journal_pace(&l->unknown, now_usec, ret_unlogged);
	u = user_get(l, r->uid);
	if (!u)
		return -ENOMEM;
	if (u->n > 0 && repeats(user_at(u, u->n - 1), r)) {
		e = user_at(u, u->n - 1);
		count = e->count + 1;
	} else
		e = user_push(u);
	if (!e)
		return -ENOMEM;
	*e = *r;
	e->count = count;
	e->seq = ++l->seq;
	u->last_seq = e->seq;
	return journal_pace(&u->journal, now_usec, ret_unlogged);
}

static int cmp_seq(const void *a, const void *b)
{
	const Refusal *x = *(const Refusal *const *)a, *y = *(const Refusal *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int refusal_log_list(RefusalLog *l, uid_t uid, uint64_t since_usec, const Refusal ***ret_list,
		     size_t *ret_n)
{
	const Refusal **list = NULL;
	size_t n = 0, max = 0;

	for (size_t i = 0; i < l->n_users; i++)
		if (uid == (uid_t)-1 || l->users[i]->uid == uid)
			max += l->users[i]->n;
	if (max > 0) {
		list = calloc(max, sizeof(*list));
		if (!list)
			return -ENOMEM;
	}
	for (size_t i = 0; i < l->n_users; i++) {
		RefusalUser *u = l->users[i];

		if (uid != (uid_t)-1 && u->uid != uid)
			continue;
		for (unsigned k = 0; k < u->n; k++)
			if (user_at(u, k)->time_usec >= since_usec)
				list[n++] = user_at(u, k);
	}
	/* every user's in the order they came */
	if (n > 1)
		qsort(list, n, sizeof(*list), cmp_seq);
	if (n == 0)
		list = mfree(list);
	*ret_list = list;
	*ret_n = n;
	return 0;
}
