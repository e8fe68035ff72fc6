// SPDX-License-Identifier: GPL-2.0-or-later
/* A refused grant request, kept for its user and told to the journal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "log.h"
#include "proc.h"
#include "refusals.h"
#include "request-refused.h"
#include "resolver.h"
#include "string-table.h"
#include "user-wait.h"
#include "utf8.h"

/* What r asked for, as a person says it: "FIFO 95", "nice -15". */
static void format_asked(const Request *r, char *buf, size_t size)
{
	static const char *const kinds[_POLICY_GRANT_KIND_MAX] = {
		[POLICY_GRANT_FIFO] = "FIFO",
		[POLICY_GRANT_RR] = "RR",
		[POLICY_GRANT_NICE] = "nice",
	};
	const char *what = string_table_lookup(kinds, ELEMENTSOF(kinds), r->kind);

	if (r->type == REQUEST_LIMITS)
		snprintf(buf, size, "the policy's rlimits");
	else
		snprintf(buf, size, "%s %d", r->compat_rt ? "realtime" : what ?: "?", r->value);
}

/* The last word of each answer's error name (common/bus-names.h). */
#define ERROR_WORD(code, word, ...) [REQUEST_E_##code] = word,
/* clang-format off */
static const char *const error_words[_REQUEST_E_MAX] = {
	NATIVE_ERRORS(ERROR_WORD)
	[REQUEST_E_NO_MEMORY] = "NoMemory",
};
/* clang-format on */

/* "PolicyDenied"; "Failed" for a negative errno. */
static const char *error_word(int code)
{
	if (code <= _REQUEST_E_SUCCESS || code >= _REQUEST_E_MAX)
		code = REQUEST_E_FAILED;
	return error_words[code];
}

/* A refusal waiting for its user's lookup. */
typedef struct PendingRefusal {
	Daemon *d;
	pid_t caller_pid;
	bool known; /* NSS has a passwd entry for f.uid */
	Refusal f;
} PendingRefusal;

/* Keeps p's refusal if its user is known, and logs it, paced. */
static void refusal_keep(const PendingRefusal *p)
{
	Daemon *d = p->d;
	const Refusal *f = &p->f;
	char f_uid[32], f_pid[48], f_tid[48];
	char f_comm[16 + REFUSAL_COMM_MAX], f_asked[16 + REFUSAL_ASKED_MAX];
	char f_error[24 + REFUSAL_ERROR_MAX], f_source[32 + REFUSAL_SOURCE_MAX];
	unsigned unlogged = 0;
	int k;

	k = refusals_add(d->users, f, p->known, now_usec(CLOCK_MONOTONIC), &unlogged);
	if (k <= 0) {
		/* paced out (or no memory): --debug still shows each */
		log_id(LOG_DEBUG, LOG_ID_NOT_SERVED, "Refused %s to uid %u (pid %d): %s", f->asked,
		       (unsigned)f->uid, (int)p->caller_pid, f->reason);
		return;
	}
	snprintf(f_uid, sizeof(f_uid), "REALTIMED_UID=%u", (unsigned)f->uid);
	snprintf(f_pid, sizeof(f_pid), "REALTIMED_TARGET_PID=%d", (int)f->pid);
	snprintf(f_tid, sizeof(f_tid), "REALTIMED_TARGET_TID=%d", (int)f->tid);
	snprintf(f_comm, sizeof(f_comm), "REALTIMED_COMM=%s", f->comm);
	snprintf(f_asked, sizeof(f_asked), "REALTIMED_ASKED=%s", f->asked);
	snprintf(f_error, sizeof(f_error), "REALTIMED_ERROR=%s", f->error);
	snprintf(f_source, sizeof(f_source), "REALTIMED_POLICY_SOURCE=%s", f->source);
	log_fields(LOG_NOTICE, LOG_ID_REFUSED,
		   (const char *const[]){ f_uid, f_pid, f_tid, f_comm, f_asked, f_error, f_source,
					  NULL },
		   "Refused %s to uid %u for thread %d of process %d (%s): %s", f->asked,
		   (unsigned)f->uid, (int)f->tid, (int)f->pid, f->comm[0] ? f->comm : "?",
		   f->reason);
	if (unlogged == 0)
		return;
	if (p->known)
		log_fields(LOG_NOTICE, LOG_ID_REFUSED, (const char *const[]){ f_uid, NULL },
			   "%u earlier refusals of uid %u were not logged (more than %u per %llu "
			   "s); realtimectl status --refused lists the last %u",
			   unlogged, (unsigned)f->uid, REFUSALS_JOURNAL_BURST,
			   (unsigned long long)(REFUSALS_JOURNAL_INTERVAL_USEC / 1000000),
			   REFUSALS_PER_USER);
	else
		log_id(LOG_NOTICE, LOG_ID_REFUSED,
		       "%u earlier refusals of uids that are no known user were not logged (more "
		       "than %u per %llu s for all of them); none of them is kept",
		       unlogged, REFUSALS_JOURNAL_BURST,
		       (unsigned long long)(REFUSALS_JOURNAL_INTERVAL_USEC / 1000000));
}

static void on_user_each(uid_t uid, int error, void *userdata)
{
	PendingRefusal *p = userdata;

	/* a failed or timed-out lookup tells nothing: nothing is kept */
	p->known = error == 0;
}

static void on_user_done(int error, uid_t error_uid, void *userdata)
{
	PendingRefusal *p = userdata;

	refusal_keep(p);
	free(p);
}

static const UserWaitOps user_known_wait = { .each = on_user_each,
					     .done = on_user_done,
					     .free_userdata = free };

void request_record_refusal(Request *r, int code)
{
	Daemon *d = r->d;
	PendingRefusal p = { .d = d,
			     .caller_pid = r->caller_pid,
			     .f = { .time_usec = now_usec(CLOCK_REALTIME),
				    .uid = r->uid,
				    .pid = r->pid,
				    .tid = r->tid,
				    .rate_limited = code == REQUEST_E_RATE_LIMITED } };
	char comm[64] = "", asked[REFUSAL_ASKED_MAX];
	const PolicyUser *u;
	PendingRefusal *q;
	int k;

	/* caller_pid 0: no credentials from the bus, no user to keep it for */
	if ((r->type != REQUEST_SCHED && r->type != REQUEST_LIMITS) || r->caller_pid <= 0)
		return;
	/* the thread's comm only once it is known to be the caller's: others'
	 * stay hidden, as with hidepid= */
	if (r->pid > 0 && (r->uid == 0 || r->owner == r->uid))
		(void)proc_get_comm(d->args.proc, r->pid, r->tid > 0 ? r->tid : r->pid, comm,
				    sizeof(comm));
	format_asked(r, asked, sizeof(asked));
	refusal_set_strings(&p.f, comm, asked, error_word(code), r->why, r->cite);

	/* Only a user NSS knows gets a list; an unknown one waits for the
	 * lookup, off the loop. Without a resolver (unit tests) all are known. */
	k = d->resolver ? resolver_get(d->resolver, r->uid, &u) : 0;
	if (k == -ENOENT) {
		q = malloc(sizeof(*q));
		if (q) {
			*q = p;
			k = user_wait_one(d, r->uid, &user_known_wait, q);
			if (k >= 0)
				return;
			free(q);
		}
	}
	p.known = k == 0;
	refusal_keep(&p);
}
