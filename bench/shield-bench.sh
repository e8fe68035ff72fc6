#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What the shield ([Daemon] Shield=, realtimed(8) SHIELD) buys a realtime
# thread: boots the vm tier's VM once, without threadirqs (a stock
# kernel's default), with an AHCI disk and two virtio-net NICs, and inside
# it (bench/shield-bench-guest.sh) measures realtimectl latency on CPU 1
# as rtaudio (SCHED_FIFO 95 through realtimed) with Shield=auto and with
# Shield=none, in alternating rounds, while disk reads and UDP traffic run
# on CPU 0 only, then on both CPUs. Prints each round, then per load and
# setting the median p99, p99.9 and maximum lateness on CPU 1 (µs) and the
# device interrupts it took per second, and in how many of the round pairs
# the shielded round came out lower. Under TCG only what holds across the
# pairs means anything.
#
# usage: bench/shield-bench.sh [BUILDDIR]    (as root, under the heavy lock)
# Environment: SHIELD_ROUNDS (pairs per load, default 4), SHIELD_DURATION
# (seconds per round, default 10), KERNEL_PACKAGE (default the vm tier's
# kernel, linux-image-amd64), and run-vm.sh's VM_* variables.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$(cd "${1:-$top/build}" && pwd)

: "${VM_SMP:=2}"
export VM_SMP
set -- --timeout 1800
[ -z "${KERNEL_PACKAGE:-}" ] || set -- "$@" --kernel-package "$KERNEL_PACKAGE"
out=$(TOP_SRCDIR=$top TOP_BUILDDIR=$builddir VM_PASS_ENV="SHIELD_ROUNDS SHIELD_DURATION" \
	"$top/tests/vm/run-vm.sh" "$@" "$top/bench/shield-bench-guest.sh") || {
	rc=$?
	echo "$out"
	exit $rc
}
case "$out" in
"1..0 # SKIP "*) echo "SKIP: ${out#1..0 # SKIP }"; exit 77 ;;
esac
out=$(printf '%s\n' "$out" | sed -n 's/^# //p')
printf '%s\n' "$out" | grep -E '^(round|Shield|SKIP|FAIL|not ok)' || true
printf '%s\n' "$out" | grep -q '^round' || exit 1
printf '%s\n' "$out" | grep '^round' | awk '
	function median(list,   n, a, i, j, t) {
		n = split(list, a, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		k = v["load"] " " v["shield"]
		for (m in v) if (m ~ /^(p99|p999|max|irqs_cpu1_per_s)$/) {
			vals[k, m] = vals[k, m] " " v[m]
			pair[v["load"], $2, v["shield"], m] = v[m]
		}
		loads[v["load"]] = 1; rounds[v["load"], $2] = 1
	}
	END {
		split("p99 p999 max irqs_cpu1_per_s", ms, " ")
		for (l in loads) {
			for (i = 1; i <= 4; i++) {
				m = ms[i]; lower = 0; n = 0
				for (r in rounds) {
					split(r, rr, SUBSEP)
					if (rr[1] != l) continue
					n++
					if (pair[l, rr[2], "on", m] + 0 < pair[l, rr[2], "off", m] + 0) lower++
				}
				printf "RESULT load=%s %s: shield %s, none %s (median); shielded lower in %d of %d pairs\n",
					l, m, median(vals[l " on", m]), median(vals[l " off", m]), lower, n
			}
		}
	}' | sort
