#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# "Why was I refused?" without root: a member of audio asks for more than
# the policy allows, on both interfaces, and finds the refusal with its
# reason and the policy file:line that decided it in 'realtimectl status
# --refused' (and --json), and in 'realtimectl check', which says so when
# there are none; another user sees none of it, root and an
# org.realtimed.manage holder see everyone's; a refusal of another user's
# thread keeps no name of it; a thread that names itself with bytes that
# are not UTF-8 is shown escaped; polkit's refusal cites Polkit=; a flood
# that the rate limit answers takes one entry and does not push the policy's refusal out; and
# realtimed's log has one line per refusal with its MESSAGE_ID and fields.
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

integ_require_daemon
integ_require_cmd python3
integ_enter "$@"
integ_setup

PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
LOG_ID_REFUSED=5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a07
CTL_POLICY="--vendor-conf=$VENDOR_CONF --admin-conf=$WORK/admin.conf --vendor-conf-dir=$WORK/vendor.d --admin-conf-dir=$WORK/conf.d"

# audio may have FIFO 70 (line 2), and a small burst (line 5) so that a
# flood meets the rate limit soon
integ_admin_conf <<-EOF
	[Group audio]
	RealtimePriority=70
	Nice=-19
	[Daemon]
	ActionsPerBurst=8
	BurstSec=60
EOF
integ_start_daemon

holder_start rtaudio 1 || finish
tid=$(holder_tid 1)

echo "# a refusal of the policy, on the native interface"
out=$(native --as rtaudio MakeThreadRealtime uint64:"$HOLDER_PID" uint64:"$tid" string:fifo uint32:95)
expect_error "FIFO 95 is refused to rtaudio" "$NATIVE_ERR.PolicyDenied" "exceeds the limit 70" "$out"

# ctl USER ARGS...: realtimectl as USER (root: "root"), output in $out, status in $rc
ctl()
{
	_u=$1
	shift
	if [ "$_u" = root ]; then
		out=$("$REALTIMECTL" "$@" 2>&1)
	else
		out=$(run_as "$_u" "$REALTIMECTL" "$@" 2>&1)
	fi
	rc=$?
}

# has DESC TEXT: $out holds TEXT
has()
{
	case "$out" in
	*"$2"*) ok "$1" ;;
	*) fail "$1: '$2' not in: $out" ;;
	esac
}

# lacks DESC TEXT: $out does not hold TEXT
lacks()
{
	case "$out" in
	*"$2"*) fail "$1: '$2' in: $out" ;;
	*) ok "$1" ;;
	esac
}

echo "# status --refused, as the user refused"
ctl rtaudio status --refused
note "$out"
check_eq "status --refused exits 0" 0 "$rc"
has "it says what was asked and why" "asked FIFO 95: priority 95 exceeds the limit 70 for user rtaudio"
has "it names the file:line that decided" "($WORK/admin.conf:2)"
has "it names the error" "PolicyDenied"
has "it counts them" "1 refusal of yours"

ctl rtaudio --json status --refused
check_eq "status --refused --json exits 0" 0 "$rc"
if printf '%s' "$out" | "$PY" -c '
import json, sys
rows = json.load(sys.stdin)
want_source, pid, tid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = [x for x in rows if x["asked"] == "FIFO 95"]
assert len(r) == 1, rows
r = r[0]
assert r["uid"] == 4101 and r["user"] == "rtaudio", r
assert r["pid"] == pid and r["tid"] == tid, r
assert r["error"] == "PolicyDenied" and r["source"] == want_source, r
assert r["count"] == 1 and r["command"], r
assert "exceeds the limit 70" in r["reason"], r
assert r["time"] > 0, r
' "$WORK/admin.conf:2" "$HOLDER_PID" "$tid"; then
	ok "--json: every field of the refusal"
else
	fail "--json: $out"
fi

