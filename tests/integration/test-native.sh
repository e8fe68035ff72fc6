#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtimed's native interface (org.realtimed.Realtime1) against the shipped
# vendor policy plus a small admin file: grants as policy allows them, and
# every refusal with its error name and a message that names the limit and
# the file:line behind it. Callers are the test users; the kernel's view of
# each thread (/proc/TID/stat) is what is checked.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup

VENDOR=$VENDOR_CONF
# the line of KEY= inside [SECTION] of the vendor file
line_of()
{
	awk -v s="[$1]" -v k="$2=" '$0 == s { in_s = 1; next } /^\[/ { in_s = 0 } in_s && index($0, k) == 1 { print NR; exit }' "$VENDOR"
}
L_DEF_PRIO=$(line_of Default RealtimePriority)
L_DEF_POL=$(line_of Default Policies)
L_DEF_NICE=$(line_of Default Nice)
L_AUD_PRIO=$(line_of "Group audio" RealtimePriority)
L_AUD_NICE=$(line_of "Group audio" Nice)

integ_admin_conf <<-EOF
	[User rtalice]
	RealtimePriority=99
EOF
integ_start_daemon

# --- grants ---------------------------------------------------------------
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 70 2>&1)
rc=$?
[ $rc = 0 ] && echo "$out" | grep -q 'SCHED_FIFO priority 70' &&
	ok "audio member: SCHED_FIFO 70 on its audio thread, verified by the thread itself" ||
	fail "audio member asking fifo 70: rc $rc: $out"

out=$(run_as rtaudio "$RT_CLIENT" ask --policy rr --prio 95 2>&1)
[ $? = 0 ] && echo "$out" | grep -q 'SCHED_RR priority 95' &&
	ok "audio member: SCHED_RR 95 (its policy maximum)" || fail "audio member asking rr 95: $out"

out=$(run_as rtalice "$RT_CLIENT" ask --policy fifo --prio 99 2>&1)
[ $? = 0 ] && echo "$out" | grep -q 'SCHED_FIFO priority 99' &&
	ok "[User rtalice] RealtimePriority=99 beats [Group audio]: fifo 99 granted" ||
	fail "rtalice asking fifo 99: $out"

out=$(run_as rtaudio "$RT_CLIENT" ask --nice -19 2>&1)
[ $? = 0 ] && echo "$out" | grep -q 'nice -19' &&
	ok "audio member: nice -19" || fail "audio member asking nice -19: $out"

# --- policy refusals, each naming the limit and file:line ----------------
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 96 2>&1)
expect_error "audio member asking fifo 96" "$NATIVE_ERR.PolicyDenied" \
	"priority 96 exceeds the limit 95 .*rtaudio.*realtime\.conf:$L_AUD_PRIO\b" "$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

out=$(run_as rtplain "$RT_CLIENT" ask --policy rr --prio 21 2>&1)
expect_error "non-member asking rr 21" "$NATIVE_ERR.PolicyDenied" \
	"priority 21 exceeds the limit 20 .*rtplain.*realtime\.conf:$L_DEF_PRIO\b" "$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

out=$(run_as rtplain "$RT_CLIENT" ask --policy fifo --prio 10 2>&1)
expect_error "non-member asking fifo (Policies=rr)" "$NATIVE_ERR.PolicyDenied" \
	"fifo.*not allowed.*rtplain.*realtime\.conf:$L_DEF_POL\b" "$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

out=$(run_as rtplain "$RT_CLIENT" ask --nice -16 2>&1)
expect_error "non-member asking nice -16 (Nice=-15)" "$NATIVE_ERR.PolicyDenied" \
	"-16.*-15.*rtplain.*realtime\.conf:$L_DEF_NICE\b" "$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

out=$(run_as rtaudio "$RT_CLIENT" ask --nice -20 2>&1)
expect_error "audio member asking nice -20 (Nice=-19)" "$NATIVE_ERR.PolicyDenied" \
	"-20.*-19.*rtaudio.*realtime\.conf:$L_AUD_NICE\b" "$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

out=$(run_as rtalice "$RT_CLIENT" ask --policy fifo --prio 100 2>&1)
expect_error "priority 100" "$NATIVE_ERR.InvalidArgs" "100" "$(echo "$out" | sed -n 's/^refused: \([^:]*\): /Error \1: /p')"

