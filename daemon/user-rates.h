/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each user's rate of events, for [Daemon] BurstSec= and ActionsPerBurst=:
 * grant requests, and apart from them manage calls and the searches
 * through a caller's pid namespace, each kind in a table of bounded size.
 * A full table never refuses a newcomer: users idle for a window are
 * forgotten first, then the idlest (whose window began first) gives way,
 * so a crowd of uids neither shuts out a user who never asked nor fills
 * another kind's table.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How many users a kind counts at a time. */
#define USER_LIMITS_MAX 4096
#define MANAGE_LIMITS_MAX 1024
#define SEARCH_LIMITS_MAX 1024

typedef enum UserRateKind {
	USER_RATE_GRANT,  /* grant requests, in USER_LIMITS_MAX users */
	USER_RATE_MANAGE, /* manage calls (bus-admin.c), in MANAGE_LIMITS_MAX */
	USER_RATE_SEARCH, /* searches before the policy (request-pidns.c), in SEARCH_LIMITS_MAX */
} UserRateKind;

typedef struct UserRates UserRates;

/* An empty table; -ENOMEM. */
int user_rates_new(UserRates **ret);
UserRates *user_rates_free(UserRates *t);

/* Counts one event of uid's kind at now_usec (CLOCK_MONOTONIC); false if
 * it is over burst in interval_usec (ratelimit.h), or there is no memory
 * for a newcomer. */
bool user_rates_count(UserRates *t, uid_t uid, UserRateKind kind, uint64_t interval_usec,
		      unsigned burst, uint64_t now_usec);
