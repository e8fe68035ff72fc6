/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each user's ring of their last refusals (realtimed(8), REFUSALS): a user
 * pushes out only their own; repeats are folded; uids NSS does not know keep
 * nothing and share one journal pace. No bus, no logging, no clock.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ratelimit.h"

#define REFUSALS_PER_USER 64
#define REFUSALS_JOURNAL_BURST 10
#define REFUSALS_JOURNAL_INTERVAL_USEC (60ULL * 1000000ULL)

/* a 16-byte comm escaped as "\xNN" fits */
#define REFUSAL_COMM_MAX 68
#define REFUSAL_ASKED_MAX 64
#define REFUSAL_ERROR_MAX 32
#define REFUSAL_REASON_MAX 512
#define REFUSAL_SOURCE_MAX 256

/* One refusal; every string valid UTF-8, cut between characters. */
typedef struct Refusal {
	uint64_t time_usec;		 /* CLOCK_REALTIME: when (the newest, if folded) */
	uint64_t seq;			 /* order of arrival, over all users */
	uid_t uid;			 /* the caller, whose list it is in */
	pid_t pid, tid;			 /* the target as the caller named it (0: not resolved) */
	unsigned count;			 /* how many refusals were folded into this one (>= 1) */
	bool rate_limited;		 /* the answer was RateLimited */
	char comm[REFUSAL_COMM_MAX];	 /* the target thread's comm, "" unknown */
	char asked[REFUSAL_ASKED_MAX];	 /* "FIFO 95", "nice -15", "the policy's rlimits" */
	char error[REFUSAL_ERROR_MAX];	 /* the error's last word: "PolicyDenied" */
	char reason[REFUSAL_REASON_MAX]; /* the error message the caller got */
	char source[REFUSAL_SOURCE_MAX]; /* "file:line" that decided, "" none */
} Refusal;

typedef struct RefusalPace {
	RateLimit rl;
	unsigned unlogged; /* refusals not logged since the last logged one */
} RefusalPace;

#define REFUSAL_PACE_INIT                                                        \
	((RefusalPace){ .rl = { .interval_usec = REFUSALS_JOURNAL_INTERVAL_USEC, \
				.burst = REFUSALS_JOURNAL_BURST } })

/* One user's refusals, oldest first from head; grown to REFUSALS_PER_USER. */
typedef struct RefusalRing {
	Refusal *ring;
	unsigned n, n_allocated;
	unsigned head;
	RefusalPace journal;
} RefusalRing;

void refusal_ring_done(RefusalRing *ring);

typedef struct Users Users;

/* Fills *ret's strings from any bytes, escaped and cut; NULL is "". */
void refusal_set_strings(Refusal *ret, const char *comm, const char *asked, const char *error,
			 const char *reason, const char *source);

/* Records r in its user's ring when known_user (NSS knows r->uid); sets count
 * and seq. now_usec (CLOCK_MONOTONIC) paces the journal: > 0 when the caller
 * should log it, with *ret_unlogged (may be NULL) those not logged since; 0
 * when not; -ENOMEM. */
int refusals_add(Users *t, const Refusal *r, bool known_user, uint64_t now_usec,
		 unsigned *ret_unlogged);

/* The refusals of uid ((uid_t)-1: all) since since_usec (CLOCK_REALTIME),
 * oldest first, pointers into t valid until it changes; *ret_list malloc()ed
 * (NULL when none). -ENOMEM. */
int refusals_list(Users *t, uid_t uid, uint64_t since_usec, const Refusal ***ret_list,
		  size_t *ret_n);
