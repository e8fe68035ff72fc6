// SPDX-License-Identifier: GPL-2.0-or-later
/* Each user's rate of events; see user-rates.h. A list, not a hash: users
 * are few, and idle ones go at the next newcomer. */
#include <errno.h>
#include <stdlib.h>

#include "ratelimit.h"
#include "user-rates.h"

typedef struct UserRate {
	uid_t uid;
	UserRateKind kind;
	RateLimit rl;
} UserRate;

struct UserRates {
	UserRate *rates;
	size_t n_rates;
};

int user_rates_new(UserRates **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

UserRates *user_rates_free(UserRates *t)
{
	if (t)
		free(t->rates);
	free(t);
	return NULL;
}

static size_t kind_max(UserRateKind kind)
{
	switch (kind) {
	case USER_RATE_GRANT:
		return USER_LIMITS_MAX;
	case USER_RATE_MANAGE:
		return MANAGE_LIMITS_MAX;
	case USER_RATE_SEARCH:
		return SEARCH_LIMITS_MAX;
	}
	return 0;
}

/* A slot for a newcomer of kind: idle users are forgotten first; when the
 * kind's users are all active, the idlest of them (whose window began
 * first) gives way. NULL without memory. */
static UserRate *user_rates_slot(UserRates *t, UserRateKind kind, uint64_t now_usec)
{
	UserRate *idlest = NULL;
	size_t j = 0, n_kind = 0;

	for (size_t i = 0; i < t->n_rates; i++) {
		UserRate *u = &t->rates[i];

		if (ratelimit_idle(&u->rl, now_usec))
			continue;
		t->rates[j] = *u;
		if (u->kind == kind) {
			n_kind++;
			if (!idlest || t->rates[j].rl.begin_usec < idlest->rl.begin_usec)
				idlest = &t->rates[j];
		}
		j++;
	}
	t->n_rates = j;
	if (n_kind >= kind_max(kind))
		return idlest;
	if (t->n_rates % 16 == 0) {
		UserRate *n = realloc(t->rates, (t->n_rates + 16) * sizeof(*n));

		if (!n)
			return NULL;
		t->rates = n;
	}
	return &t->rates[t->n_rates++];
}

bool user_rates_count(UserRates *t, uid_t uid, UserRateKind kind, uint64_t interval_usec,
		      unsigned burst, uint64_t now_usec)
{
	UserRate *u = NULL;

	for (size_t i = 0; i < t->n_rates; i++)
		if (t->rates[i].uid == uid && t->rates[i].kind == kind) {
			u = &t->rates[i];
			break;
		}
	if (!u) {
		u = user_rates_slot(t, kind, now_usec);
		if (!u)
			return false;
		*u = (UserRate){ .uid = uid, .kind = kind };
	}
	u->rl.interval_usec = interval_usec;
	u->rl.burst = burst;
	return ratelimit_below(&u->rl, now_usec);
}
