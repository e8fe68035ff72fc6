/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one answer to "may this user hold this kind of grant at this value":
 * realtimed asks it when granting, after a reload, and when it adopts the
 * grants of an earlier instance; policy_grant_rlimit() follows the same
 * rules for the rlimits GrantLimits and pam_realtime hand out. If grant and
 * revoke asked two different functions, they could disagree.
 *
 * The answer comes with its reason as a value (which key decided, its limit,
 * the file:line that set it); policy_refusal_format() words it the way
 * realtimed answers its callers. No I/O, no logging, no global state.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "policy.h"

/* What a grant is: a realtime policy at a priority, or a nice level. */
typedef enum PolicyGrantKind {
	POLICY_GRANT_FIFO, /* SCHED_FIFO, priority 1..99 */
	POLICY_GRANT_RR,   /* SCHED_RR, priority 1..99 */
	POLICY_GRANT_NICE, /* SCHED_OTHER at a nice level -20..19 */
	_POLICY_GRANT_KIND_MAX,
	_POLICY_GRANT_KIND_INVALID = -EINVAL,
} PolicyGrantKind;

typedef enum PolicyRefusalReason {
	POLICY_REFUSAL_RANGE,	     /* no policy can allow the value (priority 0, nice 20...) */
	POLICY_REFUSAL_NO_REALTIME,  /* RealtimePriority= unset or 0 */
	POLICY_REFUSAL_SCHED_POLICY, /* Policies= unset or without this policy */
	POLICY_REFUSAL_PRIORITY,     /* the priority is above RealtimePriority= */
	POLICY_REFUSAL_NO_NICE,	     /* Nice= unset */
	POLICY_REFUSAL_NICE,	     /* the nice level is below Nice= */
	_POLICY_REFUSAL_MAX,
	_POLICY_REFUSAL_INVALID = -EINVAL,
} PolicyRefusalReason;

/* Why a grant was refused. source points into the PolicyGrant asked. */
typedef struct PolicyRefusal {
	PolicyRefusalReason reason;
	PolicyGrantKind kind;
	int value;		    /* as asked */
	PolicyKey key;		    /* the key that decided; _POLICY_KEY_INVALID for RANGE */
	int limit;		    /* that key's value, for PRIORITY and NICE */
	const PolicySource *source; /* where key was set; NULL for RANGE, ->file NULL if unset */
} PolicyRefusal;

const char *policy_grant_kind_to_string(PolicyGrantKind k);
PolicyGrantKind policy_grant_kind_from_string(const char *s);

/* 0 if g allows kind at value. -EINVAL if the value is out of range for
 * the kind (or the kind is invalid), -EPERM if policy refuses; in both
 * cases *ret_refusal (when non-NULL) says why. ret_refusal is untouched on
 * success. */
int policy_grant_allows(const PolicyGrant *g, PolicyGrantKind kind, int value,
			PolicyRefusal *ret_refusal);

/* The refusal as realtimed answers it, for user, e.g. "priority 96 exceeds
 * the limit 95 for user bob (/usr/share/realtime/realtime.conf:50)".
 * 0, or -ENOBUFS when truncated (buf holds the beginning then). */
int policy_refusal_format(const PolicyRefusal *r, const char *user, char *buf, size_t size);

/* Where key k of a grant was set, for a message: "file:line", or "no policy
 * file sets Key=" when s is NULL or no file set it. */
void policy_source_format(const PolicySource *s, PolicyKey k, char *buf, size_t size);

/* Whether handing out g needs polkit's consent: only [Default] covers the
 * user and [Daemon] Polkit=yes. realtimed then asks polkit; pam_realtime,
 * having no one to ask at login, grants nothing. */
bool policy_grant_needs_polkit(const PolicyGrant *g, const PolicyDaemon *pd);
