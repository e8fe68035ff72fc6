#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A grant is either supervised or undone, never left realtime and unwatched.
# After sched_setattr() realtimed reads the thread back; a thread may change
# its own scheduling in between (lower its priority, as any thread may).
# rt-client's audio thread does exactly that, the instant it turns
# SCHED_FIFO 50 it sets itself to SCHED_FIFO 40 and sleeps. Whatever the
# daemon answers, afterwards the thread is either in ListGrants (so the
# canary, the per-user caps and a reload cover it) or not realtime at all.
# The thread is realtime only while it sleeps: nothing here spins realtime.
# realtimed and the client share CPU 0, so the thread, once realtime,
# preempts the daemon and changes itself before the read-back, every time.
# Then a thread that drops to SCHED_OTHER the same way: that is nothing
# realtimed can supervise, so the request is refused and nothing is listed.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd taskset
integ_setup
integ_start_daemon
taskset -a -p -c 0 "$DAEMON_PID" >/dev/null || skip "cannot pin realtimed to CPU 0"

i=1
while [ $i -le 5 ]; do
	as_bg rtaudio taskset -c 0 "$RT_CLIENT" ask --policy fifo --prio 50 --lower 40 --hold 30 >"$WORK/ask.$i" 2>&1
	P=$!
	integ_track $P
	if ! wait_for 20 grep -qE '^(granted|refused)' "$WORK/ask.$i"; then
		fail "round $i: no answer: $(cat "$WORK/ask.$i")"
		i=$((i + 1))
		continue
	fi
	T=$(sed -n 's/.* on audio thread \([0-9]*\)$/\1/p' "$WORK/ask.$i")
	answer=$(grep -E '^(granted|refused)' "$WORK/ask.$i" | cut -c1-150)
	s=$(sched_name_of "$T")
	g=$(grant_of "$T")
	case "$s" in
	fifo* | rr*)
		if [ -n "$g" ]; then
			ok "round $i: thread $T runs $s and is supervised as '$g' ($answer)"
		else
			fail "round $i: thread $T runs $s but is in no table: realtime and unsupervised ($answer)"
		fi
		;;
	*)
		[ -z "$g" ] && ok "round $i: thread $T was put back to '$s' and is not listed ($answer)" ||
			fail "round $i: thread $T runs '$s' but ListGrants has '$g'"
		;;
	esac
	kill "$P"
	wait "$P" 2>/dev/null
	integ_untrack "$P"
	i=$((i + 1))
done

as_bg rtaudio taskset -c 0 "$RT_CLIENT" ask --policy fifo --prio 50 --lower 0 --hold 30 >"$WORK/drop" 2>&1
P=$!
integ_track $P
wait_for 20 grep -qE '^(granted|refused)' "$WORK/drop" || fail "no answer: $(cat "$WORK/drop")"
T=$(sed -n 's/.* on audio thread \([0-9]*\)$/\1/p' "$WORK/drop")
expect_error "a thread that left SCHED_FIFO right after its grant" "$NATIVE_ERR.Failed" \
	"does not hold fifo 50 .*runs other .*undone" "$(sed -n 's/^refused: \([^:]*\): /Error \1: /p' "$WORK/drop")"
expect_sched "it runs SCHED_OTHER" "$T" "other 0"
[ -z "$(grant_of "$T")" ] && ok "and is not listed" || fail "thread $T is listed: $(grant_of "$T")"
kill "$P"
wait "$P" 2>/dev/null
integ_untrack "$P"

finish
