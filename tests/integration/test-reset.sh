#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ResetThread and ResetProcess undo only what realtimed granted, and never
# raise a thread: a granted thread goes back to the scheduling it had
# before the grant (its nice level, SCHED_IDLE, SCHED_BATCH), and a thread
# realtimed never granted is left as it is, with the error NoSuchGrant. The
# caller is rtalice, whose policy says Nice=19: nothing may make her
# threads run at a better nice level than the one they chose.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd chrt renice dbus-monitor
integ_setup
integ_admin_conf <<-EOF
	[User rtalice]
	Nice=19
EOF
integ_start_daemon

# expect_nice DESC TID NICE
expect_nice()
{
	_n=$(nice_of "$2")
	[ "$_n" = "$3" ] && ok "$1 (thread $2 at nice $_n)" || fail "$1: thread $2 at nice '$_n', expected $3"
}

holder_start rtalice 6 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
T3=$(holder_tid 3)
T4=$(holder_tid 4)
T5=$(holder_tid 5)
T6=$(holder_tid 6)

dbus-monitor --system "type='signal',interface='$NATIVE_IFACE',member='Demoted'" >"$WORK/monitor.out" 2>&1 &
integ_track $!
sleep 0.5

# The thread chose these itself (root stands in for it here).
renice -n 19 -p "$T1" >/dev/null
chrt -i -p 0 "$T2"
renice -n 19 -p "$T3" >/dev/null
chrt -i -p 0 "$T4"
renice -n 5 -p "$T5" >/dev/null
chrt -b -p 0 "$T6"
renice -n 7 -p "$T6" >/dev/null

# --- threads realtimed never granted are left alone ---------------------
out=$(native --as rtalice ResetThread uint64:$HOLDER_PID uint64:$T1)
expect_error "ResetThread of a nice-19 thread without a grant" "$NATIVE_ERR.NoSuchGrant" \
	"thread $T1 .*no grant" "$out"
expect_nice "the nice-19 thread stays at nice 19" "$T1" 19
out=$(native --as rtalice ResetThread uint64:$HOLDER_PID uint64:$T2)
expect_error "ResetThread of a SCHED_IDLE thread without a grant" "$NATIVE_ERR.NoSuchGrant" \
	"thread $T2 .*no grant" "$out"
expect_sched "the SCHED_IDLE thread stays SCHED_IDLE" "$T2" "idle 0"
out=$(native --as rtalice ResetProcess uint64:$HOLDER_PID)
expect_error "ResetProcess of a process without grants" "$NATIVE_ERR.NoSuchGrant" \
	"process $HOLDER_PID .*no grant" "$out"
expect_nice "ResetProcess left the nice-19 thread alone" "$T1" 19
expect_sched "ResetProcess left the SCHED_IDLE thread alone" "$T2" "idle 0"

# --- a granted thread goes back to where it was before the grant --------
out=$(native --as rtalice MakeThreadRealtime uint64:$HOLDER_PID uint64:$T3 string:fifo uint32:10)
expect_success "fifo 10 on the nice-19 thread $T3" "$out"
expect_sched "the kernel shows the grant" "$T3" "fifo 10"
out=$(native --as rtalice ResetThread uint64:$HOLDER_PID uint64:$T3)
expect_success "ResetThread of the granted thread $T3" "$out"
expect_sched "thread $T3 is SCHED_OTHER again" "$T3" "other 0"
expect_nice "thread $T3 is back at its own nice 19, not 0" "$T3" 19
[ -z "$(grant_of "$T3")" ] && ok "thread $T3 left ListGrants" || fail "thread $T3 is still listed after its reset"

out=$(native --as rtalice MakeThreadRealtime uint64:$HOLDER_PID uint64:$T4 string:rr uint32:10)
expect_success "rr 10 on the SCHED_IDLE thread $T4" "$out"
out=$(native --as rtalice MakeThreadRealtime uint64:$HOLDER_PID uint64:$T4 string:fifo uint32:20)
expect_success "then fifo 20 on the same thread (the grant is updated)" "$out"
expect_sched "the kernel shows fifo 20" "$T4" "fifo 20"
out=$(native --as rtalice MakeThreadHighPriority uint64:$HOLDER_PID uint64:$T5 int32:19)
expect_success "nice 19 on the nice-5 thread $T5" "$out"
expect_nice "the kernel shows nice 19" "$T5" 19
out=$(native --as rtalice MakeThreadRealtime uint64:$HOLDER_PID uint64:$T6 string:fifo uint32:30)
expect_success "fifo 30 on the SCHED_BATCH nice-7 thread $T6" "$out"
out=$(native --as rtalice ResetProcess uint64:$HOLDER_PID)
expect_success "ResetProcess of the process with three grants" "$out"
expect_sched "thread $T4 is SCHED_IDLE again, as before its first grant" "$T4" "idle 0"
expect_nice "thread $T5 keeps nice 19: a reset never raises a thread" "$T5" 19
expect_sched "thread $T6 is SCHED_BATCH again" "$T6" "batch 0"
expect_nice "thread $T6 is back at nice 7" "$T6" 7
expect_demoted "Demoted signals with reason \"reset\" name the reset threads" "$WORK/monitor.out" reset \
	"$T4" "$T6"
grep -q "uint64 $T1\$" "$WORK/monitor.out" && fail "Demoted names thread $T1, which held no grant" ||
	ok "Demoted names no thread that held no grant"

# Once every grant of the process is undone, a ResetProcess resets nothing:
# it must say so, not answer success.
out=$(native --as rtalice ResetProcess uint64:$HOLDER_PID)
expect_error "a second ResetProcess of the process" "$NATIVE_ERR.NoSuchGrant" \
	"process $HOLDER_PID .*no grant" "$out"
expect_sched "it left thread $T4 as it was" "$T4" "idle 0"

out=$(native --as rtalice ResetThread uint64:$HOLDER_PID uint64:$T3)
expect_error "a second ResetThread of thread $T3" "$NATIVE_ERR.NoSuchGrant" "thread $T3" "$out"

holder_stop
finish