echo "# a refusal on the RealtimeKit1 interface"
# no rtkit-daemon runs here: the name is realtimed's when RtkitCompat=yes
if name_has_owner "$RTKIT_NAME"; then
	out=$(rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:"$HOLDER_PID" uint64:"$tid" uint32:96)
	expect_error "rtkit's realtime 96 is refused" "org.freedesktop.DBus.Error.AccessDenied" "exceeds the limit 70" "$out"
	ctl rtaudio status --refused
	has "the rtkit call is listed too" "asked realtime 96: priority 96 exceeds the limit 70"
else
	note "realtimed does not serve $RTKIT_NAME here; the compat refusal is not tried"
fi

echo "# check, as the user refused and as another"
ctl rtaudio check $CTL_POLICY
note "$(printf '%s\n' "$out" | grep -A1 ' refusals ')"
has "check shows the refusal" "refused in the last hour; the last: "
has "check shows its reason" "exceeds the limit 70 for user rtaudio"
has "check says what to do" "raise the limit at $WORK/admin.conf:2"
ctl rtalice check $CTL_POLICY
has "check says when there are none" "realtimed refused no request of rtalice in the last hour"

echo "# who sees whose"
ctl rtalice status --refused
check_eq "another user's status --refused exits 0" 0 "$rc"
lacks "another user does not see rtaudio's refusal" "FIFO 95"
has "another user has none" "No refusals"
ctl root status --refused
has "root sees rtaudio's refusal" "asked FIFO 95"
has "root sees whose it is" "rtaudio"
# polkit's rules (tests/lib/polkit.sh): rtalice holds org.realtimed.manage, rtaudio not
ctl rtalice status --refused --all
check_eq "status --refused --all with org.realtimed.manage exits 0" 0 "$rc"
has "org.realtimed.manage sees every user's" "asked FIFO 95"
ctl rtaudio status --refused --all
check_eq "status --refused --all without org.realtimed.manage is refused" 1 "$rc"
has "the refusal names the action" "org.realtimed.manage"

echo "# another user's thread: refused, and its name is not shown"
as_bg rtalice sleep 60
other=$!
integ_track $other
out=$(native --as rtaudio MakeThreadRealtime uint64:"$other" uint64:0 string:fifo uint32:10)
expect_error "rtalice's process is refused to rtaudio" "$NATIVE_ERR.PermissionDenied" "names no process of the caller" "$out"
ctl rtaudio --json status --refused
if printf '%s' "$out" | "$PY" -c '
import json, sys
r = [x for x in json.load(sys.stdin) if x["pid"] == int(sys.argv[1])]
assert len(r) == 1 and r[0]["error"] == "PermissionDenied", r
assert r[0]["command"] == "" and r[0]["source"] is None, r
' "$other"; then
	ok "the refusal is kept without the other user's command name"
else
	fail "another user's thread: $out"
fi
kill "$other" 2>/dev/null
wait "$other" 2>/dev/null
integ_untrack "$other"

echo "# a thread that names itself with bytes that are not UTF-8"
# \xff \xfe, a lone lead byte before '(', and ESC [31m: granted nice -5,
# then renamed, then refused FIFO 95
as_bg rtaudio "$RT_CLIENT" ask --nice -5 --name fffec3281b5b33316d --hold 60 >"$WORK/named.out" 2>&1
named=$!
integ_track $named
# renamed_tid: the named client's audio thread, once it has renamed itself
renamed_tid()
{
	# (not _t: wait_for counts in it)
	_rt=$(sed -n 's/^granted: audio thread \([0-9]*\) .*/\1/p' "$WORK/named.out")
	[ -n "$_rt" ] && [ "$(head -c 2 "/proc/$named/task/$_rt/comm" | od -An -tx1 | tr -d ' ')" = fffe ] &&
		echo "$_rt"
}
if wait_for 10 renamed_tid; then
	ntid=$(renamed_tid)
	out=$(native --as rtaudio MakeThreadRealtime uint64:"$named" uint64:"$ntid" string:fifo uint32:95)
	expect_error "the renamed thread is refused FIFO 95" "$NATIVE_ERR.PolicyDenied" "exceeds the limit 70" "$out"
	ctl rtaudio status --refused
	has "status --refused shows its name escaped" '\xff\xfe\xc3(\x1b[31m asked FIFO 95'
	ctl rtaudio --json status --refused
	if printf '%s' "$out" | "$PY" -c '
