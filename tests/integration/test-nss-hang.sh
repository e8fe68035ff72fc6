#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A directory that stops answering must not stop realtimed. NSS here is
# `files rthang` (nsswitch.conf bound over the real one in the namespace),
# and libnss_rthang.so.2 (tests/nss/nss-rthang.c), handed to realtimed alone
# through LD_LIBRARY_PATH and $RTHANG_CONF, knows one more user, rthang
# (uid 4190), whose every lookup sleeps 30 s, as an LDAP server behind
# nslcd that froze. The admin policy would give rthang fifo 50 once
# resolved; [Default] alone gives rr only.
#   1. 20 files users in audio (each one's first call a cache miss) run
#      NROUNDS rounds of Peer.Ping + MakeThreadRealtime each: p50/p99;
#   2. rthang asks for fifo 10; while its lookup hangs, 20 other users (cache
#      misses again) do the same rounds: grant and Ping p99 within 2x of
#      step 1's (both printed; the reference is the larger of a run
#      before and one after rthang's request, and at least 5 ms), and no
#      Ping above 1 s;
#   3. rthang's request ends after ResolveTimeout (10 s), well before the
#      30 s hang, with Failed "could not resolve uid 4190 through NSS within
#      10 s", and nothing is granted to it; its MaxRealtimePriority and an
#      Explain of uid 4190, parked on the same lookup, fail the same way;
#   4. rthang3 (uid 4192, fifo 50 by [User rthang3]) is granted fifo 50;
#      then its lookups start to hang, and once the 5 s cache lifetime has
#      passed it asks again: granted fifo 50 from its last good answer
#      (the stale answer, after the 1 s stale wait, well before
#      ResolveTimeout), and the next request at once; the journal says so
#      once. (Before the stale answer: refused after ResolveTimeout.)
#   5. rthang2 (uid 4191, fifo 50 by [User rthang2]) holds fifo 50; its
#      lookups start to hang, and a reload must judge it: the reload and a
#      Ping answer at once, and the grant is judged by its last good answer
#      and kept: a reload during an outage demotes no one who had realtime.
#   6. realtimed restarts while rthang2's lookups still hang: with nothing
#      known of uid 4191, the adoption judges the grant after ResolveTimeout
#      by [User #4191] and [Default] alone (rr only) and demotes it, with a
#      journal line saying uid 4191 could not be resolved.
# And where NSS runs: the rthang module is loaded in realtimed's NSS helper
# (its child, the program realtimed-nss), which runs as nobody with CapEff, CapPrm, CapBnd (and
# CapInh, CapAmb) all zero and no_new_privs, never in realtimed itself,
# whose effective set holds its four capabilities alone; the helper, stuck
# in a hung lookup, ends with realtimed.
# Before the resolver (NSS on the event loop) realtimed stalled for the
# whole hang: step 2's rounds took 30 s or more and rthang was answered
# only when the directory was.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
NSS_DIR=$TOP_BUILDDIR/tests/nss
[ -f "$NSS_DIR/libnss_rthang.so.2" ] || skip "libnss_rthang.so.2 is not built ($NSS_DIR)"
integ_setup

NROUNDS=${NROUNDS:-25}
HANG_UID=4190
HANG_SECONDS=30
RESOLVE_TIMEOUT=10

# rtn01..rtn40 (uids 4201..4240), files users in audio
i=1
members=""
while [ $i -le 40 ]; do
	n=$(printf 'rtn%02d' $i)
	echo "$n:x:$((4200 + i)):$((4200 + i))::/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
	echo "$n:x:$((4200 + i)):" >>"$WORK/etc/group"
	members="$members,$n"
	i=$((i + 1))
done
# in place: /etc/group is bound to this very file
sed "s/^\(audio:[^:]*:[^:]*:.*\)\$/\1$members/" "$WORK/etc/group" >"$WORK/group.new"
cat "$WORK/group.new" >"$WORK/etc/group"
getent group audio | grep -q "rtn40" || fail "rtn01..rtn40 are not in audio: $(getent group audio)"

