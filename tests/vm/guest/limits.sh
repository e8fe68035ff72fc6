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

fail()
{
	echo "FAIL: $*"
	exit 1
}

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
echo "check: this is root with CAP_SYS_RESOURCE"
eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
[ "$(id -u)" = 0 ] && [ $(((0x$eff >> 24) & 1)) = 1 ] || fail "uid $(id -u), CapEff $eff"

echo "check: tests/integration/test-limits.sh passes here"
out=$(sh "$TOP_SRCDIR/tests/integration/test-limits.sh" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/    /'
[ "$rc" = 0 ] || fail "test-limits.sh exited $rc"
for m in "# CAP_SYS_RESOURCE: the limits are really set" \
	"ok   - and RLIMIT_RTTIME lowered to RTTime=50ms" \
	"ok   - rtalice gets no RLIMIT_RTPRIO: it would open SCHED_FIFO"; do
	echo "check: test-limits.sh took the real path: $m"
	printf '%s\n' "$out" | grep -qF -- "$m" || fail "no line \"$m\""
done
echo "PASS"
