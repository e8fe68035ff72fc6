/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The grant of realtime or a nice level to one thread, once the checks
 * before it passed: RLIMIT_RTTIME, the thread checked again right before
 * and after it is changed, the canary watching it from the moment it turns
 * realtime, the read-back of what the thread holds, and the grant table.
 */
#pragma once

#include "request.h"

/* 0 when the thread holds the grant and the table supervises it, else the
 * answer (request.h) with its text in r->why; the thread is then left as
 * it was. */
int request_grant_sched(Request *r, const PolicyGrant *g, const char *user);
