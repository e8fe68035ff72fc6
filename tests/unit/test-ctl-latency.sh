#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The built realtimectl latency, briefly, as whoever runs the tests, with no
# system bus (so no realtimed, whatever the machine has): it says so and
# measures anyway; the text has its table, verdicts and rule; --json and
# --svg pass tests/lib/latency.sh (JSON keys and sums; the SVG parsed by
# xmllint and rendered by rsvg-convert); a host name with markup and
# control bytes stays escaped (root only: a UTS namespace); usage errors.
#
#   test-ctl-latency.sh REALTIMECTL SRCDIR
set -u

ctl=$1
src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/test-ctl-latency.XXXXXX") || { echo "mktemp failed"; exit 1; }
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
# shellcheck source=tests/lib/tap.sh
. "$src/tests/lib/tap.sh"
# shellcheck source=tests/lib/latency.sh
. "$src/tests/lib/latency.sh"

# no realtimed to ask, whatever this machine runs
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-bus
export DBUS_SYSTEM_BUS_ADDRESS

"$ctl" latency --duration 1s --cpu 0 >"$work/out" 2>"$work/err"
check_eq "latency without realtimed: exit status" 0 $?
check "it says realtimed is not reachable" grep -q "realtimed is not reachable" "$work/err"
check "the figures have their table" grep -q "^  CPU  POLICY" "$work/out"
check "... the verdict table" grep -q "^  64 " "$work/out"
check "... and the rule under it" grep -q "^Rule: ok when the worst wakeup takes at most 1/4" "$work/out"
check "stdout is not a terminal: no progress line" sh -c "! grep -q \"$(printf '\r')\" '$work/out'"

"$ctl" latency --duration 1s --interval 2ms --json --svg "$work/l.svg" >"$work/l.json" 2>"$work/err"
check_eq "latency --json --svg: exit status" 0 $?
latency_check_json "$work/l.json"
latency_check_svg "$work/l.svg"
check "the JSON has the note" grep -q '"note":"[^"]*realtimed is not reachable' "$work/l.json"
# a wakeup late by more than a period skips the periods it missed
check "at most 500 wakeups in 1 s every 2 ms, on CPU 0" \
	grep -Eq '"cpu":0,[^}]*"samples":([1-9][0-9]?|[1-4][0-9][0-9]|500),' "$work/l.json"

# a host name of markup and control bytes: the SVG stays valid XML
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	unshare -u sh -c "printf '<a&b\"\\033\\377' >/proc/sys/kernel/hostname && '$ctl' latency --duration 200ms --cpu 0 --svg '$work/h.svg' >/dev/null 2>&1"; then
	latency_check_svg "$work/h.svg"
	check "the host name is escaped" grep -q '&lt;a&amp;b&quot;??' "$work/h.svg"
else
	note "not root, or no UTS namespace: the escaped host name is not tested"
fi

"$ctl" latency --cpu 99999 >"$work/out" 2>"$work/err"
check_eq "--cpu with a CPU this process may not use: exit status" 2 $?
"$ctl" latency --cpu 0-x >"$work/out" 2>"$work/err"
check_eq "--cpu 0-x: exit status" 2 $?
check "... and says what to give" grep -q "invalid CPU list '0-x'" "$work/err"
"$ctl" latency --interval 10us >"$work/out" 2>"$work/err"
check_eq "--interval 10us: exit status" 2 $?
"$ctl" latency --priority 100 >"$work/out" 2>"$work/err"
check_eq "--priority 100: exit status" 2 $?
"$ctl" status --svg x.svg >"$work/out" 2>"$work/err"
check_eq "--svg with status: exit status" 2 $?
check "... goes with latency only" grep -q -- "--svg goes with latency only" "$work/err"
"$ctl" check --latency=nonsense >"$work/out" 2>"$work/err"
check_eq "check --latency=nonsense: exit status" 2 $?
finish
