/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A refusal realtimed kept (ListRefusals, daemon/refusals.h) as realtimectl
 * shows it: status --refused lists them, check tells of the last hour's.
 * The words are here, pure (no libdbus), so both say the same and a unit
 * test reads them; refused.c reads them off the bus.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One entry of ListRefusals' reply; the strings as realtimed sent them. */
typedef struct CtlRefusal {
	uint64_t time_usec; /* CLOCK_REALTIME */
	uid_t uid;
	uint64_t pid, tid;
	unsigned count;
	const char *comm, *asked, *error, *reason, *source;
} CtlRefusal;

/* "pipewire asked FIFO 95: REASON", with " (SOURCE)" when the reason does
 * not name the policy source itself, and " (3 times)" when folded. */
void ctl_refusal_format(const CtlRefusal *f, char *buf, size_t size);

/* What to do about a refusal, into buf: for a policy's refusal, where to
 * raise the limit; else the hint of its error (bus-error.h), or a pointer
 * to the reason when that says it all. */
void ctl_refusal_fix(const CtlRefusal *f, char *buf, size_t size);

/* CLOCK_REALTIME microseconds as local "YYYY-MM-DD HH:MM:SS"; "-" for 0. */
void ctl_format_time(uint64_t usec, char *buf, size_t size);
