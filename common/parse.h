/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Value parsers for realtime.conf(5), one per value type. Each returns 0 and
 * fills *ret, or -EINVAL / -ERANGE and leaves *ret untouched; the policy
 * library turns those into "file:line: message" errors. The CLI parses its
 * arguments with them, and the /proc readers their numbers with
 * parse_decimal_prefix().
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The one decimal number parser of realtimed: an unsigned number at the
 * start of s, digits only (no sign, no blank, no empty number), at most max.
 * *ret_end, when not NULL, points after its last digit; what follows is the
 * caller's to check. -EINVAL without a leading digit, -ERANGE above max. */
int parse_decimal_prefix(const char *s, uint64_t max, uint64_t *ret, const char **ret_end);
/* The same for the whole of s: -EINVAL when anything follows the digits. */
int parse_decimal(const char *s, uint64_t max, uint64_t *ret);

int parse_boolean(const char *s, bool *ret);
int parse_unsigned(const char *s, unsigned *ret);
/* SCHED_FIFO/RR priority 1..99; "0" allowed when allow_zero (no realtime). */
int parse_priority(const char *s, bool allow_zero, int *ret);
/* Nice level -20..19. */
int parse_nice(const char *s, int *ret);
/* Bytes with optional K/M/G (1024-based) suffix, or infinity/unlimited. */
int parse_size(const char *s, uint64_t *ret);
/* Duration with us/ms/s suffix, or infinity/unlimited. A bare number is
 * microseconds when bare_usec, seconds otherwise. */
int parse_duration(const char *s, bool bare_usec, uint64_t *ret);
/* Space-separated "fifo" / "rr" words -> mask of POLICY_SCHED_*. */
int parse_policies(const char *s, unsigned *ret);
/* Space-separated capability names, with or without "cap_", only
 * sys_nice and ipc_lock -> mask of 1ULL << CAP_*. Empty string -> 0. */
int parse_capabilities(const char *s, uint64_t *ret);