# --- identity checks: not your process, not your thread, dead pids --------
holder_start rtaudio 3 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
out=$(native --as rtplain MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:rr uint32:5)
expect_error "rtplain asking for rtaudio's thread" "$NATIVE_ERR.PermissionDenied" \
	"pid $HOLDER_PID names no process of the caller" "$out"
printf '%s\n' "$out" | grep -q "uid $UID_AUDIO" && fail "the refusal names rtaudio's uid: $out" ||
	ok "the refusal does not say whose the process is"
expect_sched "rtaudio's thread untouched after rtplain's attempt" "$T1" "other 0"

as_bg rtaudio sleep 30
OTHER=$!
integ_track $OTHER
out=$(native --as rtaudio MakeThreadRealtime uint64:$OTHER uint64:$T1 string:fifo uint32:50)
expect_error "tid of another process of the same user" "$NATIVE_ERR.NoSuchProcess" \
	"$T1.*not a thread of process $OTHER" "$out"
kill $OTHER
wait $OTHER 2>/dev/null
integ_untrack $OTHER
# a pid that names nothing is answered as another user's is (test-hidepid.sh)
out=$(native --as rtaudio MakeThreadRealtime uint64:$OTHER uint64:0 string:fifo uint32:50)
expect_error "tid 0 of a dead pid" "$NATIVE_ERR.PermissionDenied" "pid $OTHER names no process of the caller" "$out"
out=$(native --as rtaudio MakeThreadRealtime uint64:$OTHER uint64:$OTHER string:fifo uint32:50)
expect_error "a dead pid and tid" "$NATIVE_ERR.PermissionDenied" "pid $OTHER names no process of the caller" "$out"
out=$(native MakeThreadRealtime uint64:$OTHER uint64:0 string:fifo uint32:50)
expect_error "root is told a dead pid does not exist" "$NATIVE_ERR.NoSuchProcess" "process $OTHER does not exist" "$out"
out=$(native --as rtaudio MakeThreadRealtime uint64:$T1 uint64:$T1 string:fifo uint32:50)
expect_error "the caller's own thread id given as the pid" "$NATIVE_ERR.NoSuchProcess" "$T1 is not a process" "$out"

# --- grant on another thread of the caller's own process, list, reset -----
out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$T1 string:fifo uint32:60)
expect_success "rtaudio grants fifo 60 to thread $T1 of its process $HOLDER_PID" "$out"
expect_sched "the kernel shows the grant" "$T1" "fifo 60"
out=$(native --as rtaudio MakeThreadHighPriority uint64:$HOLDER_PID uint64:$T2 int32:-10)
expect_success "rtaudio sets nice -10 on thread $T2" "$out"
[ "$(nice_of "$T2")" = -10 ] && ok "the kernel shows nice -10" || fail "thread $T2 has nice $(nice_of "$T2")"

out=$(native --as rtaudio ListGrants)
if echo "$out" | grep -A8 "uint64 $T1\$" | grep -q '"fifo"' && echo "$out" | grep -q '"rtaudio"'; then
	ok "ListGrants shows thread $T1 (rtaudio, fifo)"
else
	fail "ListGrants lacks thread $T1: $out"
fi
echo "$out" | grep -A8 "uint64 $T1\$" | grep -q 'int32 60' && ok "ListGrants gives priority 60" ||
	fail "ListGrants priority for $T1: $out"

out=$(native --as rtplain ResetThread uint64:$HOLDER_PID uint64:$T1)
expect_error "rtplain resetting rtaudio's thread" "$NATIVE_ERR.PermissionDenied" "$HOLDER_PID" "$out"
expect_sched "still granted after rtplain's reset attempt" "$T1" "fifo 60"
out=$(native --as rtaudio ResetThread uint64:$HOLDER_PID uint64:$T1)
expect_success "rtaudio resets thread $T1" "$out"
expect_sched "reset back to SCHED_OTHER" "$T1" "other 0"
native --as rtaudio ListGrants | grep -q "uint64 $T1\$" && fail "ListGrants still lists reset thread $T1" ||
	ok "the reset thread left ListGrants"
out=$(native --as rtaudio ResetProcess uint64:$HOLDER_PID)
expect_success "rtaudio ResetProcess" "$out"
[ "$(nice_of "$T2")" = 0 ] && ok "ResetProcess put nice back to 0" || fail "thread $T2 still nice $(nice_of "$T2")"

