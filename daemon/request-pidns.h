/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ids a caller names, in its own pid namespace, made realtimed's before
 * the checks of the target (realtimed(8), CONTAINERS). A search never leaves
 * the caller's namespace and is bounded: PIDNS_SCAN_MAX /proc entries and
 * PIDNS_READ_MAX status files, two searches per call, after the admission
 * (a grant) or the bus queue's pacing (a reset).
 */
#pragma once

#include "request.h"

#define PIDNS_SCAN_MAX 16384
#define PIDNS_READ_MAX 1024

/* After request_check_args(): r->pid and r->tid as realtimed's ids; sets
 * r->caller_pidns and r->pidns_level. 0 or the answer. */
int request_map_pidns(Request *r);

/* After the pin or the owner check: the target still has the id named in
 * the caller's namespace (no pid reuse since the search). 0 or the answer. */
int request_pidns_verify(Request *r);

/* After NoSuchProcess (code) for a caller in realtimed's namespace: when the
 * tid is no thread of the pid but the innermost id of one in the namespace
 * below the pid's (xdg-desktop-portal's), r->tid becomes that thread, r's
 * pidfds are closed and 0 says check again. Else code. */
int request_pidns_retry(Request *r, int code);
