/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The checks before a grant. Each returns 0 to go on or the answer
 * (request.h) with its text in r->why; none replies or frees the request.
 * /proc is read under d->args.proc, so a test can give a fake one.
 */
#pragma once

#include <stdint.h>

#include "daemon-policy.h"
#include "request.h"

/* A grant's first check, before any /proc work: Refusing during the caller's
 * canary cool-down, else counted against ActionsPerBurst= (RateLimited).
 * Resets pass. now: CLOCK_MONOTONIC. */
int request_check_admission(Request *r, uint64_t now);
/* The cool-down again once r->owner is known: the caller's, or the owner's
 * (root asking for a refused user's thread). */
int request_check_refusing(Request *r, uint64_t now);

/* pid and tid in range; pid 0 becomes the caller's process, tid 0 its main
 * thread. */
int request_check_args(Request *r);

/* The process's and the thread's real, effective and saved uids are the
 * caller's (or it is root); sets r->owner. A pid naming none of a non-root
 * caller's processes gets one answer, whatever it names (as hidepid=). */
int request_check_owner(Request *r);

/* request_check_owner(), and pins the target: r->pidfd, r->tidfd (where
 * the kernel has thread pidfds), r->pid_start, r->tid_start. */
int request_pin(Request *r);

/* 0 while the pinned process and thread live, else -ESRCH (also for a tid
 * reused by another thread). */
int request_target_alive(Request *r);

/* After a wait (r->waited): still the pinned target, and still the caller's?
 * Without one the pin stands: nothing ran in between, and the grant checks
 * again after the change. */
int request_recheck(Request *r);

/* Policy allows the grant (picks fifo or rr for rtkit's compat calls) and the
 * canary can preempt it; the owner's policy in *ret. -EINPROGRESS, no answer
 * written: the owner's user is not resolved yet. */
int request_check_policy(Request *r, PolicyEval *ret);

/* UsersMax=, ProcessesPerUserMax=, ThreadsPerUserMax= for a new grant (not
 * an update). user: for the text. */
int request_check_limits(Request *r, const char *user);

/* The polkit action for r. */
const char *request_polkit_action(const Request *r);
