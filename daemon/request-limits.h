/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rlimits realtimed puts on a process with prlimit(), once the checks
 * before it passed: GrantLimits (RLIMIT_RTTIME, RLIMIT_RTPRIO,
 * RLIMIT_MEMLOCK, RLIMIT_NICE as policy gives them), and RLIMIT_RTTIME
 * lowered to RTTime= before a realtime grant. prlimit() names the process
 * by its pid number: each change is checked against the pinned pidfd
 * before and after, and one that landed on a process that took the pid is
 * put back (NoSuchProcess is the answer).
 */
#pragma once

#include "request.h"

/* 0 with r->reply set to the answer (each limit set: name -> its hard
 * limit now), else the answer (request.h) with its text in r->why. */
int request_grant_limits(Request *r, const PolicyGrant *g, const char *user);

/* Lowers RLIMIT_RTTIME of r's process to RTTime= where realtimed may, else refuses (as rtkit). */
int request_lower_rttime(Request *r, const PolicyGrant *g, const char *user);
