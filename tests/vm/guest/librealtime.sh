#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, librealtime's realtime_grant_limits(): what the project's host
# cannot show, because its root lacks CAP_SYS_RESOURCE and so realtimed
# cannot prlimit() another user's process there.
# tests/integration/test-librealtime.sh runs here as it is, and its
# program must take the path where the call succeeds: the limits it
# answers are the ones getrlimit() reads back, and the kernel then grants
# SCHED_FIFO to the process itself.
# Prints each check; exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
. "$TOP_SRCDIR/tests/vm/lib.sh"
run_integration_real_path test-librealtime \
	"realtime_grant_limits: granted" \
	"ok   - realtimed: realtime_grant_limits: 0" \
	"ok   - realtimed: RLIMIT_RTPRIO 95/95 as the answer says" \
	"ok   - realtimed: after GrantLimits the kernel itself grants SCHED_FIFO 10: 0" \
	"ok   - rtkit: realtime_service: 2"
echo "PASS"
