/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * GrantLimits: the policy's rlimits (RLIMIT_RTTIME, RLIMIT_RTPRIO,
 * RLIMIT_MEMLOCK, RLIMIT_NICE) put onto a process of the caller with
 * prlimit(), once the checks before it passed.
 */
#pragma once

#include "request.h"

/* 0 with r->reply set to the answer (each limit set: name -> its hard
 * limit now), else the answer (request.h) with its text in r->why. */
int request_grant_limits(Request *r, const PolicyGrant *g, const char *user);
