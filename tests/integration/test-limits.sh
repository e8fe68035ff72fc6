#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# GrantLimits hands out no more than policy: after it, a process that holds
# a non-zero RLIMIT_RTPRIO holds RLIMIT_RTTIME at most RTTime= (it is set to
# RTTime=, lowered too: a safety ceiling, not a right), and a user whose
# Policies= lacks fifo gets no RLIMIT_RTPRIO (it would open SCHED_FIFO as
# well as SCHED_RR), only per-thread grants. Before a realtime grant,
# RLIMIT_RTTIME above RTTime= is lowered to it (or, where realtimed may
# not, the grant is refused).
#
# prlimit() on another user's process needs CAP_SYS_RESOURCE, which root on
# the project's host lacks: there only the order is checked (RLIMIT_RTTIME
# is set first, RLIMIT_RTPRIO never tried for a user without fifo). The vm
# tier (tests/vm/guest/limits.sh) runs this test as root with every
# capability, where the limits themselves are checked in /proc/PID/limits.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup
integ_admin_conf <<-EOF
	[Group audio]
	RTTime=50ms

	[User rtalice]
	Policies=rr
	RealtimePriority=50
	RTTime=100ms
EOF
integ_start_daemon

have_cap_sys_resource()
{
	_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	[ $(((0x$_eff >> 24) & 1)) = 1 ]
}

# limit_of PID "realtime priority": "SOFT HARD" from /proc/PID/limits
limit_of()
{
	awk -v n="Max $2" 'index($0, n) == 1 { s = substr($0, length(n) + 1); split(s, f, " "); print f[1], f[2]; exit }' "/proc/$1/limits"
}

# expect_limit DESC PID NAME "SOFT HARD"
expect_limit()
{
	_l=$(limit_of "$2" "$3")
	[ "$_l" = "$4" ] && ok "$1 (Max $3: $_l)" || fail "$1: Max $3 is '$_l', expected '$4'"
}

as_bg rtaudio sleep 300
PA=$!
integ_track $PA
as_bg rtalice sleep 300
PB=$!
integ_track $PB
as_bg rtalice sleep 300
PC=$!
integ_track $PC

# Before a realtime grant RLIMIT_RTTIME comes down to RTTime= (audio's 50ms
# here), where realtimed may (prlimit() on another user's process needs
# CAP_SYS_RESOURCE); otherwise the grant is refused as rtkit refuses it.
# A process already within RTTime= is granted as it is, either way.
as_bg rtaudio prlimit --rttime=40000:40000 -- sleep 300
PW=$!
integ_track $PW
out=$(native --as rtaudio MakeThreadRealtime uint64:$PW uint64:0 string:rr uint32:5)
expect_success "realtime for a process whose RLIMIT_RTTIME is within RTTime=" "$out"
expect_sched "it runs rr 5" "$PW" "rr 5"
expect_limit "its RLIMIT_RTTIME is left as it was" "$PW" "realtime timeout" "40000 40000"
as_bg rtaudio sleep 300
PU=$!
integ_track $PU
out=$(native --as rtaudio MakeThreadRealtime uint64:$PU uint64:0 string:rr uint32:5)
if have_cap_sys_resource; then
	expect_success "realtime for a process whose RLIMIT_RTTIME is unlimited" "$out"
	expect_sched "it runs rr 5" "$PU" "rr 5"
	expect_limit "its RLIMIT_RTTIME came down to RTTime=50ms" "$PU" "realtime timeout" "50000 50000"
else
	expect_error "realtime for a process whose RLIMIT_RTTIME is unlimited: refused without CAP_SYS_RESOURCE" \
		"$NATIVE_ERR.PolicyDenied" "RLIMIT_RTTIME of process $PU is unlimited, above the limit 50000 us .*set RLIMIT_RTTIME first" "$out"
	expect_sched "it stays SCHED_OTHER" "$PU" "other 0"
	expect_limit "its RLIMIT_RTTIME stays unlimited" "$PU" "realtime timeout" "unlimited unlimited"
fi

if ! have_cap_sys_resource; then
	note "no CAP_SYS_RESOURCE here: prlimit() on another user's process fails; the vm tier checks the limits"
	out=$(native --as rtalice GrantLimits uint64:$PB)
	expect_error "GrantLimits for rtalice (Policies=rr) sets RLIMIT_RTTIME first" "$NATIVE_ERR.Failed" \
		"could not set RLIMIT_RTTIME of process $PB" "$out"
	expect_limit "rtalice's RLIMIT_RTPRIO stays 0" "$PB" "realtime priority" "0 0"
	finish
fi

note "CAP_SYS_RESOURCE: the limits are really set"
took_path limits-set
expect_limit "rtaudio's process starts without RLIMIT_RTPRIO" "$PA" "realtime priority" "0 0"
expect_limit "and with RLIMIT_RTTIME unlimited" "$PA" "realtime timeout" "unlimited unlimited"
out=$(native --as rtaudio GrantLimits uint64:$PA)
expect_success "GrantLimits for rtaudio" "$out"
expect_limit "rtaudio (fifo rr, RealtimePriority=95) gets RLIMIT_RTPRIO 95" "$PA" "realtime priority" "95 95"
expect_limit "and RLIMIT_RTTIME lowered to RTTime=50ms" "$PA" "realtime timeout" "50000 50000"
echo "$out" | grep -A1 '"RLIMIT_RTTIME"' | grep -q 'uint64 50000' &&
	ok "the reply says RLIMIT_RTTIME 50000" || fail "reply: $out"

out=$(native --as rtalice GrantLimits uint64:$PB)
expect_success "GrantLimits for rtalice (Policies=rr)" "$out"
expect_limit "rtalice gets no RLIMIT_RTPRIO: it would open SCHED_FIFO" "$PB" "realtime priority" "0 0"
expect_limit "rtalice's RLIMIT_RTTIME is RTTime=100ms" "$PB" "realtime timeout" "100000 100000"

# a process that holds RLIMIT_RTPRIO from elsewhere gets the ceiling too
prlimit --pid "$PC" --rtprio=30:30 || fail "prlimit --rtprio on $PC"
out=$(native --as rtalice GrantLimits uint64:$PC)
expect_success "GrantLimits for rtalice's process that holds RLIMIT_RTPRIO 30" "$out"
expect_limit "its RLIMIT_RTPRIO stays 30 (GrantLimits never lowers a right)" "$PC" "realtime priority" "30 30"
expect_limit "its RLIMIT_RTTIME is lowered to RTTime=100ms" "$PC" "realtime timeout" "100000 100000"

finish
