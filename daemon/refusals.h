/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The refusals realtimed answered, kept for the users they were answered
 * to, so that "why was I refused?" has an answer without root or the
 * journal (ListRefusals, realtimectl status --refused, realtimectl check).
 *
 * Each user (users.h) has a ring of their last REFUSALS_PER_USER
 * refusals, grown as refusals come: a user's refusals push out only that
 * user's older ones. A refusal equal to the user's last one, and any
 * rate-limited refusal right after another, is folded into it (a count and
 * the newest time). Only users NSS knows are remembered (the caller tells):
 * a crowd of uids without a passwd entry keeps nothing. Each user's journal
 * lines are paced (REFUSALS_JOURNAL_BURST per REFUSALS_JOURNAL_INTERVAL_USEC);
 * the uids NSS does not know share one pace.
 *
 * No bus, no logging, no clock (the caller passes the times).
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

/* a 16-byte comm escaped byte by byte as "\xNN" fits */
#define REFUSAL_COMM_MAX 68
#define REFUSAL_ASKED_MAX 64
#define REFUSAL_ERROR_MAX 32
#define REFUSAL_REASON_MAX 512
#define REFUSAL_SOURCE_MAX 256

/* One refusal. Every string is valid UTF-8 (utf8_escape()) and cut to its
 * buffer between characters. */
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

/* The pace of a user's journal lines of refusals. */
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
	uint64_t last_seq; /* of the newest refusal */
	RefusalPace journal;
} RefusalRing;

/* Frees what ring holds, and empties it. */
void refusal_ring_done(RefusalRing *ring);

typedef struct Users Users;

/* Fills the strings of *ret from raw ones (any bytes): escaped to valid
 * UTF-8 and cut to fit. Any may be NULL (""). */
void refusal_set_strings(Refusal *ret, const char *comm, const char *asked, const char *error,
			 const char *reason, const char *source);

/* Records r (its uid, times and strings; count and seq are set here) in
 * r->uid's ring when known_user (NSS has a passwd entry for r->uid);
 * keeps nothing else. now_usec (CLOCK_MONOTONIC) paces the journal: > 0
 * when the caller should log this refusal, with *ret_unlogged (may be
 * NULL) the number of r->uid's refusals (of any uid NSS does not know, for
 * one of those) not logged since its last logged one; 0 when not; -ENOMEM. */
int refusals_add(Users *t, const Refusal *r, bool known_user, uint64_t now_usec,
		 unsigned *ret_unlogged);

/* The refusals of uid, or of every user for (uid_t)-1, since since_usec
 * (CLOCK_REALTIME; 0: all), oldest first, as pointers into t valid until
 * its next change; *ret_list is malloc()ed (NULL when none). -ENOMEM. */
int refusals_list(Users *t, uid_t uid, uint64_t since_usec, const Refusal ***ret_list,
		  size_t *ret_n);
