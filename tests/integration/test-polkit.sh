#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# polkit decides for users that no [User]/[Group] rule covers, through the
# real polkitd and the test rules (lib.sh): rtplain is allowed realtime but
# not high priority. Covered users are decided by policy alone: rtaudio gets
# fifo 70 although polkit would refuse it (no session here). A stopped polkitd
# does not stall the daemon for other clients. Reload() asks polkit
# org.realtimed.manage; with Polkit=no, [Default] alone decides. Who sees
# what: ListGrants and 'realtimectl status' show callers their own grants;
# every user's (ListAllGrants, 'status --all') and Explain of another user
# take root or org.realtimed.manage (test rules: rtalice yes, rtaudio no).

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup
integ_start_daemon

pkc()
{
	run_as "$1" sh -c "pkcheck --action-id $2 --process \$\$ >/dev/null 2>&1"
}

err_of()
{
	echo "$1" | sed -n 's/^refused: \([^:]*\): /Error \1: /p'
}

# uncovered user: polkit yes for realtime, no for high priority
out=$(run_as rtplain "$RT_CLIENT" ask --policy rr --prio 10 2>&1)
[ $? = 0 ] && echo "$out" | grep -q 'SCHED_RR priority 10' &&
	ok "rtplain (no rule covers it): polkit says yes, rr 10 granted" || fail "rtplain rr 10: $out"
out=$(run_as rtplain "$RT_CLIENT" ask --nice -10 2>&1)
expect_error "rtplain nice -10: polkit says no" "$NATIVE_ERR.PermissionDenied" "polkit|authoriz|not allowed" "$(err_of "$out")"
out=$(run_as rtplain "$RT_CLIENT" ask --rtkit --prio 10 2>&1)
[ $? = 0 ] && ok "rtplain over the rtkit interface: polkit (acquire-real-time) says yes" ||
	fail "rtplain rtkit realtime 10: $out"
out=$(run_as rtplain "$RT_CLIENT" ask --rtkit --nice -5 2>&1)
echo "$out" | grep -q '^refused: org.freedesktop.DBus.Error.AccessDenied\|^refused: org.freedesktop.RealtimeKit1' &&
	ok "rtplain over the rtkit interface: high priority refused ($(echo "$out" | grep refused))" ||
	fail "rtplain rtkit nice -5: $out"

# covered user: polkit is not asked
pkc rtaudio org.realtimed.acquire-realtime && note "polkit would allow rtaudio" ||
	note "polkit would refuse rtaudio (no session, no rule)"
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 70 2>&1)
[ $? = 0 ] && ok "rtaudio (covered by [Group audio]) is granted fifo 70 without polkit's yes" ||
	fail "rtaudio fifo 70: $out"

# a stopped polkitd stalls only the requests that need it
kill -STOP "$POLKITD_PID"
as_bg rtplain "$RT_CLIENT" ask --policy rr --prio 11 >"$WORK/slow.out" 2>&1
SLOW=$!
integ_track $SLOW
sleep 0.5
start=$(date +%s%N)
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 71 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc = 0 ] && [ $ms -lt 2000 ] &&
	ok "while polkitd is stopped, rtaudio is still served (${ms} ms)" ||
	fail "with polkitd stopped, rtaudio: rc $rc after ${ms} ms: $out"
grep -q '^granted\|^refused' "$WORK/slow.out" && fail "rtplain got an answer without polkit: $(cat "$WORK/slow.out")" ||
	ok "rtplain's request waits for polkit"
kill -CONT "$POLKITD_PID"
wait $SLOW
rc=$?
integ_untrack $SLOW
[ $rc = 0 ] && ok "after polkitd continues, rtplain's request is granted" ||
	fail "rtplain after polkitd continued: rc $rc: $(cat "$WORK/slow.out")"

# Reload(): org.realtimed.manage (test rules: rtalice yes, rtaudio no)
out=$(native --as rtaudio Reload)
expect_error "Reload by rtaudio: polkit says no" "$NATIVE_ERR.PermissionDenied" "." "$out"
out=$(native --as rtalice Reload)
expect_success "Reload by rtalice: polkit says yes" "$out"
out=$(native Reload)
expect_success "Reload by root" "$out"

