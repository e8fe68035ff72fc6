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

fail()
{
	echo "FAIL: $*"
	exit 1
}

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
echo "check: this is root with CAP_SYS_RESOURCE"
eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
[ "$(id -u)" = 0 ] && [ $(((0x$eff >> 24) & 1)) = 1 ] || fail "uid $(id -u), CapEff $eff"

echo "check: tests/integration/test-librealtime.sh passes here"
out=$(sh "$TOP_SRCDIR/tests/integration/test-librealtime.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
[ "$rc" = 0 ] || fail "test-librealtime.sh exited $rc"
for m in "realtime_grant_limits: granted" \
	"ok   - realtimed: realtime_grant_limits: 0" \
	"ok   - realtimed: RLIMIT_RTPRIO 95/95 as the answer says" \
	"ok   - realtimed: after GrantLimits the kernel itself grants SCHED_FIFO 10: 0" \
	"ok   - rtkit: realtime_service: 2"; do
	echo "check: test-librealtime.sh took the real path: $m"
	printf '%s\n' "$out" | grep -qF -- "$m" || fail "no line \"$m\""
done
echo "PASS"
