#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The RealtimeKit-compatible interface (org.freedesktop.RealtimeKit1), driven
# by rtkit's own clients from Debian's rtkit package: rtkit-test (properties,
# high priority, realtime) and rtkitctl (--reset-known, --reset-all, --exit),
# plus dbus-send for each method and rtkit's error names. Properties answer
# for the caller (an audio member reads 95, not 20). A reload with
# RtkitCompat=no gives the name up, one with RtkitCompat=yes while
# rtkit-daemon holds it says it could not take it, and one after that takes
# it again.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
RTKIT_TEST=/usr/libexec/installed-tests/rtkit/rtkit-test
integ_require_cmd "$RTKIT_TEST" rtkitctl
# rtkit's own bus policy, for rtkit-daemon holding the name in the reload part
INTEG_BUS_EXTRA=$INTEG_BUS_RTKIT
integ_setup
# rtalice: a covered user whose compat grants are SCHED_RR, as rtkit's are,
# so rtkit-test (which only knows SCHED_RR) can report them
integ_admin_conf <<-EOF
	[User rtalice]
	CompatPolicy=rr
EOF
integ_start_daemon

name_has_owner $RTKIT_NAME && ok "realtimed owns $RTKIT_NAME (RtkitCompat=yes in the shipped policy)" ||
	fail "$RTKIT_NAME is not owned"

out=$(run_as rtalice "$RTKIT_TEST" 2>&1)
echo "$out" | sed 's/^/#   /'
echo "$out" | grep -q 'Max realtime priority is: 95' && ok "rtkit-test reads MaxRealtimePriority 95 for an audio member" ||
	fail "rtkit-test MaxRealtimePriority"
echo "$out" | grep -q 'Min nice level is: -19' && ok "rtkit-test reads MinNiceLevel -19" || fail "rtkit-test MinNiceLevel"
echo "$out" | grep -q 'Successfully became high priority' &&
	echo "$out" | grep -A2 'after high priority' | grep -q 'nice level: -10' &&
	ok "rtkit-test became high priority (nice -10)" || fail "rtkit-test high priority"
echo "$out" | grep -q 'Successfully became realtime' &&
	echo "$out" | grep -A3 'after realtime' | grep -q 'SCHED_RESET_ON_FORK: yes' &&
	echo "$out" | grep -A3 'after realtime' | grep -q 'SCHED_RR with priority 10' &&
	ok "rtkit-test became realtime: SCHED_RR 10 with SCHED_RESET_ON_FORK" || fail "rtkit-test realtime"

out=$(run_as rtplain "$RTKIT_TEST" 2>&1)
echo "$out" | grep -q 'Max realtime priority is: 20' && ok "rtkit-test as a non-member reads MaxRealtimePriority 20" ||
	fail "rtkit-test run_as rtplain: $out"

# GetAll, as PipeWire and PulseAudio read it
out=$(run_as rtaudio dbus-send --system --print-reply --dest=$RTKIT_NAME $RTKIT_PATH \
	org.freedesktop.DBus.Properties.GetAll string:$RTKIT_IFACE 2>&1)
echo "$out" | grep -A1 '"MaxRealtimePriority"' | grep -q 'int32 95' &&
	echo "$out" | grep -A1 '"MinNiceLevel"' | grep -q 'int32 -19' &&
	echo "$out" | grep -A1 '"RTTimeUSecMax"' | grep -q 'int64' &&
	ok "Properties.GetAll answers for the caller (95, -19, RTTimeUSecMax)" || fail "GetAll: $out"

# each compat method
holder_start rtaudio 3 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
T3=$(holder_tid 3)
out=$(rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:$HOLDER_PID uint64:$T1 uint32:88)
expect_success "MakeThreadRealtimeWithPID 88 for an audio member" "$out"
expect_sched "CompatPolicy=fifo: the thread runs SCHED_FIFO 88" "$T1" "fifo 88"
out=$(rtkit --as rtaudio MakeThreadHighPriorityWithPID uint64:$HOLDER_PID uint64:$T2 int32:-15)
expect_success "MakeThreadHighPriorityWithPID -15" "$out"
[ "$(nice_of "$T2")" = -15 ] && ok "the thread runs at nice -15" || fail "nice of $T2 is $(nice_of "$T2")"
out=$(rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:$HOLDER_PID uint64:$T3 uint32:96)
if echo "$out" | grep -q '^Error org.freedesktop.DBus.Error.AccessDenied\|^Error org.freedesktop.DBus.Error.InvalidArgs\|^Error org.freedesktop.RealtimeKit1' &&
	echo "$out" | grep -q '95'; then
	ok "priority 96 refused with an rtkit error that names the limit 95 ($(echo "$out" | head -n1 | cut -c1-120))"
else
	fail "priority 96 over the compat interface: $out"
fi
out=$(rtkit --as rtplain MakeThreadRealtimeWithPID uint64:$HOLDER_PID uint64:$T3 uint32:5)
echo "$out" | grep -q '^Error org.freedesktop.DBus.Error.AccessDenied' &&
	ok "another user's thread: AccessDenied, as rtkit answers" || fail "rtplain on rtaudio's thread: $out"
