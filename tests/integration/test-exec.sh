#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A grant ends when its thread ends, and a thread that calls execve() has
# not ended: the kernel makes it the new program's main thread, still
# realtime (with SCHED_RESET_ON_FORK). realtimed keeps supervising it under
# the same grant, as the process's main thread:
#   - ListGrants lists the main thread, not the old tid;
#   - it counts against ProcessesPerUserMax=1, so another process of the
#     user is refused;
#   - ResetProcess puts it back;
#   - a reload whose policy no longer allows it demotes it ("policy");
#   - a nice grant follows the same way;
#   - a restart adopts it, the exec having happened while realtimed was
#     away;
#   - an exec that races the grant's own check after the change: the
#     grant follows, or is undone on the main thread;
#   - a program under realtimectl run --threads whose granted thread execs
#     another keeps the grant, supervised.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd dbus-monitor
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_require_preload
PROBE=$TOP_BUILDDIR/tests/integration/preload-probe
[ -x "$PROBE" ] || skip "preload-probe is not built ($PROBE)"
integ_setup
integ_admin_conf <<-EOF
	[Daemon]
	ProcessesPerUserMax=1
EOF
integ_start_daemon

# exec_thread N: the holder's thread N calls execve(sleep 300); waits until
# the process runs sleep.
exec_thread()
{
	echo "exec $1 sleep 300" >&8
	wait_for 5 grep -q "^Name:[[:space:]]*sleep" "/proc/$HOLDER_PID/status" ||
		fail "holder thread $1 did not exec sleep: $(cat "$WORK/holder.out")"
	exec 8>&-
}

# followed DESC PID "KIND VALUE": within 2 s, ListGrants lists PID's main
# thread with that grant
followed()
{
	_i=0
	while [ $_i -lt 20 ] && [ "$(grant_of "$2")" != "$3" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_g=$(grant_of "$2")
	[ "$_g" = "$3" ] && ok "$1 (ListGrants: main thread $2, $_g)" ||
		fail "$1: ListGrants has '$_g' for main thread $2, expected '$3': $(native ListGrants | tr -s ' \n' ' ')"
}

stop_holder()
{
	kill "$HOLDER_PID" 2>/dev/null
	wait "$HOLDER_PID" 2>/dev/null
	integ_untrack "$HOLDER_PID"
}

# --- 1. the grant follows the exec ---
holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:10)
expect_success "fifo 10 on thread $T1 (not the main one)" "$out"
exec_thread 1
expect_sched "after execve() the new program's main thread runs the grant" "$HOLDER_PID" "fifo 10"
followed "the grant follows the thread that exec'ed" "$HOLDER_PID" "fifo 10"
[ -z "$(grant_of "$T1")" ] && ok "the old tid $T1 is not listed" ||
	fail "the old tid $T1 is still listed: $(grant_of "$T1")"

out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 20 2>&1)
expect_error "the exec'ed process still counts: another process with ProcessesPerUserMax=1" \
	"$NATIVE_ERR.LimitsExceeded" "ProcessesPerUserMax=1" \
	"$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

out=$(native --as rtaudio ResetProcess uint64:$HOLDER_PID)
expect_success "ResetProcess of the exec'ed process" "$out"
expect_sched "the reset put the exec'ed thread back" "$HOLDER_PID" "other 0"
stop_holder

# --- 2. a reload that no longer allows it demotes it ---
holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:10)
expect_success "fifo 10 on thread $T1" "$out"
exec_thread 1
followed "the grant follows the exec" "$HOLDER_PID" "fifo 10"
dbus-monitor --system "type='signal',interface='$NATIVE_IFACE',member='Demoted'" >"$WORK/monitor.out" 2>&1 &
MON=$!
integ_track $MON
sleep 0.5
cp "$WORK/admin.conf" "$WORK/admin.conf.keep"
printf '[Group audio]\nPolicies=rr\nRealtimePriority=1\n' >>"$WORK/admin.conf"
out=$(native Reload)
expect_success "Reload allowing only rr 1" "$out"
wait_for 3 sh -c "[ \"\$(sed 's/^.*) //' /proc/$HOLDER_PID/stat | awk '{ print \$39 }')\" = 0 ]"
expect_sched "the reload demoted the exec'ed thread" "$HOLDER_PID" "other 0"
expect_demoted "Demoted(policy) names the main thread" "$WORK/monitor.out" policy "$HOLDER_PID"
kill $MON
integ_untrack $MON
cp "$WORK/admin.conf.keep" "$WORK/admin.conf"
out=$(native Reload)
expect_success "Reload back" "$out"
stop_holder

