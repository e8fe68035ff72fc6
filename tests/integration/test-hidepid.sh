#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What realtimed tells a caller about a pid that names none of its
# processes: no more than /proc mounted with hidepid=invisible does. A test
# user asks, by every method that names a target, for another user's
# process, for a pid that does not exist, and for a thread id of another
# user's process (as the pid, and as the tid of a process of its own): the
# answers are alike, error name and text (the pid named aside), and name
# no uid. A private /proc with hidepid=invisible in the test's namespace
# shows that it hides all of them from that user alike. What the caller
# may know of its own processes is still said in full, and root's answers
# keep their detail.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup
integ_start_daemon

holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
# a pid that does not exist: a process that ended
as_bg rtaudio sleep 30
DEAD=$!
kill "$DEAD"
wait "$DEAD" 2>/dev/null
# rtplain's own process
as_bg rtplain sleep 60
OWN=$!
integ_track "$OWN"

# --- what /proc with hidepid=invisible shows rtplain ----------------------
mkdir "$WORK/proc"
if mount -t proc -o hidepid=invisible proc "$WORK/proc" 2>/dev/null; then
	took_path hidepid-proc
	for p in "$HOLDER_PID" "$DEAD" "$T1"; do
		run_as rtplain test -e "$WORK/proc/$p" && seen=yes || seen=no
		check_eq "hidepid=invisible: /proc/$p is not there for rtplain" no "$seen"
	done
	run_as rtplain test -e "$WORK/proc/$OWN" && seen=yes || seen=no
	check_eq "hidepid=invisible: rtplain's own /proc/$OWN is there" yes "$seen"
	run_as rtaudio test -e "$WORK/proc/$HOLDER_PID" && seen=yes || seen=no
	check_eq "hidepid=invisible: rtaudio sees its own /proc/$HOLDER_PID" yes "$seen"
else
	note "no procfs with hidepid=invisible can be mounted here: the answers are compared directly"
fi

# answer PID TID OUTPUT: the error line of a dbus-send reply, with the pid
# and tid named replaced by PID and TID
answer()
{
	printf '%s\n' "$3" | grep -m 1 '^Error ' | sed -e "s/\b$1\b/PID/g" -e "s/\b$2\b/TID/g"
}

# ask METHOD PID TID: rtplain's call of METHOD on the native interface
ask()
{
	case $1 in
	MakeThreadRealtime) native --as rtplain "$1" uint64:"$2" uint64:"$3" string:rr uint32:5 ;;
	MakeThreadHighPriority) native --as rtplain "$1" uint64:"$2" uint64:"$3" int32:-5 ;;
	ResetThread) native --as rtplain "$1" uint64:"$2" uint64:"$3" ;;
	GrantLimits | ResetProcess) native --as rtplain "$1" uint64:"$2" ;;
	MakeThreadRealtimeWithPID) rtkit --as rtplain "$1" uint64:"$2" uint64:"$3" uint32:5 ;;
	esac
}

methods="MakeThreadRealtime MakeThreadHighPriority ResetThread GrantLimits ResetProcess"
if name_has_owner "$RTKIT_NAME"; then
	methods="$methods MakeThreadRealtimeWithPID"
fi
# pid/tid pairs: another user's process (its main thread, its other thread),
# none, a thread id of another user's process as the pid, and an existing
# process of another user with a tid that exists nowhere
targets="$HOLDER_PID/0 $HOLDER_PID/$T1 $DEAD/0 $DEAD/$DEAD $T1/0 $T1/$T1 $HOLDER_PID/$DEAD"
for m in $methods; do
	first=""
	same=yes
	for t in $targets; do
		pid=${t%/*} tid=${t#*/}
		a=$(answer "$pid" "$tid" "$(ask "$m" "$pid" "$tid")")
		if [ -z "$a" ]; then
			fail "$m $pid/$tid as rtplain: not refused"
			same=no
			continue
		fi
		printf '%s\n' "$a" | grep -qiE "uid [0-9]|\b$UID_AUDIO\b" &&
			fail "$m $pid/$tid as rtplain: the answer names a uid: $a"
		if [ -z "$first" ]; then
			first=$a
		elif [ "$a" != "$first" ]; then
			fail "$m $pid/$tid as rtplain: '$a', unlike $targets's first: '$first'"
			same=no
		fi
	done
	[ $same = yes ] && ok "$m: one answer for another user's process, a pid that does not exist and a thread id ($first)"
done
case $first in
"Error $NATIVE_ERR.PermissionDenied:"* | "Error org.freedesktop.DBus.Error.AccessDenied:"*)
	ok "the one answer is a refusal: not the caller's" ;;
*) fail "the one answer: $first" ;;
esac

# a tid that is another user's thread, and one that exists nowhere, named
# with rtplain's own process: alike too
a=$(answer "$OWN" "$T1" "$(ask MakeThreadRealtime "$OWN" "$T1")")
b=$(answer "$OWN" "$DEAD" "$(ask MakeThreadRealtime "$OWN" "$DEAD")")
check_eq "another user's thread as the tid of rtplain's own process: answered as a tid that exists nowhere" "$b" "$a"
expect_error "rtplain may be told a tid is no thread of its own process" "$NATIVE_ERR.NoSuchProcess" \
	"thread $T1 is not a thread of process $OWN" "$(ask MakeThreadRealtime "$OWN" "$T1")"

# --- root keeps the detail ---------------------------------------------------
out=$(native MakeThreadRealtime uint64:"$DEAD" uint64:0 string:rr uint32:5)
expect_error "root is told the pid does not exist" "$NATIVE_ERR.NoSuchProcess" "process $DEAD does not exist" "$out"
out=$(native MakeThreadRealtime uint64:"$T1" uint64:0 string:rr uint32:5)
expect_error "root is told a thread id is not a process" "$NATIVE_ERR.NoSuchProcess" "$T1 is not a process" "$out"

# --- and the refusals rtplain finds later say no more ----------------------
out=$(run_as rtplain "$REALTIMECTL" status --refused 2>&1)
if printf '%s\n' "$out" | grep -qiE "uid $UID_AUDIO|belongs to|does not exist|not a process"; then
	fail "rtplain's refusals tell of rtaudio's processes: $out"
else
	ok "rtplain's list of refusals tells nothing of them either"
fi

expect_sched "rtaudio's threads are untouched" "$T1" "other 0"
holder_stop
finish
