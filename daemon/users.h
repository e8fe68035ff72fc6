/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every user realtimed keeps state for, one User each, in one table: the
 * rate of its grant requests and administrator's calls ([Daemon]
 * ActionsPerBurst= in BurstSec=), the canary's cool-down, the polkit checks
 * it waits for, its calls waiting in the bus queue and its turn there, its
 * last refusals (refusals.h) and their journal pace. Per-user state lives
 * here and nowhere else.
 *
 * One bound and one eviction rule, which no user can turn against
 * another: at most USERS_MAX users; when a newcomer finds the table full,
 * it takes the entry of a user that holds nothing in flight (no call
 * waiting, no polkit check, no cool-down running): one without refusals
 * kept before one with them, the one active longest ago first. That
 * user's rate goes with it (a crowd can only forget a user's count early,
 * never refuse anyone), and its refusals when every such user has some. When every entry holds
 * something, the newcomer shares the overflow entry (uid USER_OVERFLOW)
 * with whoever else came then: one turn, one rate, no refusals kept.
 * Entries never move: a User pointer stays valid until users_free().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ratelimit.h"
#include "refusals.h"

#define USERS_MAX 1024
/* the entry of the newcomers that found the table full */
#define USER_OVERFLOW ((uid_t)-1)

typedef struct User {
	uid_t uid;
	uint64_t active_usec;	      /* CLOCK_MONOTONIC of its last event: the eviction order */
	RateLimit actions;	      /* grant requests and administrator's calls */
	uint64_t cooldown_until_usec; /* the canary's cool-down, CLOCK_MONOTONIC; 0: none */
	/* polkit checks it waits for: for grants, for administrator's calls,
	 * and whether one of those asks the user interactively (polkit.c) */
	unsigned polkit_grant, polkit_manage;
	bool polkit_interactive;
	/* the bus queue's (bus-queue.c): its connections with calls
	 * waiting, its turn (when last served) and its pace (when its next
	 * paced call is due, CLOCK_MONOTONIC nsec) */
	unsigned callers;
	uint64_t served;
	uint64_t due_nsec;
	RefusalRing refusals;
} User;

typedef struct Users Users;

/* An empty table; -ENOMEM. */
int users_new(Users **ret);
Users *users_free(Users *t);

/* uid's entry, made (or taken from an idle user) when there is none, at
 * now (CLOCK_MONOTONIC usec), which counts as its last activity; the
 * overflow entry when the table is full of users that hold something.
 * NULL only without memory. */
User *users_get(Users *t, uid_t uid, uint64_t now);
/* uid's entry if it has one, else NULL; makes nothing. */
User *users_find(Users *t, uid_t uid);
/* Whether u holds something in flight, which forgetting it would lose. */
bool user_holds(const User *u, uint64_t now);
/* The overflow entry (USER_OVERFLOW): the newcomers that found the table
 * full, and the bus queue's callers whose uid cannot be learned. */
User *users_overflow(Users *t);
/* The users one after another: *iter 0 first; NULL at the end. */
User *users_next(Users *t, size_t *iter);
size_t users_count(const Users *t);

/* Counts one grant request or administrator's call of u at now: false
 * when u made ActionsPerBurst= (burst) of them in the current window of
 * BurstSec= (interval_usec). */
bool user_count_action(User *u, unsigned burst, uint64_t interval_usec, uint64_t now);

/* The canary's cool-down: uid refused until until_usec, or later if it was
 * refused longer already. False when uid got no entry of its own (it
 * shares the overflow's, which is refused then). */
bool users_cool_down(Users *t, uid_t uid, uint64_t until_usec, uint64_t now);
/* When u's cool-down ends, or 0 when u (may be NULL) is not refused at
 * now. */
uint64_t user_cooldown_until(const User *u, uint64_t now);

/* The next number in the order refusals came in, over all users. */
uint64_t users_next_seq(Users *t);
/* The journal pace shared by every uid NSS does not know. */
RefusalPace *users_unknown_pace(Users *t);