import json, sys
r = [x for x in json.load(sys.stdin) if x["tid"] == int(sys.argv[1])]
assert len(r) == 1 and r[0]["command"] == "\\xff\\xfe\\xc3(\\x1b[31m", r
' "$ntid"; then
		ok "--json: the name as valid UTF-8, escaped"
	else
		fail "--json of the renamed thread: $out"
	fi
else
	fail "rt-client ask --name: $(cat "$WORK/named.out")"
fi
kill "$named" 2>/dev/null
wait "$named" 2>/dev/null
integ_untrack "$named"

echo "# polkit's refusal is kept too"
# rtplain: no rule covers it, and polkit says no to high priority (tests/lib/polkit.sh)
as_bg rtplain sleep 60
plain=$!
integ_track $plain
out=$(native --as rtplain MakeThreadHighPriority uint64:"$plain" uint64:0 int32:-5)
expect_error "polkit refuses rtplain a nice level" "$NATIVE_ERR.PermissionDenied" "polkit did not authorize" "$out"
ctl rtplain status --refused
has "rtplain sees polkit's refusal" "sleep asked nice -5: polkit did not authorize org.realtimed.acquire-high-priority"
has "it cites the Polkit= that sent rtplain to polkit" "($VENDOR_CONF:$(grep -n '^Polkit=' "$VENDOR_CONF" | cut -d: -f1))"
kill "$plain" 2>/dev/null
wait "$plain" 2>/dev/null
integ_untrack "$plain"

echo "# a flood that the rate limit answers takes one entry"
i=0
while [ $i -lt 30 ]; do
	native --as rtaudio MakeThreadHighPriority uint64:"$HOLDER_PID" uint64:"$tid" int32:-5 >/dev/null
	i=$((i + 1))
done
ctl rtaudio --json status --refused
if printf '%s' "$out" | "$PY" -c '
import json, sys
rows = json.load(sys.stdin)
rl = [x for x in rows if x["error"] == "RateLimited"]
assert len(rl) == 1, rows
assert rl[0]["count"] >= 20, rl
assert rl[0]["source"] == sys.argv[1], rl
assert any(x["asked"] == "FIFO 95" for x in rows), rows
' "$WORK/admin.conf:5"; then
	ok "the rate-limited refusals are one entry (with ActionsPerBurst= cited), and the policy's refusal stays"
else
	fail "the flood: $out"
fi

echo "# the log: one line per refusal, with its MESSAGE_ID and fields"
line=$(grep "MESSAGE_ID=$LOG_ID_REFUSED" "$WORK/realtimed.log" | grep "REALTIMED_ASKED=FIFO 95" | head -n 1)
if [ -n "$line" ]; then
	ok "a line with MESSAGE_ID=$LOG_ID_REFUSED for FIFO 95"
else
	fail "no MESSAGE_ID=$LOG_ID_REFUSED line for FIFO 95 in realtimed's log"
fi
out=$line
has "it names the user" "REALTIMED_UID=4101"
has "it names the target thread" "REALTIMED_TARGET_TID=$tid"
has "it names the error" "REALTIMED_ERROR=PolicyDenied"
has "it names the policy line" "REALTIMED_POLICY_SOURCE=$WORK/admin.conf:2"
has "it says why" "exceeds the limit 70"
n=$(grep -c "MESSAGE_ID=$LOG_ID_REFUSED.*REALTIMED_UID=4101" "$WORK/realtimed.log")
if [ "$n" -le 12 ]; then
	ok "the flood is paced in the log ($n lines for rtaudio)"
else
	fail "$n refusal lines for rtaudio: the log is not paced per user"
fi

holder_stop
finish
