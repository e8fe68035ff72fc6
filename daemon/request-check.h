/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks a request passes before its grant, in the order request.c
 * asks them. Each returns 0 when the request may go on, or the answer
 * (request.h: a RequestError, or a negative errno when realtimed itself
 * failed) with its text in r->why; none replies or frees the request.
 * They read /proc under the grant table's proc root, so a test can give
 * them a fake one.
 */
#pragma once

#include <stdint.h>

#include "daemon-policy.h"
#include "request.h"

/* A grant request's admission, the first check, before any /proc work:
 * refused (Refusing) while the caller's canary cool-down lasts (its
 * realtime threads starved the system), else counted against the caller's
 * ActionsPerBurst= in BurstSec= (RateLimited beyond it). Grants of
 * realtime or nice and GrantLimits (which would give back the
 * RLIMIT_RTPRIO the canary took) only. now: CLOCK_MONOTONIC. */
int request_check_admission(Request *r, uint64_t now);
/* The cool-down again, after request_pin() (r->owner known) and before
 * the grant: the caller's, or the target's owner's (root asking for a
 * refused user's thread). */
int request_check_refusing(Request *r, uint64_t now);

/* pid and tid as sent are in range; resolves pid 0 to the caller's
 * process and tid 0 to its main thread (for ResetProcess, the main
 * thread is the one whose uids are checked). */
int request_check_args(Request *r);

/* The caller may act on the thread: the process's and the thread's real,
 * effective and saved uids are all the caller's (or the caller is root).
 * Sets r->owner, the process's real uid, whose policy applies. To a caller
 * other than root, a pid that names none of its processes (another user's,
 * none, a thread's id) is answered alike, with no uid: as /proc with
 * hidepid= would tell it. */
int request_check_owner(Request *r);

/* The target exists, belongs to the caller (request_check_owner()), tid is
 * its thread, and both are pinned: r->pidfd, r->tidfd where the kernel has
 * thread pidfds, r->pid_start, r->tid_start. */
int request_pin(Request *r);

/* 0 while the pinned process and thread live (through their pidfds, or
 * the thread's start time where the kernel has no thread pidfds), else
 * -ESRCH: a tid that names another thread now is not the target. */
int request_target_alive(Request *r);

/* Still the pinned process and thread, and still the caller's? Asked again
 * when the request waited for polkit since the last check (r->waited).
 * Without a wait, the pin's answer stands: nothing of realtimed ran in
 * between, and the grant's own check after the change (request-sched.c)
 * still finds a thread that exited or whose tid was reused. */
int request_recheck(Request *r);

/* Policy allows the grant (for rtkit's realtime calls, also picks fifo or
 * rr), and the canary can preempt the priority. The policy of the owner
 * and its user name in *ret (daemon_policy_eval()'s). -EINPROGRESS, with
 * no answer written: the owner's user is not known yet
 * (daemon_policy_wait()). */
int request_check_policy(Request *r, PolicyEval *ret);

/* [Daemon] UsersMax=, ProcessesPerUserMax=, ThreadsPerUserMax= for a new
 * grant (an update of a grant counts nothing new). user: for the text. */
int request_check_limits(Request *r, const char *user);

/* The polkit action that authorizes r for a user no policy rule covers. */
const char *request_polkit_action(const Request *r);