# --- 3. a nice grant follows the same way ---
holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
out=$(native --as rtaudio MakeThreadHighPriority uint64:$HOLDER_PID uint64:$T1 int32:-7)
expect_success "nice -7 on thread $T1" "$out"
exec_thread 1
[ "$(nice_of "$HOLDER_PID")" = -7 ] && ok "the exec'ed main thread runs nice -7" ||
	fail "the exec'ed main thread runs nice $(nice_of "$HOLDER_PID")"
followed "the nice grant follows the exec" "$HOLDER_PID" "nice -7"
out=$(native --as rtaudio ResetProcess uint64:$HOLDER_PID)
expect_success "ResetProcess" "$out"
[ "$(nice_of "$HOLDER_PID")" = 0 ] && ok "the reset put nice 0 back" ||
	fail "after the reset the main thread runs nice $(nice_of "$HOLDER_PID")"
stop_holder

# --- 4. an exec while realtimed is away: adopted as the main thread ---
holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:12)
expect_success "fifo 12 on thread $T1" "$out"
integ_stop_daemon TERM
exec_thread 1
expect_sched "the exec while realtimed is stopped keeps fifo 12" "$HOLDER_PID" "fifo 12"
integ_start_daemon
followed "the restarted daemon adopts the exec'ed thread" "$HOLDER_PID" "fifo 12"
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 20 2>&1)
expect_error "and counts it: another process with ProcessesPerUserMax=1" \
	"$NATIVE_ERR.LimitsExceeded" "ProcessesPerUserMax=1" \
	"$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"
stop_holder

# --- 5. the exec races the grant's own check ---
# The thread spins until it sees itself realtime and execs at once, so the
# exec may land between realtimed's change and its check after it: the
# grant follows the exec, or is undone on the main thread; never realtime
# unsupervised.
i=0
raced=0
bad=0
while [ $i -lt 10 ]; do
	holder_start rtaudio 1 || finish
	T1=$(holder_tid 1)
	echo "race-exec 1 sleep 300" >&8
	wait_for 5 grep -q '^racing' "$WORK/holder.out" || fail "holder did not race: $(cat "$WORK/holder.out")"
	out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:10)
	wait_for 5 grep -q "^Name:[[:space:]]*sleep" "/proc/$HOLDER_PID/status" ||
		fail "the racing thread did not exec: $(cat "$WORK/holder.out")"
	exec 8>&-
	s=$(sched_name_of "$HOLDER_PID")
	g=$(grant_of "$HOLDER_PID")
	# a grant that follows may take a moment
	[ "$s" = "fifo 10" ] && [ -z "$g" ] && sleep 0.5 && g=$(grant_of "$HOLDER_PID")
	case "$s:$g" in
	"fifo 10:fifo 10") ;;
	"other 0:") raced=$((raced + 1)) ;;
	*)
		bad=$((bad + 1))
		fail "round $i: the exec'ed thread runs '$s', ListGrants has '$g' ($(echo "$out" | head -n 1))"
		;;
	esac
	stop_holder
	i=$((i + 1))
done
[ $bad = 0 ] && ok "10 grants raced by an exec: each followed to the main thread or undone ($raced undone)"

# --- 6. under realtimectl run --threads ---
as_bg rtaudio "$REALTIMECTL" run --threads -- "$PROBE" exec 20 >"$WORK/probe.out" 2>&1
PROBE_PID=$!
integ_track $PROBE_PID
wait_for 5 grep -q '^held' "$WORK/probe.out" || fail "preload-probe exec: $(cat "$WORK/probe.out")"
P=$(sed -n 's/^pid //p' "$WORK/probe.out")
grep -q '^ok .*a thread got SCHED_FIFO 20' "$WORK/probe.out" &&
	ok "under the preload, a thread got SCHED_FIFO 20 from realtimed" ||
	fail "preload-probe: $(cat "$WORK/probe.out")"
grep -q '^ok .*exec.ed, as its main thread' "$WORK/probe.out" &&
	ok "the program it exec'ed runs fifo 20 as its main thread" ||
	fail "preload-probe exec-held: $(cat "$WORK/probe.out")"
followed "and is supervised under the same grant" "$P" "fifo 20"
kill "$PROBE_PID" 2>/dev/null
wait "$PROBE_PID" 2>/dev/null
integ_untrack "$PROBE_PID"

finish
