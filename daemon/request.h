/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One request of a bus client, a grant or a reset, taken through the checks
 * of realtimed(8), CHECKS BEFORE A GRANT. The checks and grants never answer:
 * each returns 0 to go on, a RequestError (the client's answer) or a negative
 * errno (realtimed failed), its text set by request_error(); request.c
 * answers once, through the bus layer's hook, and frees the request.
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

/* The answers other than success; a negative errno is answered as FAILED. */
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
	/* the caller's pid namespace, and its depth below realtimed's (0: the
	 * same), once its ids were mapped (request-pidns.h) */
	uint64_t caller_pidns;
	unsigned pidns_level;
	pid_t pid, tid;
	uid_t owner; /* of the target process */
	int pidfd;
	int tidfd; /* PIDFD_THREAD pidfd of tid, a non-main thread (6.9+), or -EBADF */
	uint64_t pid_start, tid_start;
	bool waited; /* on polkit or the resolver: stale until request_recheck() */
	int (*resume)(struct Request *r, bool *ret_pending); /* after the resolver */

	char why[512];	/* the text of the error answer */
	char cite[256]; /* the policy's "file:line" behind it (request_cite()), "" none */
} Request;

/* Takes a reference on m and answers it exactly once, now or after polkit or
 * the resolver, through d->hooks->answer. */
void request_start(Daemon *d, DBusMessage *m, const RequestArgs *args);

/* Sets the text of r's answer and returns code (a RequestError or -errno). */
int request_error(Request *r, int code, const char *format, ...) _printf_(3, 4);

/* Sets the "file:line" behind r's answer, for the refusals; nothing when s is
 * NULL or no file set it. */
void request_cite(Request *r, const PolicySource *s);
/* request_cite() of a [Daemon] key ("ThreadsPerUserMax"). */
void request_cite_daemon(Request *r, const char *key);