# --- who sees what --------------------------------------------------------
# one grant each for rtaudio and rtalice, held while the checks run
as_bg rtaudio "$RT_CLIENT" ask --policy fifo --prio 12 --hold 60 >"$WORK/vis-audio.out" 2>&1
VIS_AUDIO=$!
integ_track $VIS_AUDIO
as_bg rtalice "$RT_CLIENT" ask --policy fifo --prio 13 --hold 60 >"$WORK/vis-alice.out" 2>&1
VIS_ALICE=$!
integ_track $VIS_ALICE
wait_for 10 grep -q '^granted' "$WORK/vis-audio.out" && wait_for 10 grep -q '^granted' "$WORK/vis-alice.out" ||
	fail "no grants to list: $(cat "$WORK/vis-audio.out" "$WORK/vis-alice.out")"
# lists PID OUTPUT: a grant of process PID is in the listing
lists()
{
	printf '%s\n' "$2" | grep -q "uint64 $1\$"
}
out=$(native --as rtaudio ListGrants)
lists $VIS_AUDIO "$out" && ! lists $VIS_ALICE "$out" &&
	ok "ListGrants by rtaudio: its own grant, not rtalice's" || fail "ListGrants by rtaudio: $out"
out=$(native --as rtplain ListGrants)
expect_success "ListGrants by rtplain, who holds no grant, is no error" "$out"
! lists $VIS_AUDIO "$out" && ! lists $VIS_ALICE "$out" &&
	ok "ListGrants by rtplain shows no one else's grants" || fail "ListGrants by rtplain: $out"
out=$(native ListGrants)
lists $VIS_AUDIO "$out" && lists $VIS_ALICE "$out" && ok "ListGrants by root: every grant" ||
	fail "ListGrants by root: $out"
out=$(native --as rtaudio ListAllGrants)
expect_error "ListAllGrants by rtaudio: polkit says no" "$NATIVE_ERR.PermissionDenied" "org.realtimed.manage" "$out"
out=$(native --as rtalice ListAllGrants)
lists $VIS_AUDIO "$out" && lists $VIS_ALICE "$out" &&
	ok "ListAllGrants by rtalice (org.realtimed.manage): every grant" || fail "ListAllGrants by rtalice: $out"
out=$(native ListAllGrants)
lists $VIS_AUDIO "$out" && lists $VIS_ALICE "$out" && ok "ListAllGrants by root: every grant" ||
	fail "ListAllGrants by root: $out"

out=$(run_as rtaudio "$REALTIMECTL" status --no-legend 2>&1)
printf '%s\n' "$out" | grep -q "^$VIS_AUDIO " && ! printf '%s\n' "$out" | grep -q "^$VIS_ALICE " &&
	ok "realtimectl status as rtaudio: its own grant only" || fail "realtimectl status as rtaudio: $out"
out=$(run_as rtplain "$REALTIMECTL" status 2>&1)
printf '%s\n' "$out" | grep -q "no thread of yours" && ! printf '%s\n' "$out" | grep -q "^$VIS_AUDIO " &&
	ok "realtimectl status as rtplain: no grants of its own, none of others" || fail "realtimectl status as rtplain: $out"
