#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, GrantLimits: what the project's host cannot show, because its
# root lacks CAP_SYS_RESOURCE and so realtimed cannot prlimit() another
# user's process there. tests/integration/test-limits.sh runs here as it is
# and must take the path that reads the limits back from /proc/PID/limits:
# RLIMIT_RTTIME lowered to RTTime= wherever RLIMIT_RTPRIO is non-zero, and
# no RLIMIT_RTPRIO for a user whose Policies= lacks fifo.
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
run_integration_real_path test-limits limits-set
finish