# rthang is a files user for everyone (dbus-daemon refuses a uid it cannot
# resolve), but realtimed runs in a mount namespace of its own where NSS
# asks the rthang module first: `passwd: rthang files`
HANG2_UID=4191
HANG3_UID=4192
echo "rthang:x:$HANG_UID:$HANG_UID::/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
echo "rthang:x:$HANG_UID:" >>"$WORK/etc/group"
echo "rthang2:x:$HANG2_UID:$HANG2_UID::/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
echo "rthang2:x:$HANG2_UID:" >>"$WORK/etc/group"
echo "rthang3:x:$HANG3_UID:$HANG3_UID::/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
echo "rthang3:x:$HANG3_UID:" >>"$WORK/etc/group"
sed -e 's/^passwd:.*/passwd: rthang files/' -e 's/^group:.*/group: rthang files/' \
	/etc/nsswitch.conf >"$WORK/nsswitch-realtimed.conf"
grep -q '^passwd: rthang files' "$WORK/nsswitch-realtimed.conf" || skip "no passwd: line in /etc/nsswitch.conf"
# the module runs in realtimed's NSS helper, as nobody: it reads the
# conf (0644) and appends to the log
: >"$WORK/rthang.conf.log"
chmod 666 "$WORK/rthang.conf.log"
cat >"$WORK/rthang.conf" <<EOF
user rthang $HANG_UID $HANG_UID
group rthang $HANG_UID
hang $HANG_UID $HANG_SECONDS
user rthang2 $HANG2_UID $HANG2_UID
group rthang2 $HANG2_UID
user rthang3 $HANG3_UID $HANG3_UID
group rthang3 $HANG3_UID
EOF
cat >"$WORK/realtimed-rthang" <<EOF
#!/bin/sh
# realtimed (the same pid, through exec) where NSS asks libnss_rthang first
exec unshare -m --propagation private -- /bin/sh -c \\
	'mount --bind "\$0" /etc/nsswitch.conf && exec "\$@"' "$WORK/nsswitch-realtimed.conf" \\
	env RTHANG_CONF="$WORK/rthang.conf" LD_LIBRARY_PATH="$NSS_DIR" "$REALTIMED" "\$@"
EOF
chmod 755 "$WORK/realtimed-rthang"

integ_admin_conf <<EOF
[Daemon]
ActionsPerBurst=100000
[User rthang]
RealtimePriority=50
Policies=fifo rr
[User rthang2]
RealtimePriority=50
Policies=fifo rr
[User rthang3]
RealtimePriority=50
Policies=fifo rr
EOF
REALTIMED=$WORK/realtimed-rthang integ_start_daemon

# status_of PID KEY: KEY's value in /proc/PID/status, its fields joined by spaces
status_of()
{
	awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status" 2>/dev/null
}

# rounds FIRST LAST OUT: NROUNDS rounds as each of rtnFIRST..rtnLAST into
# OUT, in 4 lanes at once (so that they fit in the ResolveTimeout window
# on a slow machine, without 20 clients queueing on 2 cores)
rounds()
{
	_pids=""
	for _lane in 0 1 2 3; do
		(
			_i=$(($1 + _lane))
			while [ "$_i" -le "$2" ]; do
				run_as "$(printf 'rtn%02d' "$_i")" "$RT_CLIENT" rounds "$NROUNDS" >"$WORK/one.$_i" 2>&1
				_i=$((_i + 4))
			done
		) &
		_pids="$_pids $!"
	done
	for _p in $_pids; do
		wait "$_p"
	done
	_i=$1
	: >"$3"
	while [ "$_i" -le "$2" ]; do
		grep -q error "$WORK/one.$_i" && note "rtn$_i: $(grep -m1 error "$WORK/one.$_i")"
		cat "$WORK/one.$_i" >>"$3"
		_i=$((_i + 1))
	done
}

# pct KIND P FILE: the P-th percentile (us) of the KIND lines
pct()
{
	awk -v k="$1" '$1 == k { print $2 }' "$3" | sort -n |
		awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] + 0 }'
}

count()
{
	awk -v k="$1" '$1 == k' "$2" | wc -l
}

# --- 1. no fault --------------------------------------------------------------
rounds 1 20 "$WORK/base.txt"
n=$(count grant "$WORK/base.txt")
[ "$n" -eq $((20 * NROUNDS)) ] && ok "no fault: $n grants answered with success" ||
	fail "no fault: $n of $((20 * NROUNDS)) grants succeeded: $(grep -m3 error "$WORK/base.txt")"