out=$(run_as rtaudio "$REALTIMECTL" status --all </dev/null 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "org.realtimed.manage" &&
	ok "realtimectl status --all as rtaudio: refused, exit 1" || fail "status --all as rtaudio: rc $rc: $out"
out=$(run_as rtalice "$REALTIMECTL" status --all --no-legend </dev/null 2>&1)
printf '%s\n' "$out" | grep -q "^$VIS_AUDIO " && printf '%s\n' "$out" | grep -q "^$VIS_ALICE " &&
	ok "realtimectl status --all as rtalice: every grant" || fail "status --all as rtalice: $out"

out=$(native --as rtaudio Explain uint32:$UID_AUDIO)
expect_success "Explain of one's own uid needs nothing" "$out"
out=$(native --as rtaudio Explain uint32:$UID_ALICE)
expect_error "Explain of rtalice by rtaudio: polkit says no" "$NATIVE_ERR.PermissionDenied" "org.realtimed.manage" "$out"
out=$(native --as rtplain Explain uint32:0)
expect_error "Explain of root by rtplain: refused" "$NATIVE_ERR.PermissionDenied" "org.realtimed.manage" "$out"
out=$(native --as rtplain Explain uint32:4294967294)
expect_error "Explain of a uid that does not exist, by rtplain: refused before the lookup" \
	"$NATIVE_ERR.PermissionDenied" "org.realtimed.manage" "$out"
out=$(native --as rtalice Explain uint32:$UID_AUDIO)
printf '%s\n' "$out" | grep -q RealtimePriority && ok "Explain of rtaudio by rtalice (org.realtimed.manage)" ||
	fail "Explain of rtaudio by rtalice: $out"
out=$(run_as rtaudio "$REALTIMECTL" explain rtalice </dev/null 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s\n' "$out" | grep -q "explain --offline rtalice" &&
	ok "realtimectl explain rtalice as rtaudio: refused, exit 1, points to --offline" ||
	fail "realtimectl explain rtalice as rtaudio: rc $rc: $out"
kill $VIS_AUDIO $VIS_ALICE 2>/dev/null

# a broken admin file: Reload says why, the last good policy stays
printf '[Group audio]\nRealtimePriority=95\nNoSuchKey=1\n' >"$WORK/admin.conf"
out=$(native Reload)
if echo "$out" | grep -q '^Error ' && echo "$out" | grep -q 'admin.conf:3'; then
	ok "Reload of a broken admin.conf fails naming admin.conf:3 ($(echo "$out" | head -n 1 | cut -c1-120))"
else
	fail "Reload of a broken admin.conf: $out"
fi
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 70 2>&1)
[ $? = 0 ] && ok "the last good policy stays in force" || fail "after a broken reload: $out"

# polkit answers are reused: a "yes" for one process serves its other
# threads for 10 s without a round trip to polkitd; polkitd's Changed signal
# (here: a new rules file) ends that at once.
integ_require_cmd dbus-monitor
dbus-monitor --system "type='method_call',interface='org.freedesktop.PolicyKit1.Authority',member='CheckAuthorization'" \
	>"$WORK/pk-calls.out" 2>&1 &
integ_track $!
sleep 0.5
if holder_start rtplain 3; then
	pk_calls() { grep -c 'member=CheckAuthorization' "$WORK/pk-calls.out"; }
	# as PipeWire does: RLIMIT_RTTIME within policy first (the host's root
	# may not lower it for another user's process)
	run_as rtplain prlimit --pid "$HOLDER_PID" --rttime=200000:200000
	before=$(pk_calls)
	out1=$(native --as rtplain MakeThreadRealtime uint64:$HOLDER_PID uint64:"$(holder_tid 1)" string:rr uint32:5)
	out2=$(native --as rtplain MakeThreadRealtime uint64:$HOLDER_PID uint64:"$(holder_tid 2)" string:rr uint32:5)
	sleep 0.3
	if echo "$out1$out2" | grep -q Error; then
		fail "rtplain realtime on two threads of one process: $out1 $out2"
	else
		check_calls=$(($(pk_calls) - before))
		[ "$check_calls" = 1 ] &&
			ok "a polkit yes is reused for a second thread of the same process (1 CheckAuthorization for 2 grants)" ||
			fail "expected 1 CheckAuthorization for 2 grants of one process, saw $check_calls"
	fi
	cat >"$WORK/polkit-rules/30-deny-rtplain.rules" <<-'RULES'
		polkit.addRule(function(action, subject) {
			if (subject.user == "rtplain" && action.id == "org.realtimed.acquire-realtime")
				return polkit.Result.NO;
			return polkit.Result.NOT_HANDLED;
		});
	RULES
	chmod a+r "$WORK/polkit-rules/30-deny-rtplain.rules"
	wait_for 10 sh -c "! pkcheck --action-id org.realtimed.acquire-realtime --process $HOLDER_PID" ||
		note "polkitd has not taken the new rule yet"
	sleep 0.5
	out3=$(native --as rtplain MakeThreadRealtime uint64:$HOLDER_PID uint64:"$(holder_tid 3)" string:rr uint32:5)
	echo "$out3" | grep -q "$NATIVE_ERR.PermissionDenied.*polkit" &&
		ok "polkitd's Changed signal ends the reuse: the third thread is refused at once" ||
		fail "after polkit changed its rules, the cached yes was still used: $out3"
	rm -f "$WORK/polkit-rules/30-deny-rtplain.rules"
	holder_stop 2>/dev/null || kill "$HOLDER_PID" 2>/dev/null
fi

# realtimectl allows interactive authorization (polkit may ask for a
# password through an agent): the daemon passes that on to polkit, and
# keeps at most one such check per user waiting
n=$(wc -l <"$WORK/pk-calls.out")
run_as rtalice "$REALTIMECTL" reload </dev/null >/dev/null 2>&1
sleep 0.3
flags=$(tail -n +$((n + 1)) "$WORK/pk-calls.out" | grep -A20 '"org.realtimed.manage"' | grep -m1 '^ *uint32' | awk '{ print $2 }')
[ "$flags" = 1 ] && ok "realtimectl reload: polkit is asked with AllowUserInteraction (flags 1)" ||
	fail "realtimectl reload: CheckAuthorization flags '$flags', want 1"
# the subject is the caller's connection, which polkitd looks up when it
# answers, not the pid dbus-daemon recorded at connect time
call=$(tail -n +$((n + 1)) "$WORK/pk-calls.out" | grep -B20 '"org.realtimed.manage"')
printf '%s\n' "$call" | grep -q 'string "system-bus-name"' &&
	! printf '%s\n' "$call" | grep -q 'string "unix-process"' &&
	ok "realtimectl reload: polkit is asked about the caller's bus name (system-bus-name)" ||
	fail "realtimectl reload: CheckAuthorization subject: $(printf '%s\n' "$call" | grep -m2 'string "')"
kill -STOP "$POLKITD_PID"
as_bg rtaudio "$REALTIMECTL" reload </dev/null >"$WORK/ia1.out" 2>&1
IA1=$!
integ_track $IA1
sleep 0.5
out=$(run_as rtaudio "$REALTIMECTL" reload </dev/null 2>&1)
printf '%s\n' "$out" | grep -q "too many checks are pending" &&
	ok "a second interactive check of the same user while one waits is refused at once" ||
	fail "second interactive check of rtaudio: $out"
kill -CONT "$POLKITD_PID"
wait $IA1
integ_untrack $IA1
grep -q "did not grant" "$WORK/ia1.out" && ok "the waiting one is answered once polkitd continues" ||
	fail "the first interactive reload of rtaudio: $(cat "$WORK/ia1.out")"

# Without Debian's rtkit package its action ids do not exist and polkitd
# refuses them: the compat interface then asks with realtimed's own ids.
# A rule now refuses rtkit's id, so only that fallback can grant this.
rm -f "$WORK/polkit-actions/org.freedesktop.RealtimeKit1.policy"
cat >"$WORK/polkit-rules/40-no-rtkit-ids.rules" <<-'RULES'
	polkit.addRule(function(action, subject) {
		if (action.id.indexOf("org.freedesktop.RealtimeKit1.") == 0)
			return polkit.Result.NO;
		return polkit.Result.NOT_HANDLED;
	});
RULES
chmod a+r "$WORK/polkit-rules/40-no-rtkit-ids.rules"
wait_for 10 sh -c "! pkcheck --action-id org.freedesktop.RealtimeKit1.acquire-real-time --process \$\$" ||
	note "polkitd still allows rtkit's action id"
out=$(run_as rtplain "$RT_CLIENT" ask --rtkit --prio 11 2>&1)
[ $? = 0 ] && ok "without rtkit's polkit actions, the compat interface asks org.realtimed.acquire-realtime (granted)" ||
	fail "rtkit interface without rtkit's polkit actions: $out"
rm -f "$WORK/polkit-rules/40-no-rtkit-ids.rules"

# Polkit=no: [Default] decides for uncovered users, polkit is not asked:
# the nice level polkit refused above is now granted
printf '[Daemon]\nPolkit=no\n' >"$WORK/admin.conf"
kill -HUP "$DAEMON_PID"
wait_for 5 sh -c "[ \$(grep -c 'Policy reloaded' '$WORK/realtimed.log') -ge 3 ]" ||
	note "no third 'Policy reloaded' line in the log after SIGHUP"
out=$(run_as rtplain "$RT_CLIENT" ask --nice -10 2>&1)
if [ $? = 0 ] && echo "$out" | grep -q 'nice -10'; then
	ok "Polkit=no (SIGHUP): rtplain gets [Default]'s nice -10 without polkit"
else
	fail "Polkit=no: rtplain nice -10: $out"
fi
out=$(run_as rtplain "$RT_CLIENT" ask --nice -16 2>&1)
echo "$out" | grep -q "^refused: $NATIVE_ERR.PolicyDenied" && ok "Polkit=no: [Default]'s Nice=-15 still holds" ||
	fail "Polkit=no: rtplain nice -16: $out"

finish
