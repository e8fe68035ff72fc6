#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One user's burst does not stand in front of another user's call.
# fair-order puts rtplain's burst of ListAllGrants calls (8 connections,
# 100 calls each, refused: rtplain may not manage) on the wire, then
# rtaudio, an audio member, asks for fifo 1 on its own thread three times.
# realtimed takes the calls off its connection into one queue per caller
# and serves the callers in turn, so rtaudio's three answers come while
# much of the burst still waits; in arrival order, rtaudio's first call
# alone waits behind the whole burst (it took 0.9-1.05 times the burst's
# time before realtimed served callers in turn). The check is a ratio of two times
# measured in the same run (the victim's three calls against the burst's
# last answer), tried three times, two of which must hold.
#
# Then the close-at-once flood (issue 31): for 8 s, rtplain opens
# connections that each send 100 calls wanting no reply and close at once
# (fair-order --close-at-once: about 250 connections a second here), while
# rtaudio asks for fifo 1 every 200 ms. realtimed never learned those
# senders' uid, served every call in a turn of its own and spent two
# blocking bus round trips on each: rtaudio's grants waited seconds or got
# no answer at all, and realtimed was busy long after the flood. Each of
# rtaudio's 25 grants must be answered within 1 s, and realtimed's CPU time
# from the flood's start to 2 s after its end must stay below half of that
# time.

. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
FAIR=$TOP_BUILDDIR/tests/integration/fair-order
integ_require_cmd "$FAIR"
integ_setup
integ_start_daemon

held=0
for round in 1 2 3; do
	out=$("$FAIR" rtplain rtaudio 8 100 2>&1) || fail "fair-order failed: $out"
	victim=$(printf '%s\n' "$out" | sed -n 's/^victim .*ok=3 usec=\([0-9]*\)$/\1/p')
	burst=$(printf '%s\n' "$out" | sed -n 's/^flood calls=800 answered=800 usec=\([0-9]*\)$/\1/p')
	[ -n "$victim" ] && [ -n "$burst" ] || fail "fair-order's output is not whole: $out"
	note "round $round: rtaudio's 3 grants took $victim us, rtplain's 800-call burst $burst us (load $(cut -d' ' -f1 /proc/loadavg))"
	[ $((victim * 2)) -lt "$burst" ] && held=$((held + 1))
done
[ "$held" -ge 2 ] && ok "rtaudio's grants were answered within half of rtplain's burst ($held of 3 rounds)" ||
	fail "rtaudio's grants waited behind rtplain's burst in $((3 - held)) of 3 rounds"

# realtimed's CPU time so far, in clock ticks (utime + stime)
cpu_ticks()
{
	awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$DAEMON_PID/stat"
}
secs=8
cpu0=$(cpu_ticks)
t0=$(date +%s%N)
"$FAIR" --close-at-once rtplain rtaudio $secs 100 >"$WORK/close.out" 2>&1 &
fp=$!
integ_track $fp
sleep "$secs"
cpu_end=$(cpu_ticks)
sleep 2
cpu1=$(cpu_ticks)
t1=$(date +%s%N)
wait $fp || fail "fair-order --close-at-once failed: $(cat "$WORK/close.out")"
integ_untrack $fp
out=$(cat "$WORK/close.out")
note "close-at-once flood: $(echo $out) (load $(cut -d' ' -f1 /proc/loadavg))"
max=$(printf '%s\n' "$out" | sed -n 's/^victim calls=25 ok=25 max_usec=\([0-9]*\)$/\1/p')
if [ -n "$max" ] && [ "$max" -lt 1000000 ]; then
	ok "rtaudio's 25 grants during rtplain's close-at-once flood: each answered within 1 s (at most $max us)"
else
	fail "rtaudio's grants during rtplain's close-at-once flood: $(printf '%s\n' "$out" | grep -v '^flood')"
fi
# in milliseconds: the CPU time's ticks, and the wall time it is held to
cpu_ms=$(((cpu1 - cpu0) * 1000 / $(getconf CLK_TCK)))
wall_ms=$(((t1 - t0) / 1000000))
if [ $((cpu_ms * 2)) -lt "$wall_ms" ]; then
	ok "realtimed used $cpu_ms ms of CPU in the $wall_ms ms from the flood's start to 2 s after its end"
else
	fail "realtimed used $cpu_ms ms of CPU in the $wall_ms ms from the flood's start to 2 s after its end (more than half)"
fi
after_ms=$(((cpu1 - cpu_end) * 1000 / $(getconf CLK_TCK)))
note "of which $after_ms ms in the 2 s after the flood"
kill -0 "$DAEMON_PID" 2>/dev/null && ok "realtimed is still running" || fail "realtimed exited"
finish