base_g50=$(pct grant 50 "$WORK/base.txt") base_g99=$(pct grant 99 "$WORK/base.txt")
base_p50=$(pct ping 50 "$WORK/base.txt") base_p99=$(pct ping 99 "$WORK/base.txt")
note "no fault:   grant p50 $base_g50 us, p99 $base_g99 us; Ping p50 $base_p50 us, p99 $base_p99 us ($n rounds)"

# --- 2. rthang's lookup hangs ---------------------------------------------------
t0=$(date +%s%N)
setpriv --reuid=$HANG_UID --regid=$HANG_UID --clear-groups -- \
	dbus-send --system --print-reply --reply-timeout=90000 --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.MakeThreadRealtime uint64:0 uint64:0 string:fifo uint32:10 \
	>"$WORK/hang.out" 2>&1 &
HANG_PID=$!
integ_track $HANG_PID
wait_for 5 grep -q "^hang $HANG_UID" "$WORK/rthang.conf.log" &&
	ok "rthang's lookup hangs in the directory" || fail "the rthang module never hung: is it loaded?"

# where NSS runs: in realtimed's child, the NSS helper, without privileges
HELPER=$(integ_nss_helper)
if [ -z "$HELPER" ]; then
	fail "realtimed ($DAEMON_PID) has no NSS helper child"
else
	check_eq "the NSS helper (pid $HELPER, realtimed's child) runs as nobody: Uid" \
		"65534 65534 65534 65534" "$(status_of "$HELPER" Uid)"
	check_eq "the NSS helper's Gid" "65534 65534 65534 65534" "$(status_of "$HELPER" Gid)"
	check_eq "the NSS helper has no supplementary group" "" "$(status_of "$HELPER" Groups)"
	for c in CapEff CapPrm CapBnd CapInh CapAmb; do
		check_eq "the NSS helper's $c is empty" 0000000000000000 "$(status_of "$HELPER" $c)"
	done
	check_eq "the NSS helper runs with no_new_privs" 1 "$(status_of "$HELPER" NoNewPrivs)"
	check_eq "the NSS helper is the program realtimed-nss" "$REALTIMED_NSS_HELPER" \
		"$(readlink "/proc/$HELPER/exe")"
fi
expect_nss_module_in_helper libnss_rthang.so.2
# realtimed's own: at most CAP_DAC_READ_SEARCH(2) CAP_SYS_PTRACE(19)
# CAP_SYS_NICE(23) CAP_SYS_RESOURCE(24) effective (the test's root may lack
# some), and CAP_SETGID(6) CAP_SETUID(7) CAP_SETPCAP(8) permitted only, for
# the helper
eff=$((0x$(status_of "$DAEMON_PID" CapEff))) prm=$((0x$(status_of "$DAEMON_PID" CapPrm)))
check_eq "realtimed's effective set holds none but its four" 0 $((eff & ~0x1880004))
check_eq "realtimed's permitted set holds CAP_SETUID, CAP_SETGID, CAP_SETPCAP, for the helper" \
	$((0x1c0)) $((prm & 0x1c0))
check_eq "realtimed's permitted set holds nothing else but what is effective" 0 $((prm & ~eff & ~0x1c0))

# rthang's properties and Explain wait for the same lookup, parked too
setpriv --reuid=$HANG_UID --regid=$HANG_UID --clear-groups -- \
	dbus-send --system --print-reply --reply-timeout=90000 --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Properties.Get string:$NATIVE_IFACE string:MaxRealtimePriority \
	>"$WORK/props.out" 2>&1 &
PROPS_PID=$!
integ_track $PROPS_PID
dbus-send --system --print-reply --reply-timeout=90000 --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.Explain uint32:$HANG_UID >"$WORK/explain.out" 2>&1 &
EXPLAIN_PID=$!
integ_track $EXPLAIN_PID

t=$(date +%s%N)
out=$(dbus-send --system --print-reply --reply-timeout=60000 --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Peer.Ping 2>&1)
ms=$((($(date +%s%N) - t) / 1000000))
[ $ms -lt 1000 ] && expect_success "Peer.Ping while the lookup hangs answered in $ms ms" "$out" ||
	fail "Peer.Ping while the lookup hangs took $ms ms: $out"