out=$(rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:999999 uint64:999999 uint32:5)
echo "$out" | grep -q '^Error org.freedesktop.DBus.Error' && ok "a dead pid refused ($(echo "$out" | head -n1 | cut -c1-100))" ||
	fail "dead pid over compat: $out"

# the native interface sees compat grants
native ListGrants | grep -q "uint64 $T1\$" && ok "a compat grant is listed by the native ListGrants" ||
	fail "compat grant of $T1 not listed"

# rtkitctl: root only, by the bus policy
out=$(run_as rtaudio rtkitctl --reset-all 2>&1)
[ $? != 0 ] && ok "rtkitctl --reset-all as a user is denied by the bus policy" || fail "rtkitctl --reset-all run_as rtaudio succeeded"
expect_sched "the thread kept its grant" "$T1" "fifo 88"
rtkitctl --reset-known >"$WORK/rtkitctl.out" 2>&1 && ok "rtkitctl --reset-known (root)" ||
	fail "rtkitctl --reset-known: $(cat "$WORK/rtkitctl.out")"
expect_sched "--reset-known demoted the known thread" "$T1" "other 0"
[ "$(nice_of "$T2")" = 0 ] && ok "--reset-known reset nice too" || fail "nice of $T2 is $(nice_of "$T2")"
rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:$HOLDER_PID uint64:$T1 uint32:40 >/dev/null
expect_sched "granted again" "$T1" "fifo 40"
rtkitctl --reset-all >"$WORK/rtkitctl.out" 2>&1 && ok "rtkitctl --reset-all (root)" ||
	fail "rtkitctl --reset-all: $(cat "$WORK/rtkitctl.out")"
expect_sched "--reset-all demoted it" "$T1" "other 0"
holder_stop

# Reload serves the rtkit interface or stops, as RtkitCompat= says; the name
# is asked for and given back asynchronously (no round trip to the bus in
# the Reload handler), and the outcome is logged.
name_gone()
{
	! name_has_owner "$1"
}
integ_admin_conf <<-EOF
	[Daemon]
	RtkitCompat=no
	[User rtalice]
	CompatPolicy=rr
EOF
expect_success "Reload with RtkitCompat=no" "$(native Reload)"
wait_for 5 name_gone $RTKIT_NAME && ok "realtimed gave up $RTKIT_NAME" ||
	fail "$RTKIT_NAME is still owned after RtkitCompat=no"
wait_for 5 grep -q "No longer serving $RTKIT_NAME" "$WORK/realtimed.log" &&
	ok "the journal says it no longer serves $RTKIT_NAME" || fail "no 'No longer serving' line in the log"
integ_admin_conf <<-EOF
	[User rtalice]
	CompatPolicy=rr
EOF
if [ -x "$RTKIT_DAEMON" ] && integ_start_rtkit; then
	expect_success "Reload with RtkitCompat=yes while rtkit-daemon holds the name" "$(native Reload)"
	wait_for 5 grep -q "Could not own $RTKIT_NAME" "$WORK/realtimed.log" &&
		ok "realtimed says it could not own $RTKIT_NAME" || fail "no 'Could not own' line in the log"
	expect_success "the native interface still answers (ListGrants)" "$(native ListGrants)"
	integ_stop_rtkit
else
	note "rtkit-daemon did not start here; skipping the part where it holds the name"
fi
expect_success "Reload with RtkitCompat=yes again" "$(native Reload)"
wait_for 5 name_has_owner $RTKIT_NAME && ok "realtimed owns $RTKIT_NAME again" ||
	fail "$RTKIT_NAME is not owned after RtkitCompat=yes"
[ "$(grep -c "Serving $RTKIT_NAME" "$WORK/realtimed.log")" -ge 2 ] &&
	ok "the journal says it serves $RTKIT_NAME, at start and after the reload" ||
	fail "no second 'Serving $RTKIT_NAME' line in the log"
out=$(run_as rtaudio dbus-send --system --print-reply --dest=$RTKIT_NAME $RTKIT_PATH \
	org.freedesktop.DBus.Properties.Get string:$RTKIT_IFACE string:MaxRealtimePriority 2>&1)
echo "$out" | grep -q 'int32 95' && ok "the rtkit object answers again (MaxRealtimePriority 95)" ||
	fail "rtkit Get after the reload: $out"

rtkitctl --exit >"$WORK/rtkitctl.out" 2>&1 && ok "rtkitctl --exit (root) answered" ||
	fail "rtkitctl --exit: $(cat "$WORK/rtkitctl.out")"
if wait_for 5 sh -c "! kill -0 $DAEMON_PID"; then
	ok "realtimed exited on rtkit's Exit, as rtkit-daemon does"
	integ_untrack "$DAEMON_PID"
else
	fail "realtimed still runs after rtkit's Exit"
fi

finish