# --- properties answer for the caller --------------------------------------
prop()
{
	run_as "$1" dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
		org.freedesktop.DBus.Properties.Get string:$NATIVE_IFACE string:"$2" 2>&1 |
		sed -n 's/.*\(int32\|int64\) \(-\{0,1\}[0-9]*\).*/\2/p'
}
[ "$(prop rtaudio MaxRealtimePriority)" = 95 ] && ok "MaxRealtimePriority for rtaudio is 95" ||
	fail "MaxRealtimePriority for rtaudio: $(prop rtaudio MaxRealtimePriority)"
[ "$(prop rtplain MaxRealtimePriority)" = 20 ] && ok "MaxRealtimePriority for rtplain is 20" ||
	fail "MaxRealtimePriority for rtplain: $(prop rtplain MaxRealtimePriority)"
[ "$(prop rtalice MaxRealtimePriority)" = 99 ] && ok "MaxRealtimePriority for rtalice is 99" ||
	fail "MaxRealtimePriority for rtalice: $(prop rtalice MaxRealtimePriority)"
[ "$(prop rtplain MinNiceLevel)" = -15 ] && ok "MinNiceLevel for rtplain is -15" ||
	fail "MinNiceLevel for rtplain: $(prop rtplain MinNiceLevel)"
[ "$(prop rtplain RTTimeUSecMax)" = 200000 ] && ok "RTTimeUSecMax for rtplain is 200000" ||
	fail "RTTimeUSecMax for rtplain: $(prop rtplain RTTimeUSecMax)"

# the running daemon's version, native interface only (realtimectl check's daemon line)
version=$(run_as rtplain dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Properties.Get string:$NATIVE_IFACE string:Version 2>&1 |
	sed -n 's/.*string "\(.*\)"/\1/p')
want=$("$TOP_BUILDDIR/daemon/realtimed" --version | awk '{ print $2 }')
[ -n "$version" ] && [ "$version" = "$want" ] && ok "Version is realtimed --version's ($version)" ||
	fail "Version: '$version', realtimed --version says '$want'"
run_as rtplain dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Properties.GetAll string:$NATIVE_IFACE 2>&1 | grep -q '"Version"' &&
	ok "GetAll lists Version" || fail "GetAll does not list Version"

# --- Explain ----------------------------------------------------------------
out=$(native --as rtaudio Explain uint32:$UID_AUDIO)
if echo "$out" | grep -A4 '"RealtimePriority"' | grep -q '"95"' &&
	echo "$out" | grep -A4 '"RealtimePriority"' | grep -q "realtime.conf:$L_AUD_PRIO\""; then
	ok "Explain($UID_AUDIO): RealtimePriority 95 from realtime.conf:$L_AUD_PRIO"
else
	fail "Explain($UID_AUDIO): $out"
fi
out=$(native --as rtalice Explain uint32:$UID_ALICE)
echo "$out" | grep -A4 '"RealtimePriority"' | grep -q "admin.conf:2\"" &&
	ok "Explain($UID_ALICE): RealtimePriority from admin.conf:2" || fail "Explain($UID_ALICE): $out"

# --- GrantLimits: needs CAP_SYS_RESOURCE to raise a hard limit --------------
out=$(native --as rtaudio GrantLimits uint64:$HOLDER_PID)
if grep -q '^CapEff:.*' /proc/self/status && capsh --has-p=cap_sys_resource 2>/dev/null; then
	expect_success "GrantLimits on rtaudio's process" "$out"
	grep -q '^Max realtime priority *95 *95' "/proc/$HOLDER_PID/limits" &&
		ok "/proc/PID/limits shows RLIMIT_RTPRIO 95" || fail "limits: $(grep -i realtime "/proc/$HOLDER_PID/limits")"
else
	note "this root has no CAP_SYS_RESOURCE, so the daemon cannot raise hard limits"
	expect_error "GrantLimits without CAP_SYS_RESOURCE is refused clearly" "$NATIVE_ERR.Failed" \
		"CAP_SYS_RESOURCE|not permitted" "$out"
fi
out=$(native --as rtplain GrantLimits uint64:$HOLDER_PID)
expect_error "GrantLimits on another user's process" "$NATIVE_ERR.PermissionDenied" "$HOLDER_PID" "$out"

holder_stop
finish
