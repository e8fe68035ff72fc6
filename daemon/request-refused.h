/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What realtimed keeps of a refused request: an entry in the caller's
 * list of refusals (refusals.h; ListRefusals, realtimectl status
 * --refused) and one journal line, MESSAGE_ID LOG_ID_REFUSED, paced per
 * user. Grant requests count (MakeThreadRealtime, MakeThreadHighPriority,
 * GrantLimits and rtkit's), each answer but success: the policy's, the
 * per-user limits', the rate limit's, polkit's, the canary's cool-down,
 * and realtimed's own failures. Resets do not: undoing what was never
 * granted is no refusal of realtime. The entry is kept only for a user
 * NSS knows, as the resolver has it; when it does not know yet, the
 * refusal waits for its lookup (user-wait.h) and is kept and logged then.
 */
#pragma once

#include "request.h"

/* Records r, answered code (a RequestError or a negative errno) with
 * r->why, for r->uid; logs it, now or after r->uid's lookup. Does nothing
 * for a reset. */
void request_record_refusal(Request *r, int code);
