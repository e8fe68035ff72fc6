#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Who hears of a demotion. Demoted names pids and tids, which hidepid= keeps
# from other users, so it is never broadcast: the connection that asked for
# a grant gets its own threads, a caller of SubscribeDemoted (root or polkit
# org.realtimed.manage) every thread, and a client that only holds a match
# rule for Demoted nothing of other users' grants. Each listener is
# demoted-listen, one bus connection as an ordinary client has:
#   - rtaudio asks for rr 1 on a thread of its own, on its listening
#     connection (A);
#   - rtplain does the same (B), after SubscribeDemoted was refused to it;
#   - rtalice, whom the test's polkit rules give org.realtimed.manage,
#     subscribes (the watcher);
#   - root's dbus-monitor, as the other tests use it, sees every message.
# Each grant is reset; each owner hears of its own, never of the other's.
# At most 16 connections subscribe; one that leaves the bus frees its place.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
LISTEN=$TOP_BUILDDIR/tests/integration/demoted-listen
integ_require_cmd "$LISTEN" dbus-monitor
integ_setup
# rtplain's listener asks with the unlimited RLIMIT_RTTIME it starts with
integ_admin_conf <<-EOF
	[User rtplain]
	RTTime=infinity
EOF
integ_start_daemon

# listen NAME USER ARGS...: demoted-listen ARGS as USER, its lines in
# $WORK/NAME.out; waits until it is ready; its pid in LISTEN_PID.
listen()
{
	_n=$1 _u=$2
	shift 2
	as_bg "$_u" "$LISTEN" "$@" >"$WORK/$_n.out" 2>&1
	LISTEN_PID=$!
	integ_track "$LISTEN_PID"
	wait_for 20 grep -q '^ready' "$WORK/$_n.out" || fail "$_n is not ready: $(cat "$WORK/$_n.out")"
}

# heard NAME PID TID: NAME's listener printed a Demoted("reset") with them.
heard()
{
	grep -q "^demoted reset $2 $3\$" "$WORK/$1.out"
}

# expect_heard DESC NAME PID TID: within 3 s.
expect_heard()
{
	wait_for 3 heard "$2" "$3" "$4" && ok "$1" ||
		fail "$1: $2's listener did not hear of thread $4: $(cat "$WORK/$2.out")"
}

dbus-monitor --system "type='signal',interface='$NATIVE_IFACE',member='Demoted'" >"$WORK/monitor.out" 2>&1 &
integ_track $!
sleep 0.5

listen watcher rtalice --subscribe
grep -q '^subscribed$' "$WORK/watcher.out" && ok "rtalice (org.realtimed.manage) may SubscribeDemoted" ||
	fail "rtalice's SubscribeDemoted: $(cat "$WORK/watcher.out")"
listen a rtaudio --grant rr 1
# shellcheck disable=SC2046 # the line's fields
set -- $(grep '^granted ' "$WORK/a.out")
A_PID=$2 A_TID=$3
listen b rtplain --subscribe --grant rr 1
# shellcheck disable=SC2046 # the line's fields
set -- $(grep '^granted ' "$WORK/b.out")
B_PID=$2 B_TID=$3
[ -n "$A_TID" ] && [ -n "$B_TID" ] && ok "rtaudio's and rtplain's listeners hold grants ($A_TID, $B_TID)" ||
	fail "no grants: A: $(cat "$WORK/a.out") B: $(cat "$WORK/b.out")"
grep -q "^subscribe-error $NATIVE_ERR.PermissionDenied " "$WORK/b.out" &&
	ok "rtplain may not SubscribeDemoted: $(grep '^subscribe-error' "$WORK/b.out" | cut -c1-120)" ||
	fail "rtplain's SubscribeDemoted was not refused: $(cat "$WORK/b.out")"

out=$(native --as rtaudio ResetThread uint64:$A_PID uint64:$A_TID)
expect_success "ResetThread of rtaudio's thread $A_TID, from another connection" "$out"
expect_heard "the connection that asked for it hears of it" a "$A_PID" "$A_TID"
expect_heard "the watcher hears of it" watcher "$A_PID" "$A_TID"

out=$(native --as rtplain ResetThread uint64:$B_PID uint64:$B_TID)
expect_success "ResetThread of rtplain's thread $B_TID" "$out"
expect_heard "rtplain's listener hears of its own thread" b "$B_PID" "$B_TID"
expect_heard "the watcher hears of that one too" watcher "$B_PID" "$B_TID"
# Signals reach each connection in the order sent: by now A's would be there.
grep -q " $A_TID\$" "$WORK/b.out" &&
	fail "rtplain's match rule heard of rtaudio's thread: $(grep " $A_TID\$" "$WORK/b.out")" ||
	ok "rtplain's match rule hears nothing of rtaudio's thread $A_TID"
grep -q " $B_TID\$" "$WORK/a.out" &&
	fail "rtaudio's match rule heard of rtplain's thread: $(grep " $B_TID\$" "$WORK/a.out")" ||
	ok "rtaudio's match rule hears nothing of rtplain's thread $B_TID"
grep -q "uint64 $A_TID\$" "$WORK/monitor.out" && grep -q "uint64 $B_TID\$" "$WORK/monitor.out" &&
	ok "root's dbus-monitor sees both" || fail "dbus-monitor missed one: $(cat "$WORK/monitor.out")"

# --- at most 16 watchers; a watcher that leaves frees its place -----------
i=1
while [ $i -lt 16 ]; do
	listen "w$i" root --subscribe
	i=$((i + 1))
done
W15=$LISTEN_PID
n=$(cat "$WORK"/watcher.out "$WORK"/w[0-9]*.out | grep -c '^subscribed$')
[ "$n" = 16 ] && ok "16 connections subscribed" || fail "$n of 16 connections subscribed"
listen w16 root --subscribe
grep -q "^subscribe-error $NATIVE_ERR.LimitsExceeded " "$WORK/w16.out" &&
	ok "the 17th is refused: $(grep '^subscribe-error' "$WORK/w16.out" | cut -c1-120)" ||
	fail "the 17th subscription: $(cat "$WORK/w16.out")"
integ_stop "$W15"
listen w17 root --subscribe
# the bus tells realtimed of the name's end with a signal: allow it a moment
for _ in 1 2 3 4 5 6 7 8 9 10; do
	grep -q '^subscribed$' "$WORK/w17.out" && break
	integ_stop "$LISTEN_PID"
	sleep 0.2
	listen w17 root --subscribe
done
grep -q '^subscribed$' "$WORK/w17.out" && ok "a watcher that left the bus freed its place" ||
	fail "no place after a watcher left: $(cat "$WORK/w17.out")"

finish
