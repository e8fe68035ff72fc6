#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# [Daemon] CpuDmaLatency= on the machine's real /dev/cpu_dma_latency, which
# reads back the kernel's effective CPU latency request (an s32): with
# CpuDmaLatency=0 it reads 0 while a realtime grant of rtaudio's is
# supervised, and what it read before (not a constant: another process may
# hold it too) once the grant is reset, once its process exits, and at once
# when a reload removes the key; a reload that sets it again while a grant
# runs takes hold at once, one that changes it writes the new value. A
# nice-level grant holds nothing, and neither does realtimed while no
# grant runs. realtimectl status and check say so, and check names another
# process that holds the device. The vm tier runs this script as it is
# (tests/vm/guest/cpu-dma.sh), where the value before is the kernel's
# default.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
DEV=/dev/cpu_dma_latency
[ -c "$DEV" ] || skip "this kernel has no $DEV (no CPU latency QoS to hold)"

# effective: the value in force, in µs
effective()
{
	od -An -td4 -N4 "$DEV" | tr -d ' '
}
BEFORE=$(effective)
note "$DEV reads $BEFORE before the test"
[ -n "$BEFORE" ] && [ "$BEFORE" -gt 20 ] ||
	skip "$DEV is held at '$BEFORE' µs by something else already: 0 and 20 could not be told apart"

integ_setup
integ_admin_conf <<-EOF
	[Daemon]
	CpuDmaLatency=0
EOF
integ_start_daemon
check_eq "nothing held while no grant is supervised" "$BEFORE" "$(effective)"

holder_start rtaudio 3 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
T3=$(holder_tid 3)

out=$(native --as rtaudio MakeThreadHighPriority uint64:$HOLDER_PID uint64:$T3 int32:-5)
expect_success "nice -5 on thread $T3" "$out"
check_eq "a nice-level grant holds nothing" "$BEFORE" "$(effective)"

out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:10)
expect_success "fifo 10 on thread $T1" "$out"
check_eq "held at 0 while a realtime grant is supervised" 0 "$(effective)"
took_path cpu-dma-held
out=$("$REALTIMECTL" status --all 2>&1)
printf '%s\n' "$out" | grep -q "held at 0 µs for 1 realtime grant" &&
	ok "realtimectl status says it is held for 1 grant" || fail "status: $out"
out=$("$REALTIMECTL" check --json 2>&1)
printf '%s\n' "$out" | grep -q '"effective=0 realtimed=held:0us:1 others=none"' &&
	ok "realtimectl check says realtimed holds it" ||
	fail "check: $(printf '%s\n' "$out" | grep -A3 cpu-dma)"

out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T2 string:rr uint32:5)
expect_success "rr 5 on thread $T2" "$out"
out=$(native --as rtaudio ResetThread uint64:$HOLDER_PID uint64:$T1)
expect_success "reset of thread $T1" "$out"
check_eq "still held for the other realtime grant" 0 "$(effective)"
out=$(native --as rtaudio ResetThread uint64:$HOLDER_PID uint64:$T2)
expect_success "reset of thread $T2, the last realtime grant" "$out"
check_eq "let go when the last realtime grant ends" "$BEFORE" "$(effective)"

# a reload that removes the key lets go at once: no wait
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:10)
expect_success "fifo 10 on thread $T1 again" "$out"
check_eq "held again" 0 "$(effective)"
: >"$WORK/admin.conf"
out=$(native Reload)
expect_success "Reload without CpuDmaLatency=" "$out"
check_eq "the reload let go at once" "$BEFORE" "$(effective)"
[ -n "$(grant_of "$T1")" ] && ok "and thread $T1 keeps its grant" || fail "thread $T1 lost its grant"
out=$("$REALTIMECTL" status 2>&1)
printf '%s\n' "$out" | grep -q "not configured" && ok "status says it is not configured" ||
	fail "status: $out"

printf '[Daemon]\nCpuDmaLatency=20us\n' >"$WORK/admin.conf"
out=$(native Reload)
expect_success "Reload with CpuDmaLatency=20us" "$out"
check_eq "a reload that sets it while a grant runs takes hold at once" 20 "$(effective)"
printf '[Daemon]\nCpuDmaLatency=0\n' >"$WORK/admin.conf"
out=$(native Reload)
expect_success "Reload with CpuDmaLatency=0" "$out"
check_eq "a reload that changes it writes the new value" 0 "$(effective)"

# someone else: a process that holds it at 5 µs while realtimed holds nothing
holder_stop
if wait_for 5 sh -c "[ \"\$(od -An -td4 -N4 $DEV | tr -d ' ')\" = '$BEFORE' ]"; then
	ok "let go when the granted process exited"
else
	fail "$DEV reads $(effective) after the granted process exited, not $BEFORE"
fi
sh -c "exec 7>$DEV && printf 0x00000005 >&7 && echo held && exec sleep 30" >"$WORK/other.out" &
OTHER=$!
integ_track $OTHER
if wait_for 5 grep -q held "$WORK/other.out"; then
	out=$("$REALTIMECTL" check --json 2>&1)
	printf '%s\n' "$out" | grep -q "is held at 5 µs by sleep (pid $OTHER)" &&
		ok "check names the process that holds it" ||
		fail "check: $(printf '%s\n' "$out" | grep -A3 cpu-dma)"
else
	fail "a process could not hold $DEV: $(cat "$WORK/other.out")"
fi
kill $OTHER
wait $OTHER 2>/dev/null
integ_untrack $OTHER
grep -q "Failed to hold" "$WORK/realtimed.log" && fail "realtimed logged a failure to hold $DEV" ||
	ok "no failure logged"
finish
