/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * realtimed's names on the bus, for every part that speaks or answers them:
 * the daemon, realtimectl, and the test clients and stand-ins. The native
 * interface is realtimed(8)'s and daemon/org.realtimed.Realtime1.xml's; the
 * rtkit one is RealtimeKit 0.13's, which realtimed serves when
 * RtkitCompat=yes. Names only: nothing here needs libdbus (NATIVE_ERRORS'
 * rtkit column names libdbus's constants, expanded only where it is used).
 */
#pragma once

#define NATIVE_NAME "org.realtimed.Realtime1"
#define NATIVE_PATH "/org/realtimed/Realtime1"
#define NATIVE_IFACE "org.realtimed.Realtime1"
/* Each error of the native interface is this prefix and a word
 * ("PermissionDenied"); realtimectl maps them to exit statuses. */
#define NATIVE_ERROR "org.realtimed.Realtime1.Error."

/*
 * The native interface's errors (realtimed(8)), the one list that
 * realtimed's answers (daemon/request.c), librealtime's errnos
 * (librealtime/error.c) and realtimectl's exit statuses and hints
 * (realtimectl/bus-error.c) are generated from: a new error is one line
 * here. Each part expands the columns it needs (the others stay unexpanded
 * tokens, so none needs another's headers):
 *   X(CODE, word, rtkit, errno, ctl_exit, hint)
 * CODE: realtimed's RequestError is REQUEST_E_<CODE>.
 * word: the name is NATIVE_ERROR word.
 * rtkit: what the rtkit interface answers instead: rtkit 0.13 answers
 *   AccessDenied for EPERM/EACCES/EBUSY, NoMemory, and Failed for the
 *   rest; its clients only tell those apart.
 * errno: what librealtime returns (negated): the one a program would expect
 *   from the kernel call the request stands for (sched_setscheduler(2),
 *   setpriority(2), prlimit(2)) where there is one, else one that says
 *   what the caller can do.
 * ctl_exit, hint: realtimectl's exit status (CTL_EXIT_*) and its sentence
 *   on what to do, or NULL when realtimed's own message says it all.
 */
#define NATIVE_ERRORS(X)                                                                         \
	/* not the caller's thread, or polkit said no to a user no rule covers */                \
	X(PERMISSION_DENIED, "PermissionDenied", DBUS_ERROR_ACCESS_DENIED, EPERM,                \
	  CTL_EXIT_REFUSED,                                                                      \
	  "Only threads of your own processes can be changed, and a user no [User] or [Group] "  \
	  "rule covers needs polkit's yes: ask an administrator for a rule, or run as root.")    \
	/* over a limit of policy */                                                             \
	X(POLICY_DENIED, "PolicyDenied", DBUS_ERROR_ACCESS_DENIED, EPERM, CTL_EXIT_REFUSED,      \
	  "See what the policy allows you with 'realtimectl explain'.")                          \
	X(NO_SUCH_PROCESS, "NoSuchProcess", DBUS_ERROR_FAILED, ESRCH, CTL_EXIT_NO_SUCH, NULL)    \
	X(NO_SUCH_GRANT, "NoSuchGrant", DBUS_ERROR_FAILED, ENOENT, CTL_EXIT_NO_SUCH,             \
	  "realtimed undoes only its own grants; 'realtimectl status' lists them.")              \
	X(INVALID_ARGS, "InvalidArgs", DBUS_ERROR_INVALID_ARGS, EINVAL, CTL_EXIT_USAGE, NULL)    \
	/* the per-user number of grants: a quota, freed by a reset */                           \
	X(LIMITS_EXCEEDED, "LimitsExceeded", DBUS_ERROR_ACCESS_DENIED, EDQUOT, CTL_EXIT_REFUSED, \
	  "Reset grants you no longer need ('realtimectl status', 'realtimectl reset'), or "     \
	  "raise the [Daemon] limits.")                                                          \
	/* too many requests in a burst: try again in a moment */                                \
	X(RATE_LIMITED, "RateLimited", DBUS_ERROR_ACCESS_DENIED, EAGAIN, CTL_EXIT_REFUSED,       \
	  "Too many requests; try again in a few seconds.")                                      \
	/* the canary demoted starving threads and refuses for a while */                        \
	X(REFUSING, "Refusing", DBUS_ERROR_ACCESS_DENIED, EBUSY, CTL_EXIT_REFUSED,               \
	  "The canary watchdog demoted starving realtime threads recently; try again after "     \
	  "CanaryRefuseSec.")                                                                    \
	X(FAILED, "Failed", DBUS_ERROR_FAILED, EIO, CTL_EXIT_FAILED, NULL)

#define RTKIT_NAME "org.freedesktop.RealtimeKit1"
#define RTKIT_PATH "/org/freedesktop/RealtimeKit1"
#define RTKIT_IFACE "org.freedesktop.RealtimeKit1"
