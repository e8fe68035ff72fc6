#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtime.ko's exec overhead: boots the vm tier's VM once and, inside it,
# times a fork+exec loop of /bin/true as an unprivileged user with the
# module not loaded and loaded with any=1 (every exec granted), in
# alternating pairs; prints the medians and the overhead. Target: under 2%.
# The VM runs with QEMU's -icount (one vCPU, guest time = instructions), so
# the CPU-time figure does not depend on what else the host is doing.
#
# usage: bench/exec-overhead.sh [BUILDDIR]   (as root; BUILDDIR has kmod/realtime.ko)
# Environment: EXEC_RUNS (execs per measurement, default 100),
# EXEC_PAIRS (default 12), and run-vm.sh's VM_* variables.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)

: "${VM_SMP:=1}"
: "${VM_QEMU_ARGS:=-icount shift=0,sleep=on}"
export VM_SMP VM_QEMU_ARGS
out=$(TOP_SRCDIR=$top TOP_BUILDDIR=$builddir VM_PASS_ENV="EXEC_RUNS EXEC_PAIRS" \
	"$top/tests/vm/run-vm.sh" --timeout 1500 "$top/bench/exec-overhead-guest.sh") || {
	rc=$?
	echo "$out"
	exit $rc
}
# run-vm.sh speaks TAP: the guest's lines are its "# " comments
case "$out" in
"1..0 # SKIP "*) echo "SKIP: ${out#1..0 # SKIP }"; exit 77 ;;
esac
out=$(printf '%s\n' "$out" | sed -n 's/^# //p')
echo "$out" | grep -E '^(pair|reference|RESULT|SKIP|FAIL)'
echo "$out" | grep -q '^RESULT' || exit 1
