#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# librealtime-preload.so under `realtimectl run --threads`, as the audio
# member rtaudio whose RLIMIT_RTPRIO is 0: tests/integration/preload-probe.c
# asks the kernel for realtime in every way the preload interposes and
# checks what the kernel then runs (its cases say what each proves):
#   - each interposed call succeeds, granted by realtimed (the kernel shows
#     SCHED_RESET_ON_FORK, which only realtimed sets, and dbus-monitor sees
#     the MakeThreadRealtime calls); the same program without the preload
#     gets EPERM;
#   - pthread_create with explicit SCHED_FIFO attributes, and a thread
#     created by a granted thread with inherited scheduling, are realtime
#     before their start routine runs;
#   - a child of fork, its threads and what it execs are not realtime;
#   - beyond policy: the kernel's EPERM, in each call's convention;
#   - realtimed absent, or a bus that never answers: EPERM, in bounded time;
#   - the kernel allows it (CAP_SYS_NICE): no call to realtimed at all;
#   - mlockall: GrantLimits is asked; without CAP_SYS_RESOURCE (this host)
#     the kernel's error comes back, with it (the VM, stack.sh) it succeeds.
# Nothing here spins: every realtime thread sleeps or ends.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd dbus-monitor prlimit python3
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_require_preload
PROBE=$TOP_BUILDDIR/tests/integration/preload-probe
[ -x "$PROBE" ] || skip "preload-probe is not built ($PROBE)"
integ_setup
integ_start_daemon

run_as rtaudio grep -q '^Max realtime priority *0 *0' /proc/self/limits &&
	ok "rtaudio runs with RLIMIT_RTPRIO 0" || fail "rtaudio's RLIMIT_RTPRIO is not 0: $(run_as rtaudio grep 'realtime priority' /proc/self/limits)"

# Calls to realtimed's native interface, as the bus sees them.
dbus-monitor --system "type='method_call',interface='$NATIVE_IFACE'" >"$WORK/monitor" 2>&1 &
integ_track $!
sleep 0.5
calls()
{
	grep -c "member=$1" "$WORK/monitor"
}

# probe [--no-preload] [PRELOAD_ENV...] -- CASE ARGS: preload-probe as rtaudio
# through realtimectl run --threads; its ok/FAIL lines count as this test's.
probe()
{
	_pre=yes
	if [ "$1" = --no-preload ]; then
		_pre=
		shift
	fi
	_env=""
	while [ "$1" != -- ]; do
		_env="$_env $1"
		shift
	done
	shift
	if [ -n "$_pre" ]; then
		# shellcheck disable=SC2086
		run_as rtaudio env REALTIME_PRELOAD_DEBUG=1 $_env "$REALTIMECTL" run --threads -- \
			"$PROBE" "$@" >"$WORK/probe.out" 2>"$WORK/probe.err"
	else
		# shellcheck disable=SC2086
		run_as rtaudio env $_env "$PROBE" "$@" >"$WORK/probe.out" 2>"$WORK/probe.err"
	fi
	PROBE_RC=$?
	sed 's/^/#   /' "$WORK/probe.err"
}
# relay: the probe's checks as this test's (a probe that checked nothing fails)
relay()
{
	while IFS= read -r l; do
		case "$l" in
		"ok   - "*) ok "${l#ok   - }" ;;
		"FAIL - "*) fail "${l#FAIL - }" ;;
		*) note "$l" ;;
		esac
	done <"$WORK/probe.out"
	grep -q '^ok\|^FAIL' "$WORK/probe.out" || fail "the probe checked nothing: $(cat "$WORK/probe.err")"
}

probe --no-preload -- setscheduler
grep -q '^FAIL - sched_setscheduler(0, SCHED_RR, 25) returns -1' "$WORK/probe.out" &&
	ok "without the preload the kernel refuses rtaudio SCHED_RR 25" ||
	fail "without the preload: $(head -n 3 "$WORK/probe.out")"

for c in setschedparam setschedprio setscheduler setparam setattr create inherit fork many; do
	echo "# --- $c"
	probe -- "$c"
	relay
	[ "$PROBE_RC" = 0 ] || fail "preload-probe $c exited $PROBE_RC"
done
n=$(calls MakeThreadRealtime)
[ "$n" -ge 16 ] && ok "realtimed was asked $n times (MakeThreadRealtime on the bus)" ||
	fail "realtimed was asked $n times, not 16 or more: $(tail -n 5 "$WORK/monitor")"
