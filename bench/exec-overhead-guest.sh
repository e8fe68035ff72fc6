#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of bench/exec-overhead.sh (runs inside the VM as real root):
# times a fork+exec loop of /bin/true (hyperfine -N: one fork+exec per run)
# as an unprivileged user, with realtime.ko not loaded and loaded with any=1
# (so every exec is granted capabilities and made AT_SECURE). Under TCG on a
# shared host the speed of the VM drifts a lot over minutes, so the two
# sides are measured in many short back-to-back pairs, alternating which
# goes first, and the overhead is the median of the pairs' ratios. Two
# figures: wall time (median of a run) and CPU time (user + system of the
# child, mean of a run), which with QEMU's -icount is a count of guest
# instructions and so immune to the host's load. Prints one "RESULT" line.
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

ko=$TOP_BUILDDIR/kmod/realtime.ko
[ -f "$ko" ] || skip "$ko not built"
command -v hyperfine >/dev/null || skip "hyperfine missing: install hyperfine"
add_test_users
runs=${EXEC_RUNS:-100}
pairs=${EXEC_PAIRS:-12}
dir=$(mktemp -d)
chmod 0777 "$dir"

# measure NAME: "WALL CPU" seconds of one fork+exec of /bin/true, as rtplain
# (hyperfine's CSV: command,mean,stddev,median,user,system,min,max).
measure()
{
	as rtplain hyperfine -N --style none --warmup 10 --runs "$runs" \
		--export-csv "$dir/$1.csv" /bin/true >/dev/null 2>&1 || return 1
	awk -F, 'NR == 2 { print $4, $5 + $6 }' "$dir/$1.csv"
}

measure_off()
{
	measure "off$1" >"$dir/m"
}

measure_on()
{
	insmod "$ko" any=1 || return 1
	g0=$(cat /proc/sys/security/realtime/grants)
	measure "on$1" >"$dir/m" || return 1
	g1=$(cat /proc/sys/security/realtime/grants)
	rmmod realtime || return 1
	# hyperfine itself, the warmup and the runs: each exec granted once.
	if [ $((g1 - g0)) -lt "$runs" ]; then
		echo "FAIL: only $((g1 - g0)) grants for $runs execs: the module was not in the path" >&2
		return 1
	fi
}

for f in offs ons ratios coffs cons cratios; do
	: >"$dir/$f"
done
p=1
while [ $p -le "$pairs" ]; do
	if [ $((p % 2)) = 1 ]; then
		measure_off $p && off=$(cat "$dir/m") && measure_on $p && on=$(cat "$dir/m") || exit 1
	else
		measure_on $p && on=$(cat "$dir/m") && measure_off $p && off=$(cat "$dir/m") || exit 1
	fi
	set -- $off $on
	echo "pair $p: wall off $(awk -v v="$1" 'BEGIN { printf "%.0f", v * 1e6 }') us, on $(awk -v v="$3" 'BEGIN { printf "%.0f", v * 1e6 }') us; cpu off $(awk -v v="$2" 'BEGIN { printf "%.0f", v * 1e6 }') us, on $(awk -v v="$4" 'BEGIN { printf "%.0f", v * 1e6 }') us"
	echo "$1" >>"$dir/offs"
	echo "$3" >>"$dir/ons"
	echo "$2" >>"$dir/coffs"
	echo "$4" >>"$dir/cons"
	awk -v off="$1" -v on="$3" 'BEGIN { print on / off }' >>"$dir/ratios"
	awk -v off="$2" -v on="$4" 'BEGIN { print on / off }' >>"$dir/cratios"
	p=$((p + 1))
done

# Where the grant's cost goes: the kernel's own file-capability grant of the
# same capabilities costs the same (secureexec: the kernel's and glibc's
# AT_SECURE handling); the probe itself, with nobody eligible, next to nothing.
mkdir -p /opt/rt-bench
cp /bin/true /opt/rt-bench/true
cp /bin/true /opt/rt-bench/true-fcaps
setcap cap_sys_nice,cap_ipc_lock,cap_sys_resource+ep /opt/rt-bench/true-fcaps || exit 1
cpu_of()
{
	as rtplain hyperfine -N --style none --warmup 10 --runs "$runs" \
		--export-csv "$dir/ref.csv" "$1" >/dev/null 2>&1 || return 1
	awk -F, 'NR == 2 { printf "%.0f", ($5 + $6) * 1e6 }' "$dir/ref.csv"
}
ref_off=$(cpu_of /opt/rt-bench/true)
ref_fcaps=$(cpu_of /opt/rt-bench/true-fcaps)
insmod "$ko" gid=-1 any=0 || exit 1
ref_probe=$(cpu_of /opt/rt-bench/true)
echo 1 >/proc/sys/security/realtime/any
ref_grant=$(cpu_of /opt/rt-bench/true)
rmmod realtime || exit 1
echo "reference cpu: off $ref_off us, file caps (no module) $ref_fcaps us, module loaded nobody eligible $ref_probe us, module any=1 $ref_grant us"

median()
{
	sort -g "$1" | awk '{ v[NR] = $1 }
		END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
awk -v off="$(median "$dir/offs")" -v on="$(median "$dir/ons")" \
	-v ratio="$(median "$dir/ratios")" -v coff="$(median "$dir/coffs")" \
	-v con="$(median "$dir/cons")" -v cratio="$(median "$dir/cratios")" \
	-v runs="$runs" -v pairs="$pairs" -v roff="$ref_off" -v rfcaps="$ref_fcaps" \
	-v rprobe="$ref_probe" -v rgrant="$ref_grant" 'BEGIN {
	printf "RESULT wall_off_us=%.0f wall_on_us=%.0f wall_overhead_pct=%.2f cpu_off_us=%.0f cpu_on_us=%.0f cpu_overhead_pct=%.2f runs=%d pairs=%d fcaps_overhead_pct=%.2f probe_only_overhead_pct=%.2f grant_vs_fcaps_pct=%.2f\n",
		off * 1e6, on * 1e6, (ratio - 1) * 100, coff * 1e6, con * 1e6, (cratio - 1) * 100, runs, pairs,
		(rfcaps / roff - 1) * 100, (rprobe / roff - 1) * 100, (rgrant / rfcaps - 1) * 100
}'
rm -rf "$dir"
