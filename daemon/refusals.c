// SPDX-License-Identifier: GPL-2.0-or-later
/* Each user's last refusals; a ring grows by doubling to REFUSALS_PER_USER. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "refusals.h"
#include "users.h"
#include "utf8.h"

void refusal_ring_done(RefusalRing *ring)
{
	free(ring->ring);
	*ring = (RefusalRing){ .journal = REFUSAL_PACE_INIT };
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

/* The i-th refusal of ring, oldest first. */
static Refusal *ring_at(const RefusalRing *ring, unsigned i)
{
	return &ring->ring[(ring->head + i) % ring->n_allocated];
}

/* Whether r repeats last, to be folded into it. */
static bool repeats(const Refusal *last, const Refusal *r)
{
	if (last->rate_limited && r->rate_limited)
		return true;
	return last->pid == r->pid && last->tid == r->tid && streq(last->asked, r->asked) &&
	       streq(last->error, r->error) && streq(last->reason, r->reason) &&
	       streq(last->comm, r->comm) && streq(last->source, r->source);
}

/* A new slot at the end of ring: the oldest one when the ring is full. */
static Refusal *ring_push(RefusalRing *ring)
{
	Refusal *a;
	unsigned want;

	if (ring->n == REFUSALS_PER_USER) {
		Refusal *slot = ring_at(ring, 0);

		ring->head = (ring->head + 1) % ring->n_allocated;
		return slot;
	}
	if (ring->n == ring->n_allocated) {
		/* not full, so head is 0: the entries are in order */
		want = ring->n_allocated ? 2 * ring->n_allocated : 2;
		if (want > REFUSALS_PER_USER)
			want = REFUSALS_PER_USER;
		a = reallocarray(ring->ring, want, sizeof(Refusal));
		if (!a)
			return NULL;
		ring->ring = a;
		ring->n_allocated = want;
	}
	return &ring->ring[ring->n++];
}

static int journal_pace(RefusalPace *p, uint64_t now_usec, unsigned *ret_unlogged)
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

int refusals_add(Users *t, const Refusal *r, bool known_user, uint64_t now_usec,
		 unsigned *ret_unlogged)
{
	RefusalRing *ring;
	Refusal *e = NULL;
	unsigned count = 1;
	User *u;

	if (!known_user)
		return journal_pace(users_unknown_pace(t), now_usec, ret_unlogged);
	u = users_get(t, r->uid, now_usec);
	if (!u)
		return -ENOMEM;
	if (u->uid == USER_OVERFLOW) /* no entry of its own: nothing is kept */
		return journal_pace(users_unknown_pace(t), now_usec, ret_unlogged);
	ring = &u->refusals;
	if (ring->n > 0 && repeats(ring_at(ring, ring->n - 1), r)) {
		e = ring_at(ring, ring->n - 1);
		count = e->count + 1;
	} else
		e = ring_push(ring);
	if (!e)
		return -ENOMEM;
	*e = *r;
	e->count = count;
	e->seq = users_next_seq(t);
	return journal_pace(&ring->journal, now_usec, ret_unlogged);
}

static int cmp_seq(const void *a, const void *b)
{
	const Refusal *x = *(const Refusal *const *)a, *y = *(const Refusal *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int refusals_list(Users *t, uid_t uid, uint64_t since_usec, const Refusal ***ret_list,
		  size_t *ret_n)
{
	const Refusal **list = NULL;
	size_t n = 0, max = 0, it;
	User *u;

	for (it = 0; (u = users_next(t, &it));)
		if (uid == (uid_t)-1 || u->uid == uid)
			max += u->refusals.n;
	if (max > 0) {
		list = calloc(max, sizeof(*list));
		if (!list)
			return -ENOMEM;
	}
	for (it = 0; (u = users_next(t, &it));) {
		if (uid != (uid_t)-1 && u->uid != uid)
			continue;
		for (unsigned k = 0; k < u->refusals.n; k++)
			if (ring_at(&u->refusals, k)->time_usec >= since_usec)
				list[n++] = ring_at(&u->refusals, k);
	}
	if (n > 1)
		qsort(list, n, sizeof(*list), cmp_seq);
	if (n == 0)
		list = mfree(list);
	*ret_list = list;
	*ret_n = n;
	return 0;
}
