#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Credentials are per thread. realtimed acts on a thread only when its own
# real, effective and saved uid are all the caller's (the kernel's rule for
# one task acting on another), and the process's as well (its main thread,
# the one prlimit() judges for GrantLimits). The test processes are root's
# rt-client hold, whose threads switch uid one by one with the raw
# setresuid system call (glibc would switch them all):
#   A. the main thread runs as rtaudio, a worker stays root: rtaudio gets
#      nothing on the worker (before: SCHED_FIFO 50 on a uid-0 thread);
#   B. every thread has rtaudio's real and effective uid but root's saved
#      uid (a setuid program between two privileged steps): nothing;
#   C. the main thread stays root, a worker runs as rtaudio: nothing.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup
integ_start_daemon

# root_holder NAME ARGS...: rt-client hold ARGS as root; sets RH_PID and
# RH_TIDS (its extra threads)
root_holder()
{
	_n=$1
	shift
	rm -f "$WORK/$_n.in"
	mkfifo "$WORK/$_n.in"
	"$RT_CLIENT" hold "$@" <>"$WORK/$_n.in" >"$WORK/$_n.out" 2>&1 &
	RH_PID=$!
	integ_track $RH_PID
	wait_for 5 grep -q '^threads' "$WORK/$_n.out" ||
		{ fail "rt-client hold $* did not start: $(cat "$WORK/$_n.out")"; return 1; }
	RH_TIDS=$(sed -n 's/^threads //p' "$WORK/$_n.out")
}

# uids_of PID [TID]: "R E S" from the Uid: line of the process or thread
uids_of()
{
	awk '/^Uid:/ { print $2, $3, $4 }' "/proc/$1${2:+/task/$2}/status"
}

A=$UID_AUDIO

# --- A: main thread rtaudio's, worker root's --------------------------------
root_holder a 1 --main-uids $A:$A:$A || finish
P=$RH_PID
W=$RH_TIDS
[ "$(uids_of "$P")" = "$A $A $A" ] && [ "$(uids_of "$P" "$W")" = "0 0 0" ] &&
	ok "process $P: main thread runs as uid $A, worker $W as uid 0" ||
	fail "process $P: main $(uids_of "$P"), worker $(uids_of "$P" "$W")"
out=$(native --as rtaudio MakeThreadRealtime uint64:$P uint64:$W string:fifo uint32:50)
expect_error "rtaudio asking SCHED_FIFO for the uid-0 worker" "$NATIVE_ERR.PermissionDenied" \
	"thread $W of process $P runs with a real, effective or saved uid that is not the caller's" "$out"
printf '%s\n' "$out" | grep -q "uid 0" && fail "the refusal says the worker runs as uid 0: $out" ||
	ok "the refusal does not say whose the worker is"
expect_sched "the uid-0 worker stays SCHED_OTHER" "$W" "other 0"
out=$(native --as rtaudio MakeThreadHighPriority uint64:$P uint64:$W int32:-10)
expect_error "rtaudio asking nice -10 for the uid-0 worker" "$NATIVE_ERR.PermissionDenied" \
	"thread $W .*not the caller's" "$out"
[ "$(nice_of "$W")" = 0 ] && ok "the uid-0 worker stays at nice 0" || fail "worker $W at nice $(nice_of "$W")"
out=$(native --as rtaudio ResetThread uint64:$P uint64:$W)
expect_error "rtaudio resetting the uid-0 worker" "$NATIVE_ERR.PermissionDenied" "thread $W .*not the caller's" "$out"
out=$(native --as rtaudio MakeThreadRealtime uint64:$P uint64:$P string:fifo uint32:50)
expect_success "the main thread, rtaudio's through and through, may be granted" "$out"
expect_sched "the main thread runs fifo 50" "$P" "fifo 50"
out=$(native --as rtaudio ResetThread uint64:$P uint64:$P)
expect_success "and reset" "$out"

# --- B: every thread's saved uid is root's -----------------------------------
root_holder b 1 --main-uids $A:$A:0 --uids $A:$A:0 || finish
P=$RH_PID
W=$RH_TIDS
[ "$(uids_of "$P" "$W")" = "$A $A 0" ] && ok "process $P: real and effective uid $A, saved uid 0" ||
	fail "process $P: worker $(uids_of "$P" "$W")"
out=$(native --as rtaudio MakeThreadRealtime uint64:$P uint64:$W string:fifo uint32:50)
expect_error "rtaudio asking SCHED_FIFO for a thread with saved uid 0" "$NATIVE_ERR.PermissionDenied" \
	"pid $P names no process of the caller" "$out"
expect_sched "that thread stays SCHED_OTHER" "$W" "other 0"
out=$(native --as rtaudio GrantLimits uint64:$P)
expect_error "rtaudio's GrantLimits on a process with saved uid 0" "$NATIVE_ERR.PermissionDenied" \
	"pid $P names no process of the caller" "$out"
out=$(native --as rtaudio ResetProcess uint64:$P)
expect_error "rtaudio's ResetProcess on it" "$NATIVE_ERR.PermissionDenied" "pid $P names no process of the caller" "$out"

# --- C: main thread root's, worker rtaudio's ---------------------------------
root_holder c 1 --uids $A:$A:$A || finish
P=$RH_PID
W=$RH_TIDS
out=$(native --as rtaudio MakeThreadRealtime uint64:$P uint64:$W string:fifo uint32:50)
expect_error "rtaudio asking SCHED_FIFO for its own-uid worker of root's process" \
	"$NATIVE_ERR.PermissionDenied" "pid $P names no process of the caller" "$out"
expect_sched "that worker stays SCHED_OTHER" "$W" "other 0"

finish
