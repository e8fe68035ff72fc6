# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# A holder: rt-client hold, a process of a test user with sleeping threads
# that a test makes realtime, ends one by one, or ends.

# holder_start USER NTHREADS: start rt-client hold as USER with NTHREADS
# sleeping threads; sets HOLDER_PID, HOLDER_TIDS, and HOLDER_IN (fd 8 writes
# commands: "exit N" ends thread N (1-based), "quit" ends the process).
holder_start()
{
	rm -f "$WORK/holder.in" "$WORK/holder.out"
	mkfifo "$WORK/holder.in"
	chmod 666 "$WORK/holder.in"
	as_bg "$1" "$RT_CLIENT" hold "$2" <>"$WORK/holder.in" >"$WORK/holder.out" 2>&1
	HOLDER_PID=$!
	integ_track $HOLDER_PID
	# read-write: never blocks, and never sees a signal mid-open
	exec 8<>"$WORK/holder.in"
	wait_for 5 grep -q '^threads' "$WORK/holder.out" || { note "$(cat "$WORK/holder.out")"; fail "rt-client hold did not start"; return 1; }
	HOLDER_TIDS=$(sed -n 's/^threads //p' "$WORK/holder.out")
	_p=$(sed -n 's/^pid //p' "$WORK/holder.out")
	[ "$_p" = "$HOLDER_PID" ] || { fail "rt-client hold runs as pid $_p, not $HOLDER_PID"; return 1; }
	return 0
}

# holder_tid N: the tid of the holder's N-th extra thread
holder_tid()
{
	echo "$HOLDER_TIDS" | awk -v n="$1" '{ print $n }'
}

holder_stop()
{
	echo quit >&8 2>/dev/null
	exec 8>&-
	wait "$HOLDER_PID" 2>/dev/null
	integ_untrack "$HOLDER_PID"
}

