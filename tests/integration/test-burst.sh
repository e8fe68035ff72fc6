#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bursts against the per-user limits and polkit's slots, through the real
# polkitd and dbus-daemon. No [Group audio] rule here, so rtplain, rtaudio
# and rtalice all need polkit, which allows each realtime. polkitd is
# stopped while a burst is sent, so that every request of it waits for
# polkit at once, then let go:
#  - 40 MakeThreadRealtime for 40 threads with ThreadsPerUserMax=4 end in
#    exactly 4 grants, the rest LimitsExceeded; the same for
#    ProcessesPerUserMax (12 processes, limit 3) and UsersMax (three users,
#    limit 2): the limits are checked again right before the grant.
#  - rtaudio, whom polkit refuses org.realtimed.manage, pipelines
#    ListAllGrants, Explain of another uid and Reload on 16 connections
#    while rtplain asks for 10 grants: all 10 are granted, and rtaudio is
#    answered RateLimited or PermissionDenied, never with dbus-daemon's
#    LimitsExceeded (its slots are the manage pool's, a few per uid).

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon

# every test user is allowed realtime by polkit; only rtalice may manage
integ_polkit_rules()
{
	cat >"$WORK/polkit-rules/50-realtimed-test.rules" <<-'EOF2'
	polkit.addRule(function(action, subject) {
		if (action.id == "org.realtimed.acquire-realtime" &&
		    (subject.user == "rtplain" || subject.user == "rtaudio" || subject.user == "rtalice"))
			return polkit.Result.YES;
		if (action.id == "org.realtimed.manage" && subject.user == "rtalice")
			return polkit.Result.YES;
		if (action.id == "org.realtimed.manage")
			return polkit.Result.NO;
		return polkit.Result.NOT_HANDLED;
	});
	EOF2
}

integ_setup
# no rule covers the test users: [Default] (rr 20) with polkit's yes
sed -i '/^\[Group audio\]/,/^\[IRQ\]/{/^\[IRQ\]/!d}' "$VENDOR_CONF"
grep -q '^\[Group audio\]' "$VENDOR_CONF" && fail "could not drop [Group audio] from the vendor policy"
integ_start_daemon

# limits KEY=VALUE...: an admin policy with those [Daemon] keys, reloaded
limits()
{
	{
		echo "[Daemon]"
		for _kv in "$@"; do
			echo "$_kv"
		done
	} | integ_admin_conf
	out=$(native Reload)
	expect_success "policy reloaded with ${*:-the default [Daemon] keys}" "$out"
}

# count OUTPUT WORD: the number after "WORD" (granted, ok) or after "error
# NAME" in rt-client's tally, 0 when absent
count()
{
	printf '%s\n' "$1" | awk -v w="$2" '$1 == w { n = $2 } $1 == "error" && $2 == w { n = $3 } END { print n + 0 }'
}

# While polkitd is stopped, USER runs "rt-client burst ARGS" in the
# background, writing $WORK/burst.USER; burst_start ... then burst_release.
BURSTS=""
burst_start()
{
	_u=$1
	shift
	as_bg "$_u" "$RT_CLIENT" burst "$@" >"$WORK/burst.$_u" 2>&1
	integ_track $!
	BURSTS="$BURSTS $!"
}
burst_release()
{
	# every call of each burst is on the wire and parked at polkit
	sleep 1.5
	kill -CONT "$POLKITD_PID"
	for _p in $BURSTS; do
		wait "$_p"
		integ_untrack "$_p"
	done
	BURSTS=""
}

pkc()
{
	run_as "$1" sh -c "pkcheck --action-id $2 --process \$\$ >/dev/null 2>&1"
}
wait_for 50 pkc rtplain org.realtimed.acquire-realtime || fail "polkitd does not allow rtplain realtime"

