#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A reused pid never inherits a grant. The whole private world (bus, polkitd,
# realtimed, clients) runs in its own pid namespace, where root may choose
# the next pid through /proc/sys/kernel/ns_last_pid without touching the
# host's. Two cases:
#   - live: a granted process exits and a new process of the same user gets
#     its pid; the new one is not listed and stays SCHED_OTHER;
#   - restart: realtimed is stopped with a grant in its state file, the
#     process exits, its pid is reused, and the restarted daemon does not
#     adopt the newcomer (the start time differs).

INTEG_PIDNS=1
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
[ -w /proc/sys/kernel/ns_last_pid ] || skip "no writable /proc/sys/kernel/ns_last_pid in the pid namespace"
integ_setup
integ_start_daemon

listed()
{
	native ListGrants | grep -q "uint64 $1\$"
}

# respawn_at PID: start "sleep 300" as rtaudio with exactly PID; sets NEW
respawn_at()
{
	_try=0
	while [ $_try -lt 20 ]; do
		echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid
		as_bg rtaudio sleep 300
		NEW=$!
		integ_track $NEW
		[ "$NEW" = "$1" ] && return 0
		kill "$NEW"
		wait "$NEW" 2>/dev/null
		integ_untrack "$NEW"
		_try=$((_try + 1))
	done
	return 1
}

# live reuse
as_bg rtaudio sleep 300
A=$!
integ_track $A
out=$(native --as rtaudio MakeThreadRealtime uint64:$A uint64:$A string:fifo uint32:30)
expect_success "fifo 30 on process $A" "$out"
listed "$A" && ok "process $A is listed" || fail "process $A is not listed"
kill "$A"
wait "$A" 2>/dev/null
integ_untrack "$A"
if respawn_at "$A"; then
	ok "a new process of rtaudio got the same pid $A"
	expect_sched "the newcomer with the reused pid is not realtime" "$A" "other 0"
	listed "$A" && fail "the reused pid $A is listed as granted" ||
		ok "the reused pid $A is not listed"
	kill "$NEW"
	wait "$NEW" 2>/dev/null
	integ_untrack "$NEW"
else
	fail "could not get pid $A again through ns_last_pid"
fi

# reuse while the daemon is down
as_bg rtaudio sleep 300
B=$!
integ_track $B
out=$(native --as rtaudio MakeThreadRealtime uint64:$B uint64:$B string:fifo uint32:31)
expect_success "fifo 31 on process $B" "$out"
integ_stop_daemon TERM
expect_sched "the grant outlives the daemon's stop" "$B" "fifo 31"
kill "$B"
wait "$B" 2>/dev/null
integ_untrack "$B"
if respawn_at "$B"; then
	ok "while realtimed was down, a new process got pid $B"
	integ_start_daemon
	listed "$B" && fail "the restarted daemon adopted the newcomer with the reused pid $B" ||
		ok "the restarted daemon did not adopt the newcomer with pid $B (start time differs)"
	expect_sched "the newcomer is not realtime" "$B" "other 0"
	out=$(native --as rtaudio MakeThreadRealtime uint64:$B uint64:$B string:fifo uint32:32)
	expect_success "the newcomer may be granted on its own" "$out"
	listed "$B" && ok "and is then listed" || fail "the newcomer's own grant is not listed"
else
	fail "could not get pid $B again through ns_last_pid"
fi

finish
