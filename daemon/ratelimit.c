// SPDX-License-Identifier: GPL-2.0-or-later
#include "ratelimit.h"

bool ratelimit_below(RateLimit *rl, uint64_t now_usec)
{
	if (rl->interval_usec == 0 || rl->burst == 0)
		return true;
	if (ratelimit_idle(rl, now_usec)) {
		rl->started = true;
		rl->begin_usec = now_usec;
		rl->n = 0;
	}
	if (rl->n >= rl->burst)
		return false;
	rl->n++;
	return true;
}

bool ratelimit_idle(const RateLimit *rl, uint64_t now_usec)
{
	return !rl->started || now_usec < rl->begin_usec ||
	       now_usec - rl->begin_usec >= rl->interval_usec;
}

bool ratelimit_has_room(const RateLimit *rl, uint64_t now_usec)
{
	return rl->interval_usec == 0 || rl->burst == 0 || ratelimit_idle(rl, now_usec) ||
	       rl->n < rl->burst;
}
