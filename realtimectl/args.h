/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsers for realtimectl's command-line arguments that are not policy
 * values (those use common/parse.h): PID[/TID] targets and USER names.
 * Pure functions apart from the NSS lookup, unit-tested in test-ctl-args.c.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/* "PID" or "PID/TID", decimal, each 1..2^31-1. *ret_tid is 0 (the main
 * thread, as the D-Bus API reads it) when no TID is given. -EINVAL for
 * anything else, and the outputs are left untouched. */
int args_parse_target(const char *s, uint64_t *ret_pid, uint64_t *ret_tid);

/* "NAME", "#UID", or a bare number that names no user: resolves through
 * NSS to a uid. "#UID" and bare numbers need not exist (the caller
 * decides); a NAME that NSS does not know is -ESRCH; an empty or
 * malformed string is -EINVAL. */
int args_parse_user(const char *s, uid_t *ret_uid);