out=$(run_as rtaudio "$REALTIMECTL" status --no-legend 2>&1)
[ -z "$out" ] && ok "no grant outlives the probes (realtimectl status is empty)" ||
	fail "grants left behind: $out"

echo "# --- beyond policy"
probe -- refused 96
relay

echo "# --- the kernel allows it: rtaudio with CAP_SYS_NICE (ambient, as pam_realtime's Capabilities=sys_nice)"
before=$(calls MakeThreadRealtime)
setpriv --reuid=rtaudio --regid=rtaudio --init-groups --inh-caps=+sys_nice --ambient-caps=+sys_nice -- \
	env REALTIME_PRELOAD_DEBUG=1 "$REALTIMECTL" run --threads -- "$PROBE" allowed \
	>"$WORK/probe.out" 2>"$WORK/allowed.err"
PROBE_RC=$?
relay
[ "$PROBE_RC" = 0 ] && grep -q '^ok' "$WORK/probe.out" || fail "preload-probe allowed exited $PROBE_RC: $(cat "$WORK/allowed.err")"
grep -q librealtime-preload "$WORK/allowed.err" &&
	fail "where the kernel allows it the preload acted: $(cat "$WORK/allowed.err")" ||
	ok "where the kernel allows it the preload said nothing (REALTIME_PRELOAD_DEBUG)"
# a probe known to ask realtimed once, so the monitor is seen listening
probe -- setattr
wait_for 2 sh -c "[ \$(grep -c member=MakeThreadRealtime '$WORK/monitor') -gt $before ]"
after=$(calls MakeThreadRealtime)
[ $((after - before)) = 1 ] &&
	ok "where the kernel allows it no call reached realtimed (the next probe's 1 call did)" ||
	fail "where the kernel allows it: $((after - before)) calls to realtimed around it (want the next probe's 1 only)"

echo "# --- realtimed absent"
integ_stop_daemon
probe -- absent 1000
relay
[ "$PROBE_RC" = 0 ] || fail "preload-probe absent exited $PROBE_RC"
# a bus that takes the connection and never answers: the timeout bounds it
python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(16)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' "$WORK/mute.sock" &
integ_track $!
wait_for 5 test -S "$WORK/mute.sock"
chmod 777 "$WORK/mute.sock"
probe DBUS_SYSTEM_BUS_ADDRESS=unix:path=$WORK/mute.sock REALTIME_TIMEOUT_MSEC=500 timeout 10 -- absent 2000
relay
[ "$PROBE_RC" = 0 ] || fail "preload-probe absent, on a bus that never answers, exited $PROBE_RC (124: killed after 10 s)"


echo "# --- mlockall"
integ_start_daemon
# RLIMIT_MEMLOCK 64 KiB, as root sets it: less than the probe has mapped
before=$(calls GrantLimits)
prlimit --memlock=65536:65536 setpriv --reuid=rtaudio --regid=rtaudio --init-groups -- \
	env REALTIME_PRELOAD_DEBUG=1 "$REALTIMECTL" run --threads -- "$PROBE" mlockall \
	>"$WORK/probe.out" 2>"$WORK/probe.err"
PROBE_RC=$?
sed 's/^/#   /' "$WORK/probe.err"
wait_for 2 sh -c "[ \$(grep -c member=GrantLimits '$WORK/monitor') -gt $before ]"
out=$(cat "$WORK/probe.out")
after=$(calls GrantLimits)
[ $((after - before)) = 1 ] && ok "mlockall refused: the preload asked realtimed for the limits once" ||
	fail "mlockall: $((after - before)) GrantLimits calls (want 1)"
if capsh --has-p=cap_sys_resource 2>/dev/null; then
	[ "$PROBE_RC" = 0 ] && ok "mlockall succeeds after GrantLimits ($out)" ||
		fail "mlockall failed though realtimed may raise the limit: $out"
else
	case "$out" in
	"mlockall: Cannot allocate memory" | "mlockall: Operation not permitted")
		ok "without CAP_SYS_RESOURCE realtimed cannot raise RLIMIT_MEMLOCK: the kernel's own error comes back ($out)" ;;
	*) fail "mlockall without CAP_SYS_RESOURCE: $out" ;;
	esac
	note "mlockall succeeding is proven in the VM (tests/vm/guest/stack.sh), where root has CAP_SYS_RESOURCE"
fi

finish
