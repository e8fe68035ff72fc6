#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Supervision of grants: a thread that exits loses its grant (and leaves
# ListGrants) at once; a restarted daemon adopts the grants whose threads
# still live and supervises them again, and forgets those that died while it
# was away; per-user caps (ThreadsPerUserMax, ProcessesPerUserMax) and the
# rate limit (ActionsPerBurst in BurstSec) refuse with LimitsExceeded and
# RateLimited; a reload that lowers the limit demotes with a Demoted signal
# whose reason is "policy".

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd dbus-monitor
integ_setup
integ_admin_conf <<-EOF
	[Daemon]
	ThreadsPerUserMax=3
	ProcessesPerUserMax=2
	BurstSec=60
	ActionsPerBurst=12
EOF
integ_start_daemon

listed()
{
	native ListGrants | grep -q "uint64 $1\$"
}

# gone TID: wait up to 2 s until TID leaves ListGrants
gone()
{
	wait_for 2 sh -c "! dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
		$NATIVE_IFACE.ListGrants | grep -q 'uint64 $1\$'"
}

holder_start rtaudio 4 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
T3=$(holder_tid 3)
T4=$(holder_tid 4)

out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:50)
expect_success "fifo 50 on thread $T1" "$out"
listed "$T1" && ok "thread $T1 is listed" || fail "thread $T1 is not in ListGrants"
echo "exit 1" >&8
wait_for 5 grep -q '^exited 1' "$WORK/holder.out" || fail "holder thread 1 did not exit"
gone "$T1" && ok "thread $T1 exited: its grant left ListGrants within 2 s" ||
	fail "thread $T1 exited but is still listed"

# per-user caps: ThreadsPerUserMax=3
native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T2 string:fifo uint32:55 >/dev/null
native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T3 string:fifo uint32:56 >/dev/null
native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$HOLDER_PID string:rr uint32:5 >/dev/null
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T4 string:fifo uint32:57)
expect_error "a 4th thread with ThreadsPerUserMax=3" "$NATIVE_ERR.LimitsExceeded" "ThreadsPerUserMax=3" "$out"
expect_sched "the refused thread stays SCHED_OTHER" "$T4" "other 0"
out=$(native --as rtaudio ResetThread uint64:$HOLDER_PID uint64:$HOLDER_PID)
expect_success "reset the main thread to make room" "$out"

# ProcessesPerUserMax=2: the holder is one process; a second is fine, a third is not
as_bg rtaudio "$RT_CLIENT" ask --policy fifo --prio 20 --hold 20 >"$WORK/p2.out" 2>&1
P2=$!
integ_track $P2
wait_for 5 grep -q '^granted' "$WORK/p2.out" && ok "a second process of rtaudio is granted" ||
	fail "second process: $(cat "$WORK/p2.out")"
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 21 2>&1)
expect_error "a third process with ProcessesPerUserMax=2" "$NATIVE_ERR.LimitsExceeded" "ProcessesPerUserMax=2" \
	"$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"
kill $P2
wait $P2 2>/dev/null
integ_untrack $P2

# restart: adopt live grants, forget dead ones
expect_sched "before the restart" "$T2" "fifo 55"
integ_stop_daemon TERM
[ "$DAEMON_RC" = 0 ] && ok "realtimed exits 0 on SIGTERM" || fail "realtimed exited $DAEMON_RC on SIGTERM"
expect_sched "a daemon stop leaves the granted thread alone (to be adopted)" "$T2" "fifo 55"
echo "exit 3" >&8
wait_for 5 grep -q '^exited 3' "$WORK/holder.out" || fail "holder thread 3 did not exit"
integ_start_daemon
listed "$T2" && ok "the restarted daemon adopted the live grant of thread $T2" ||
	fail "thread $T2 was not adopted: $(native ListGrants)"
listed "$T3" && fail "thread $T3 died while the daemon was down but was adopted" ||
	ok "thread $T3, which died meanwhile, was not adopted"
echo "exit 2" >&8
wait_for 5 grep -q '^exited 2' "$WORK/holder.out" || fail "holder thread 2 did not exit"
gone "$T2" && ok "the adopted grant is supervised: it left when thread $T2 exited" ||
	fail "the adopted thread $T2 exited but is still listed"

# a reload that lowers the audio limit demotes with reason "policy"
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T4 string:fifo uint32:60)
expect_success "fifo 60 on thread $T4" "$out"
dbus-monitor --system "type='signal',interface='$NATIVE_IFACE',member='Demoted'" >"$WORK/monitor.out" 2>&1 &
MON=$!
integ_track $MON
sleep 0.5
printf '[Group audio]\nRealtimePriority=50\n' >>"$WORK/admin.conf"
out=$(native Reload)
expect_success "Reload with [Group audio] RealtimePriority=50" "$out"
wait_for 3 sh -c "[ \"\$(sed 's/^.*) //' /proc/$T4/stat | awk '{ print \$39 }')\" = 0 ]"
expect_sched "thread $T4 (fifo 60) demoted by the reload" "$T4" "other 0"
if wait_for 3 grep -q '"policy"' "$WORK/monitor.out" && grep -q "uint64 $T4" "$WORK/monitor.out"; then
	ok "Demoted signal with thread $T4 and reason \"policy\""
else
	fail "no Demoted(policy) signal for $T4: $(cat "$WORK/monitor.out")"
fi
kill $MON
integ_untrack $MON
holder_stop

# rate limit: ActionsPerBurst=12 in BurstSec=60, counted per user (rtalice)
n_ok=0
n_rl=0
i=0
last=""
while [ $i -lt 16 ]; do
	out=$(native --as rtalice MakeThreadHighPriority uint64:0 uint64:0 int32:-1)
	if echo "$out" | grep -q "^Error $NATIVE_ERR.RateLimited"; then
		n_rl=$((n_rl + 1))
		last=$out
	elif ! echo "$out" | grep -q '^Error'; then
		n_ok=$((n_ok + 1))
	else
		last=$out
	fi
	i=$((i + 1))
done
[ $n_ok = 12 ] && [ $n_rl = 4 ] &&
	ok "rate limit: 12 of 16 requests served, 4 RateLimited ($(echo "$last" | head -n 1 | cut -c1-100))" ||
	fail "rate limit: $n_ok served, $n_rl RateLimited of 16 (want 12 and 4): $last"
out=$(native --as rtaudio MakeThreadHighPriority uint64:0 uint64:0 int32:-1)
expect_success "another user is not rate limited by rtalice's burst" "$out"

finish
