/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One request of a bus client: a grant (realtime, a nice level, or
 * rlimits) or a reset, carried through the checks of realtimed(8), CHECKS
 * BEFORE A GRANT, in order
 * (request-check.h): the caller owns the target process, the tid is a
 * thread of it, the target is pinned (pidfd + start times), policy allows
 * it, per-user limits and rate, polkit where no rule covers the user
 * (asynchronous), RLIMIT_RTTIME at most policy's RTTime; then the grant is
 * made (request-sched.h), verified again through the
 * pidfd and start time, and supervised.
 *
 * Both bus front ends (native and rtkit) call request_start(), with the
 * caller's credentials, which answers exactly once, now or after polkit or
 * the owner's NSS lookup (resolver.h: the request is parked, never the
 * loop), through the answer hook the bus layer installed, and frees it.
 * The checks and the grants never answer: each returns 0 to go on, a
 * positive RequestError (the client's answer: not permitted, no such
 * thread, ...) or a negative errno (realtimed itself failed), with the text
 * of the answer written into the request by request_error(). The bus layer
 * names the answer (bus_error_name(), bus-dispatch.h).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon.h"
#include "macro.h"
#include "sched-util.h"

typedef enum RequestType {
	REQUEST_SCHED,	       /* realtime or nice: kind says which */
	REQUEST_LIMITS,	       /* GrantLimits */
	REQUEST_RESET_THREAD,  /* ResetThread */
	REQUEST_RESET_PROCESS, /* ResetProcess: every granted thread of pid */
	_REQUEST_TYPE_MAX,
	_REQUEST_TYPE_INVALID = -EINVAL,
} RequestType;

/* The answers to a request other than success; each has an error name per
 * flavour. A negative errno, a failure of realtimed itself, is answered
 * as REQUEST_E_FAILED. */
typedef enum RequestError {
	_REQUEST_E_SUCCESS,
	REQUEST_E_PERMISSION_DENIED,
	REQUEST_E_POLICY_DENIED,
	REQUEST_E_NO_SUCH_PROCESS,
	REQUEST_E_NO_SUCH_GRANT, /* a reset of a thread realtimed did not grant */
	REQUEST_E_INVALID_ARGS,
	REQUEST_E_LIMITS_EXCEEDED,
	REQUEST_E_RATE_LIMITED,
	REQUEST_E_REFUSING, /* the canary's cool-down (CanaryRefuseSec=) */
	REQUEST_E_FAILED,
	REQUEST_E_NO_MEMORY,
	_REQUEST_E_MAX,
	_REQUEST_E_INVALID = -EINVAL,
} RequestError;

/* What the bus front end read from the call. */
typedef struct RequestArgs {
	RequestType type;
	BusFlavour flavour;
	PolicyGrantKind kind; /* REQUEST_SCHED; for rtkit realtime, resolved from policy */
	bool compat_rt;	      /* rtkit MakeThreadRealtime*: kind comes from CompatPolicy= */
	int value;	      /* priority or nice */
	uint64_t pid;	      /* as sent: 0 = the caller's process */
	uint64_t tid;	      /* as sent: 0 = the main thread */
	uid_t uid;	      /* the caller, from the bus */
	pid_t caller_pid;
} RequestArgs;

typedef struct Request {
	Daemon *d;
	DBusMessage *msg;
	DBusMessage *reply; /* the answer to a success, when it is not empty */
	RequestType type;
	BusFlavour flavour;
	PolicyGrantKind kind;
	bool compat_rt;
	int value;
	uint64_t pid_arg, tid_arg;

	uid_t uid; /* caller, from the bus */
	pid_t caller_pid;
	/* the caller's pid namespace, and how deep below realtimed's it is (0:
	 * the same), once the ids it named were mapped (request-pidns.h) */
	uint64_t caller_pidns;
	unsigned pidns_level;
	pid_t pid, tid;
	uid_t owner; /* of the target process */
	int pidfd;
	int tidfd; /* PIDFD_THREAD pidfd of tid, a non-main thread (6.9+), or -EBADF */
	uint64_t pid_start, tid_start;
	/* polkit or the resolver was waited for after request_pin(): the
	 * checks of the target are stale until request_recheck() */
	bool waited;
	/* request.c: where the request carries on after the resolver */
	int (*resume)(struct Request *r, bool *ret_pending);

	char why[512];	/* the text of the error answer */
	char cite[256]; /* the policy's "file:line" behind it (request_cite()), "" none */
} Request;

/* Takes a reference on m. Answers m in every case, now or after polkit or
 * the resolver, through d->hooks->answer (the bus layer's). */
void request_start(Daemon *d, DBusMessage *m, const RequestArgs *args);

/* Writes the text of r's error answer and returns code, for
 * "return request_error(r, REQUEST_E_..., ...)": code is a RequestError or
 * a negative errno. */
int request_error(Request *r, int code, const char *format, ...) _printf_(3, 4);

/* Names where the value behind r's answer was set ("file:line"), for the
 * user's list of refusals (refusals.h); nothing when s is NULL or no file
 * set it. */
void request_cite(Request *r, const PolicySource *s);
/* request_cite() of the [Daemon] key named key ("ThreadsPerUserMax"). */
void request_cite_daemon(Request *r, const char *key);