rounds 21 40 "$WORK/fault.txt"
t_rounds=$((($(date +%s%N) - t0) / 1000000))
n=$(count grant "$WORK/fault.txt")
[ "$n" -eq $((20 * NROUNDS)) ] && ok "while it hangs: $n grants answered with success" ||
	fail "while it hangs: $n of $((20 * NROUNDS)) grants succeeded: $(grep -m3 error "$WORK/fault.txt")"
g50=$(pct grant 50 "$WORK/fault.txt") g99=$(pct grant 99 "$WORK/fault.txt")
p50=$(pct ping 50 "$WORK/fault.txt") p99=$(pct ping 99 "$WORK/fault.txt")
pmax=$(pct ping 100 "$WORK/fault.txt")
note "while hung: grant p50 $g50 us, p99 $g99 us; Ping p50 $p50 us, p99 $p99 us, max $pmax us ($n rounds)"
if kill -0 $HANG_PID 2>/dev/null; then
	ok "the rounds ran while rthang still waited (${t_rounds} ms after its request)"
else
	fail "rthang's request ended before the rounds did (${t_rounds} ms): they did not overlap the hang"
fi
[ "$pmax" -lt 1000000 ] && ok "no Ping took a second (slowest $pmax us)" ||
	fail "a Ping took $pmax us while the lookup hung"

# --- 3. rthang's answer -----------------------------------------------------------
wait $HANG_PID
integ_untrack $HANG_PID
s=$((($(date +%s%N) - t0) / 1000000))
out=$(cat "$WORK/hang.out")
expect_error "rthang's request ends with the resolve error" "$NATIVE_ERR.Failed" \
	"could not resolve uid $HANG_UID through NSS within $RESOLVE_TIMEOUT s .*nothing granted" "$out"
[ $s -ge $(((RESOLVE_TIMEOUT - 1) * 1000)) ] && [ $s -lt $(((RESOLVE_TIMEOUT + 8) * 1000)) ] &&
	ok "after $s ms: about ResolveTimeout, well before the ${HANG_SECONDS} s hang" ||
	fail "rthang's request ended after $s ms, not about ${RESOLVE_TIMEOUT} s"
native ListGrants | grep -q "uint32 $HANG_UID\$" && fail "realtimed lists a grant of uid $HANG_UID" ||
	ok "nothing was granted to uid $HANG_UID"
grep -q "could not resolve uid $HANG_UID" "$WORK/realtimed.log" &&
	ok "the journal says uid $HANG_UID could not be resolved" ||
	fail "no journal line about uid $HANG_UID"
wait $PROPS_PID $EXPLAIN_PID
integ_untrack $PROPS_PID
integ_untrack $EXPLAIN_PID
expect_error "rthang's MaxRealtimePriority, parked meanwhile, fails with the resolve error" \
	org.freedesktop.DBus.Error.Failed "could not resolve uid $HANG_UID through NSS within" \
	"$(cat "$WORK/props.out")"
expect_error "Explain of uid $HANG_UID, parked meanwhile, fails with the resolve error" \
	"$NATIVE_ERR.Failed" "could not resolve uid $HANG_UID through NSS within" \
	"$(cat "$WORK/explain.out")"

# The reference: the no-fault rounds, once before the fault and once after
# rthang's request ended (cache misses again: more than 5 s have passed;
# rthang's lookup still holds its thread), the larger p99
# of the two, since a loaded machine's tail varies by tens of ms from run to
# run; a stall is seconds.
rounds 1 20 "$WORK/base2.txt"
n=$(count grant "$WORK/base2.txt")
[ "$n" -eq $((20 * NROUNDS)) ] && ok "no fault again: $n grants answered with success" ||
	fail "no fault again: $n of $((20 * NROUNDS)) grants succeeded"
