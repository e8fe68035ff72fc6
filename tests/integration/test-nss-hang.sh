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
#      step 1's (both printed), and no Ping slower than 1 s;
#   3. rthang's request ends after ResolveTimeout (10 s), well before the
#      30 s hang, with Failed "could not resolve uid 4190 through NSS within
#      10 s", and nothing is granted to it.
# Before the resolver (NSS on the event loop) realtimed stalled for the
# whole hang: step 2's rounds took 30 s or more and rthang was answered
# only when the directory was.

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
echo "rthang:x:$HANG_UID:$HANG_UID::/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
echo "rthang:x:$HANG_UID:" >>"$WORK/etc/group"
sed -e 's/^passwd:.*/passwd: rthang files/' -e 's/^group:.*/group: rthang files/' \
	/etc/nsswitch.conf >"$WORK/nsswitch-realtimed.conf"
grep -q '^passwd: rthang files' "$WORK/nsswitch-realtimed.conf" || skip "no passwd: line in /etc/nsswitch.conf"
cat >"$WORK/rthang.conf" <<EOF
user rthang $HANG_UID $HANG_UID
group rthang $HANG_UID
hang $HANG_UID $HANG_SECONDS
EOF
cat >"$WORK/realtimed-nss" <<EOF
#!/bin/sh
# realtimed (the same pid, through exec) where NSS asks libnss_rthang first
exec unshare -m --propagation private -- /bin/sh -c \\
	'mount --bind "\$0" /etc/nsswitch.conf && exec "\$@"' "$WORK/nsswitch-realtimed.conf" \\
	env RTHANG_CONF="$WORK/rthang.conf" LD_LIBRARY_PATH="$NSS_DIR" "$REALTIMED" "\$@"
EOF
chmod 755 "$WORK/realtimed-nss"

integ_admin_conf <<EOF
[Daemon]
ActionsPerBurst=100000
[User rthang]
RealtimePriority=50
Policies=fifo rr
EOF
REALTIMED=$WORK/realtimed-nss integ_start_daemon

# rounds FIRST LAST OUT: NROUNDS rounds as each of rtnFIRST..rtnLAST, all at
# once (so that they fit in the ResolveTimeout window), into OUT
rounds()
{
	_i=$1 _pids=""
	while [ "$_i" -le "$2" ]; do
		run_as "$(printf 'rtn%02d' "$_i")" "$RT_CLIENT" rounds "$NROUNDS" >"$WORK/one.$_i" 2>&1 &
		_pids="$_pids $!"
		_i=$((_i + 1))
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
[ "$g99" -le $((2 * base_g99)) ] && ok "grant p99 $g99 us is within 2x of $base_g99 us" ||
	fail "grant p99 $g99 us is above 2x the no-fault $base_g99 us"
[ "$p99" -le $((2 * base_p99)) ] && ok "Ping p99 $p99 us is within 2x of $base_p99 us" ||
	fail "Ping p99 $p99 us is above 2x the no-fault $base_p99 us"
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

integ_finish
