/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pid and tid a caller names are ids of its own pid namespace: a
 * program in a container (podman, toolbox, distrobox, bwrap) sends the
 * ids it sees. Here they become realtimed's ids, through the NSpid lines
 * of the /proc status files (proc.h), before the checks of the target
 * (request-check.h), which then see host ids only.
 *
 * A caller in realtimed's own pid namespace takes the path it always
 * took: its ids are realtimed's, and one readlink() per connection (kept
 * with its credentials, creds.h) tells it is there.
 * Only its tid may be looked up again, when it names no thread of the
 * pid but the pid's process lives in a namespace below (what
 * xdg-desktop-portal sends: the host pid with the app's own tid):
 * request_pidns_retry().
 *
 * The search never leaves the caller's namespace (a process is found by
 * its id there only if it lives there) and is bounded: at most
 * PIDNS_SCAN_MAX entries of /proc and PIDNS_READ_MAX status files per
 * search, two searches per call at most (its pid's, its tid's); a grant
 * request was admitted (counted against ActionsPerBurst=) before, and a
 * reset is paced by the bus queue.
 */
#pragma once

#include "request.h"

/* /proc entries a search for a pid looks at, and status files it reads */
#define PIDNS_SCAN_MAX 16384
#define PIDNS_READ_MAX 1024

/* After request_check_args(): r->pid and r->tid as realtimed's ids, for a
 * caller in a pid namespace below realtimed's; sets r->caller_pidns and
 * r->pidns_level. 0 or the answer (request.h), which names the namespace
 * the ids were looked up in. */
int request_map_pidns(Request *r);

/* After the pin or the owner check, for a caller below realtimed's
 * namespace: the target still has the id named in the caller's namespace
 * (and, pinned, is still alive), so the pid was not reused between the
 * search and the pin. 0 or the answer. */
int request_pidns_verify(Request *r);

/* The pin or the owner check answered code (REQUEST_E_NO_SUCH_PROCESS):
 * for a caller in realtimed's namespace whose tid is no thread of the pid,
 * when the pid's process lives in a namespace below and has a thread whose
 * innermost id is the tid named, r->tid becomes that thread, r's pidfds
 * are closed and 0 is returned: check again. Else code. */
int request_pidns_retry(Request *r, int code);