b2_g50=$(pct grant 50 "$WORK/base2.txt") b2_g99=$(pct grant 99 "$WORK/base2.txt")
b2_p50=$(pct ping 50 "$WORK/base2.txt") b2_p99=$(pct ping 99 "$WORK/base2.txt")
note "no fault, after: grant p50 $b2_g50 us, p99 $b2_g99 us; Ping p50 $b2_p50 us, p99 $b2_p99 us"
[ "$b2_g99" -gt "$base_g99" ] && base_g99=$b2_g99
[ "$b2_p99" -gt "$base_p99" ] && base_p99=$b2_p99
# and at least 5 ms: on a quiet machine the p99 of 500 rounds is a few ms,
# where one exec in another lane or a timer tick doubles it
[ "$base_g99" -lt 5000 ] && base_g99=5000
[ "$base_p99" -lt 5000 ] && base_p99=5000
[ "$g99" -le $((2 * base_g99)) ] && ok "grant p99 $g99 us is within 2x of $base_g99 us" ||
	fail "grant p99 $g99 us is above 2x the no-fault $base_g99 us"
[ "$p99" -le $((2 * base_p99)) ] && ok "Ping p99 $p99 us is within 2x of $base_p99 us" ||
	fail "Ping p99 $p99 us is above 2x the no-fault $base_p99 us"

# --- 4. a user resolved a moment ago, while its lookups hang ---------------------
STALE_WAIT=1
CACHE_LIFETIME=5
# grant3: MakeThreadRealtime fifo 50 as rthang3, for dbus-send's own thread
grant3()
{
	setpriv --reuid=$HANG3_UID --regid=$HANG3_UID --clear-groups -- prlimit --rttime=200000 \
		dbus-send --system --print-reply --reply-timeout=60000 --dest=$NATIVE_NAME $NATIVE_PATH \
		$NATIVE_IFACE.MakeThreadRealtime uint64:0 uint64:0 string:fifo uint32:50 2>&1
}
expect_success "rthang3, resolved, is granted fifo 50 by [User rthang3]" "$(grant3)"
echo "hang $HANG3_UID $HANG_SECONDS" >>"$WORK/rthang.conf"
sleep $((CACHE_LIFETIME + 1))
t=$(date +%s%N)
out=$(grant3)
ms=$((($(date +%s%N) - t) / 1000000))
expect_success "rthang3, its lookups hanging $((CACHE_LIFETIME + 1)) s after it was resolved, is still granted fifo 50 (after $ms ms)" "$out"
grep -q "^hang $HANG3_UID" "$WORK/rthang.conf.log" &&
	ok "rthang3's new lookup hangs in the directory" || fail "rthang3's lookup never hung"
[ $ms -ge $(((STALE_WAIT * 1000) - 100)) ] && [ $ms -lt $(((RESOLVE_TIMEOUT - 4) * 1000)) ] &&
	ok "granted from its last good answer after the stale wait ($ms ms), not after ResolveTimeout" ||
	fail "rthang3's grant took $ms ms, not about the ${STALE_WAIT} s stale wait"
t=$(date +%s%N)
out=$(grant3)
ms=$((($(date +%s%N) - t) / 1000000))
[ $ms -lt 1000 ] && expect_success "rthang3's next grant, while the lookup still hangs, at once ($ms ms)" "$out" ||
	fail "rthang3's next grant took $ms ms: $out"
n=$(grep -c "uid $HANG3_UID: serving its last good answer" "$WORK/realtimed.log")
[ "$n" = 1 ] && ok "the journal says once that uid $HANG3_UID is served its last good answer" ||
	fail "$n journal lines about uid $HANG3_UID's last good answer: $(grep "uid $HANG3_UID" "$WORK/realtimed.log")"

# --- 5. a reload while rthang2's lookups hang --------------------------------------
rm -f "$WORK/h2.in"
mkfifo "$WORK/h2.in"
setpriv --reuid=$HANG2_UID --regid=$HANG2_UID --clear-groups -- prlimit --rttime=200000 "$RT_CLIENT" hold 1 \
	<>"$WORK/h2.in" >"$WORK/h2.out" 2>&1 &
H2_PID=$!
integ_track $H2_PID
wait_for 5 grep -q '^threads' "$WORK/h2.out" || fail "rt-client hold as rthang2 did not start"
H2_TID=$(sed -n 's/^threads //p' "$WORK/h2.out")
out=$(setpriv --reuid=$HANG2_UID --regid=$HANG2_UID --clear-groups -- dbus-send --system --print-reply \
	--dest=$NATIVE_NAME $NATIVE_PATH $NATIVE_IFACE.MakeThreadRealtime \
	uint64:$H2_PID uint64:$H2_TID string:fifo uint32:50 2>&1)