# one_user KEY MAX (--threads|--procs) N: with KEY=MAX, rtplain's burst
# for N threads or processes, all parked at polkit, ends in MAX grants and
# N - MAX LimitsExceeded
one_user()
{
	limits "$1=$2"
	kill -STOP "$POLKITD_PID"
	burst_start rtplain "$3" "$4"
	burst_release
	out=$(cat "$WORK/burst.rtplain")
	_what="$4 ${3#--} at once past polkit, $1=$2"
	[ "$(count "$out" granted)" = "$2" ] &&
		[ "$(count "$out" "$NATIVE_ERR.LimitsExceeded")" = $(($4 - $2)) ] &&
		ok "$_what: $2 granted, $(($4 - $2)) LimitsExceeded" || fail "$_what: $(echo $out)"
}
one_user ThreadsPerUserMax 4 --threads 40
one_user ProcessesPerUserMax 3 --procs 12

# --- UsersMax ---------------------------------------------------------------
limits UsersMax=2
kill -STOP "$POLKITD_PID"
# each holds its grants until all have their answers: a user whose
# processes have exited holds nothing and is not counted
for u in rtplain rtaudio rtalice; do
	burst_start $u --procs 2 --hold 4
done
burst_release
users=0 total=0 refused=0
for u in rtplain rtaudio rtalice; do
	out=$(cat "$WORK/burst.$u")
	n=$(count "$out" granted)
	[ "$n" -gt 0 ] && users=$((users + 1))
	total=$((total + n))
	refused=$((refused + $(count "$out" "$NATIVE_ERR.LimitsExceeded")))
	note "$u: $(echo $out)"
done
[ $users = 2 ] && [ $total = 4 ] && [ $refused = 2 ] &&
	ok "three users at once past polkit, UsersMax=2: 2 users granted (4 grants), 2 LimitsExceeded" ||
	fail "three users at once, UsersMax=2: $users users, $total grants, $refused LimitsExceeded"

# --- a flood of manage calls --------------------------------------------------
limits
kill -STOP "$POLKITD_PID"
FLOODS=""
for f in "8 40 ListAllGrants" "4 40 Explain $UID_PLAIN" "4 40 Reload"; do
	# shellcheck disable=SC2086
	as_bg rtaudio "$RT_CLIENT" flood $f >"$WORK/flood.$(echo $f | cut -d' ' -f3)" 2>&1
	integ_track $!
	FLOODS="$FLOODS $!"
done
sleep 1
burst_start rtplain --procs 10
burst_release
for p in $FLOODS; do
	wait "$p"
	integ_untrack "$p"
done
out=$(cat "$WORK/burst.rtplain")
[ "$(count "$out" granted)" = 10 ] &&
	ok "rtplain's 10 grants during rtaudio's manage flood: all granted" ||
	fail "rtplain's 10 grants during rtaudio's manage flood: $(echo $out)"
flood=$(cat "$WORK"/flood.*)
note "rtaudio's flood: $(echo $flood)"
printf '%s\n' "$flood" | grep -q 'org.freedesktop.DBus.Error.LimitsExceeded' &&
	fail "dbus-daemon answered LimitsExceeded in the flood" ||
	ok "no LimitsExceeded from dbus-daemon in the flood"
printf '%s\n' "$flood" | grep -q "^error $NATIVE_ERR.RateLimited" &&
	ok "rtaudio's flood is answered RateLimited" || fail "rtaudio's flood: no RateLimited: $(echo $flood)"
printf '%s\n' "$flood" | grep -q '^ok [1-9]' && fail "a manage call of rtaudio was served: $(echo $flood)"
# (the refusals of UsersMax= above are logged with REALTIMED_ERROR=LimitsExceeded:
# those are answers, not what the bus told realtimed)
grep -v 'REALTIMED_ERROR=LimitsExceeded' "$WORK/realtimed.log" | grep -q 'LimitsExceeded' &&
	fail "realtimed saw LimitsExceeded: $(grep -v 'REALTIMED_ERROR=' "$WORK/realtimed.log" | grep LimitsExceeded | head -n 3)"
# and rtalice, whom polkit allows org.realtimed.manage, is served once the
# flood is answered
out=$(native --as rtalice ListAllGrants)
expect_success "ListAllGrants by rtalice after the flood" "$out"

finish
