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
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
run_integration_real_path test-librealtime grant-limits-realtimed rtkit-fallback
finish
