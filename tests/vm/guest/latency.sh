#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A vm-tier guest script (tests/vm/run-vm.sh contract: real root in QEMU
# with Debian's kernel; TOP_SRCDIR/TOP_BUILDDIR set; exit 0 pass, 77 skip,
# else fail) for realtimectl latency on a real kernel, 6.1 and
# 6.12 PREEMPT_RT: tests/integration/test-latency.sh as it is (rtaudio at
# SCHED_FIFO 95 through realtimed, which here may also set the rlimits;
# rtplain; realtimed stopped), then root's own measurement of every CPU of
# this kernel, whose figures and picture must be produced and well formed.
# Their values under TCG mean nothing: none is asserted.
#
#   VM_ONLY=latency meson test -C build vm-6.12-rt -v

# shellcheck source=tests/vm/lib.sh
. "${TOP_SRCDIR:?}/tests/vm/lib.sh"
# shellcheck source=tests/lib/latency.sh
. "$TOP_SRCDIR/tests/lib/latency.sh"
C=${TOP_BUILDDIR:?}/realtimectl/realtimectl

[ -x "$C" ] || skip "realtimectl is not built ($C)"
[ "$(id -u)" = 0 ] || skip "needs root (run it in the VM through tests/vm/run-vm.sh)"

run_integration_real_path test-latency

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
# no realtimed here: root sets SCHED_FIFO itself, and says so
"$C" latency --duration 3s --json --svg "$work/l.svg" >"$work/l.json" 2>"$work/err"
check_eq "root's measurement of $(uname -r): exit status" 0 $?
sed 's/^/# stderr: /' "$work/err"
latency_check_json "$work/l.json" fifo
latency_check_svg "$work/l.svg"
case "$(uname -v)" in
*PREEMPT_RT*) check "the picture names PREEMPT_RT" grep -q "PREEMPT_RT" "$work/l.svg" ;;
*) check "the picture names the kernel" grep -qF "$(uname -r)" "$work/l.svg" ;;
esac
"$C" latency --duration 2s >"$work/text" 2>&1
check_eq "the text figures: exit status" 0 $?
sed 's/^/#   /' "$work/text"
finish
