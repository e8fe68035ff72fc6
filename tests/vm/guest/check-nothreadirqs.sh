#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-no-threadirqs
#
# vm tier, realtimectl check on a real kernel booted without threadirqs
# (the line above asks run-vm.sh for that): the two lines that depend on it.
# The threadirqs check warns ("not threaded", with the hint to add it to the
# kernel command line) and irq-priorities skips: a few drivers thread their
# own handlers, sound cards and USB controllers do not. The rest of check
# reads the same here as with threadirqs, which check.sh runs whole
# (tests/integration/test-check.sh) in the other boot.
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
C=$TOP_BUILDDIR/realtimectl/realtimectl
[ -x "$C" ] || skip "realtimectl is not built ($C)"
grep -qw threadirqs /proc/cmdline && skip "the kernel was booted with threadirqs"
[ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] && skip "a PREEMPT_RT kernel always threads IRQs"

out=$("$C" check --json 2>/dev/null)
check "realtimectl check --json gave an answer" test -n "$out"
printf '%s\n' "$out" | python3 -c '
import json, sys
lines = {c["id"]: c for c in json.load(sys.stdin)}
def want(id, status, value, hint=None):
    c = lines.get(id)
    if c is None:
        print("not ok - no %s line" % id)
    elif c["status"] != status or value not in (c["value"] or ""):
        print("not ok - %s: %s (%s), want %s with \"%s\"" % (id, c["status"], c["value"], status, value))
    elif hint and hint not in (c["hint"] or ""):
        print("not ok - %s: the hint \"%s\" does not say \"%s\"" % (id, c["hint"], hint))
    else:
        print("ok - %s is %s (%s)" % (id, status, c["value"]))
want("threadirqs", "warn", "not threaded", "threadirqs")
want("irq-priorities", "skip", "not threaded")
' >"${TMPDIR:-/tmp}/check-nothreadirqs.$$" 2>&1
while IFS= read -r line; do
	case "$line" in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) fail "${line#not ok - }" ;;
	*) fail "python3: $line" ;;
	esac
done <"${TMPDIR:-/tmp}/check-nothreadirqs.$$"
rm -f "${TMPDIR:-/tmp}/check-nothreadirqs.$$"
finish
