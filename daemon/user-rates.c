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

bool user_rates_count(UserRates *t, uid_t uid, UserRateKind kind, uint64_t interval_usec,
		      unsigned burst, uint64_t now_usec)
{
	size_t max = kind == USER_RATE_MANAGE ? MANAGE_LIMITS_MAX : USER_LIMITS_MAX;
	UserRate *u = NULL;
	size_t n_kind = 0;

	for (size_t i = 0; i < t->n_rates; i++)
		if (t->rates[i].uid == uid && t->rates[i].kind == kind) {
			u = &t->rates[i];
			break;
		}
	if (!u) {
		/* Forget idle users first; the table stays bounded. */
		size_t j = 0;

		for (size_t i = 0; i < t->n_rates; i++)
			if (!ratelimit_idle(&t->rates[i].rl, now_usec)) {
				t->rates[j++] = t->rates[i];
				n_kind += t->rates[i].kind == kind;
			}
		t->n_rates = j;
		if (n_kind >= max)
			return false;
		if (t->n_rates % 16 == 0) {
			UserRate *n = realloc(t->rates, (t->n_rates + 16) * sizeof(*n));

			if (!n)
				return false;
			t->rates = n;
		}
		u = &t->rates[t->n_rates++];
		*u = (UserRate){ .uid = uid, .kind = kind };
	}
	u->rl.interval_usec = interval_usec;
	u->rl.burst = burst;
	return ratelimit_below(&u->rl, now_usec);
}