expect_success "rthang2, resolved, is granted fifo 50 by [User rthang2]" "$out"
expect_sched "rthang2's thread runs fifo 50" "$H2_TID" "fifo 50"
echo "hang $HANG2_UID $HANG_SECONDS" >>"$WORK/rthang.conf"
t0=$(date +%s%N)
out=$(native Reload)
ms=$((($(date +%s%N) - t0) / 1000000))
[ $ms -lt 1000 ] && expect_success "Reload answered in $ms ms while rthang2's lookup hangs" "$out" ||
	fail "Reload took $ms ms: $out"
wait_for 5 grep -q "^hang $HANG2_UID" "$WORK/rthang.conf.log" &&
	ok "the reload's lookup of rthang2 hangs in the directory" || fail "rthang2's lookup never hung"
t=$(date +%s%N)
out=$(dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH org.freedesktop.DBus.Peer.Ping 2>&1)
ms=$((($(date +%s%N) - t) / 1000000))
[ $ms -lt 1000 ] && expect_success "Peer.Ping after the reload answered in $ms ms" "$out" ||
	fail "Peer.Ping after the reload took $ms ms: $out"
wait_for 5 grep -q "uid $HANG2_UID: serving its last good answer" "$WORK/realtimed.log" &&
	ok "the reload judged rthang2 by its last good answer (journal)" ||
	fail "no journal line about uid $HANG2_UID's last good answer"
# past ResolveTimeout: had the reload judged it without its groups, the
# grant would be gone by now
sleep $((RESOLVE_TIMEOUT + 2))
expect_sched "$((RESOLVE_TIMEOUT + 2)) s after the reload, rthang2 still runs fifo 50: the outage demoted no one" \
	"$H2_TID" "fifo 50"
grep -q "Demoted thread $H2_TID " "$WORK/realtimed.log" &&
	fail "a reload during the outage demoted rthang2: $(grep "Demoted thread $H2_TID " "$WORK/realtimed.log")" ||
	ok "no demotion of rthang2 in the journal"

# --- 6. a restart while rthang2's lookups hang -------------------------------------
# nothing known of uid 4191 in the new process: no last good answer
HELPER=$(integ_nss_helper)
integ_stop_daemon TERM
expect_sched "rthang2 keeps fifo 50 over realtimed's stop" "$H2_TID" "fifo 50"
helper_gone()
{
	[ ! -e "/proc/$1/status" ] || [ "$(status_of "$1" State)" = "Z (zombie)" ]
}
[ -n "$HELPER" ] && wait_for 5 helper_gone "$HELPER" &&
	ok "the NSS helper, stuck in rthang2's lookup, ended with realtimed" ||
	fail "the NSS helper ${HELPER:-(none)} outlived realtimed"
t0=$(date +%s%N)
REALTIMED=$WORK/realtimed-rthang integ_start_daemon
t=$(date +%s%N)
out=$(dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH org.freedesktop.DBus.Peer.Ping 2>&1)
ms=$((($(date +%s%N) - t) / 1000000))
[ $ms -lt 1000 ] && expect_success "Peer.Ping after the restart answered in $ms ms" "$out" ||
	fail "Peer.Ping after the restart took $ms ms: $out"
runs_other()
{
	[ "$(sched_name_of "$1")" = "other 0" ]
}
wait_for $((RESOLVE_TIMEOUT + 8)) runs_other "$H2_TID"
s=$((($(date +%s%N) - t0) / 1000000))
expect_sched "after $s ms, rthang2's fifo 50 is demoted: without its name, [Default] allows rr only" \
	"$H2_TID" "other 0"
[ $s -ge $(((RESOLVE_TIMEOUT - 1) * 1000)) ] && ok "the demotion waited for ResolveTimeout ($s ms)" ||
	fail "rthang2 was demoted after $s ms, before ResolveTimeout"
grep "Demoted thread $H2_TID " "$WORK/realtimed.log" | grep -q "could not resolve uid $HANG2_UID" &&
	ok "the journal says rthang2's grant went because uid $HANG2_UID could not be resolved" ||
	fail "no demotion line naming uid $HANG2_UID: $(grep "Demoted thread $H2_TID" "$WORK/realtimed.log")"

finish
