/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One request for a grant (realtime, nice level, or rlimits), carried through
 * the checks of DESIGN.md in order: the caller owns the target process, the
 * tid is a thread of it, the target is pinned (pidfd + start times), policy
 * allows it, per-user limits and rate, polkit where no rule covers the user
 * (asynchronous), RLIMIT_RTTIME at most policy's RTTime; then the grant is
 * made, verified again through the pidfd and start time, and supervised.
 * Both bus front ends (native and rtkit) build a Request and start it; the
 * request replies and frees itself.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon.h"
#include "sched-util.h"

typedef enum RequestType {
	REQUEST_SCHED,	/* realtime or nice: kind says which */
	REQUEST_LIMITS, /* GrantLimits */
	_REQUEST_TYPE_MAX,
	_REQUEST_TYPE_INVALID = -EINVAL,
} RequestType;

typedef enum BusFlavour {
	FLAVOUR_NATIVE,
	FLAVOUR_RTKIT,
	_FLAVOUR_MAX,
	_FLAVOUR_INVALID = -EINVAL,
} BusFlavour;

/* Why a request was refused; mapped to an error name per flavour. */
typedef enum RequestError {
	ERR_PERMISSION_DENIED,
	ERR_POLICY_DENIED,
	ERR_NO_SUCH_PROCESS,
	ERR_NO_SUCH_GRANT, /* a reset of a thread realtimed did not grant */
	ERR_INVALID_ARGS,
	ERR_LIMITS_EXCEEDED,
	ERR_RATE_LIMITED,
	ERR_REFUSING,
	ERR_FAILED,
	ERR_NO_MEMORY,
	_ERR_MAX,
	_ERR_INVALID = -EINVAL,
} RequestError;

const char *request_error_name(RequestError e, BusFlavour f);

typedef struct Request {
	Daemon *d;
	DBusMessage *msg;
	RequestType type;
	BusFlavour flavour;
	GrantKind kind;	  /* REQUEST_SCHED; for rtkit realtime, resolved from policy */
	bool compat_rt;	  /* rtkit MakeThreadRealtime*: kind comes from CompatPolicy= */
	int value;	  /* priority or nice */
	uint64_t pid_arg; /* as sent: 0 = caller */
	uint64_t tid_arg; /* as sent: 0 = main thread */

	uid_t uid; /* caller, from the bus */
	pid_t caller_pid;
	pid_t pid, tid;
	uid_t owner; /* of the target process */
	int pidfd;
	uint64_t pid_start, tid_start;
} Request;

/* Takes a reference on m. Replies to m in every case (now or after polkit). */
void request_start(Daemon *d, DBusMessage *m, RequestType type, BusFlavour flavour, GrantKind kind,
		   bool compat_rt, int value, uint64_t pid_arg, uint64_t tid_arg);

/* The shared front half of Reset*: resolves pid 0 (the caller) and, when
 * tid_arg is given, tid 0 (the main thread), and checks that the caller owns
 * the target as a grant's checks do (the process's and the thread's own
 * real, effective and saved uid). *ret_tid is 0 without tid_arg. Replies
 * the error itself and returns < 0 on refusal. */
int request_resolve_owned(Daemon *d, DBusMessage *m, BusFlavour f, uint64_t pid_arg,
			  const uint64_t *tid_arg, pid_t *ret_pid, pid_t *ret_tid);
