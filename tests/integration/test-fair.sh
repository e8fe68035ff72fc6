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
finish
