/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each user's rate of events, for [Daemon] BurstSec= and ActionsPerBurst=:
 * grant requests, and apart from them manage calls, each kind in a table
 * of bounded size. A user idle for a window is forgotten first.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* How many users a kind counts at a time. */
#define USER_LIMITS_MAX 4096
/* manage calls, apart: a crowd of uids that makes them cannot crowd out
 * the users who ask for grants */
#define MANAGE_LIMITS_MAX 1024

typedef enum UserRateKind {
	USER_RATE_GRANT,  /* grant requests, in USER_LIMITS_MAX users */
	USER_RATE_MANAGE, /* manage calls (bus-manage.c), in MANAGE_LIMITS_MAX */
} UserRateKind;

typedef struct UserRates UserRates;

/* An empty table; -ENOMEM. */
int user_rates_new(UserRates **ret);
UserRates *user_rates_free(UserRates *t);

/* Counts one event of uid's kind at now_usec (CLOCK_MONOTONIC); false if
 * it is over burst in interval_usec (ratelimit.h), or when the kind's
 * users are all active or there is no memory for one more. */
bool user_rates_count(UserRates *t, uid_t uid, UserRateKind kind, uint64_t interval_usec,
		      unsigned burst, uint64_t now_usec);
