#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, GrantLimits: what the project's host cannot show, because its
# root lacks CAP_SYS_RESOURCE and so realtimed cannot prlimit() another
# user's process there. tests/integration/test-limits.sh runs here as it is
# and must take the path that reads the limits back from /proc/PID/limits:
# RLIMIT_RTTIME lowered to RTTime= wherever RLIMIT_RTPRIO is non-zero, and
# no RLIMIT_RTPRIO for a user whose Policies= lacks fifo.
# Prints each check; exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
. "$TOP_SRCDIR/tests/vm/lib.sh"
run_integration_real_path test-limits \
	"# CAP_SYS_RESOURCE: the limits are really set" \
	"ok   - and RLIMIT_RTTIME lowered to RTTime=50ms" \
	"ok   - rtalice gets no RLIMIT_RTPRIO: it would open SCHED_FIFO"
echo "PASS"
