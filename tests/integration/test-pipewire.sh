#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# PipeWire, unmodified (pipewire-bin), with libpipewire-module-rt asking for
# rt.prio 88 through the RealtimeKit interface on the system bus:
#   - against Debian's rtkit-daemon (same private bus, first) its data thread
#     is clamped to 20, rtkit's maximum for everyone;
#   - against realtimed, for a member of audio, the data thread runs at 88
#     (SCHED_FIFO: CompatPolicy=fifo in [Group audio]), and the grant is
#     listed and dropped when PipeWire exits;
#   - for a non-member PipeWire reads MaxRealtimePriority 20 and gets rr 20.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd pipewire
PW_MODULE_DIR=$(ls -d /usr/lib/*/pipewire-0.3 2>/dev/null | head -n 1)
[ -f "$PW_MODULE_DIR/libpipewire-module-rt.so" ] || skip "libpipewire-module-rt.so is missing (pipewire-bin)"
INTEG_BUS_EXTRA=$INTEG_BUS_RTKIT
integ_setup

mkdir -p "$WORK/pw"
cp "$(dirname "$0")/pipewire-rt88.conf" "$WORK/pw/pipewire.conf"

# pw_start USER: start pipewire as USER; sets PW_PID
pw_start()
{
	rm -rf "$WORK/pw/$1"
	mkdir -p "$WORK/pw/$1/run" "$WORK/pw/$1/home"
	chown -R "$1" "$WORK/pw/$1"
	chmod 700 "$WORK/pw/$1/run"
	as_bg "$1" env -u DBUS_SESSION_BUS_ADDRESS HOME="$WORK/pw/$1/home" XDG_RUNTIME_DIR="$WORK/pw/$1/run" \
		PIPEWIRE_DEBUG=3 pipewire -c "$WORK/pw/pipewire.conf" >"$WORK/pw/$1.log" 2>&1
	PW_PID=$!
	integ_track $PW_PID
	# the data thread gets its priority after module-rt asked over D-Bus
	wait_for 10 grep -q 'acquired realtime priority\|could not make thread\|Failed to acquire' "$WORK/pw/$1.log"
	sleep 0.2
}

pw_stop()
{
	integ_stop "$PW_PID"
}

# pw_rt_thread: "TID POLICY PRIO" of PipeWire's realtime (data) thread, if any
pw_rt_thread()
{
	rt_threads "$PW_PID" | head -n 1
}

if [ -x "$RTKIT_DAEMON" ]; then
	if integ_start_rtkit; then
		pw_start rtaudio
		rt=$(pw_rt_thread)
		note "rtkit-daemon: PipeWire's data thread: ${rt:-none}"
		case "$rt" in
		*" rr 20") ok "rtkit-daemon clamps PipeWire's rt.prio 88 to rr 20 for an audio member ($rt)" ;;
		*) fail "rtkit-daemon: expected the data thread at rr 20, got '${rt:-none}': $(grep mod.rt "$WORK/pw/rtaudio.log")" ;;
		esac
		pw_stop
		integ_stop_rtkit
	else
		note "rtkit-daemon did not start here; skipping the side-by-side part"
	fi
else
	note "rtkit-daemon is not installed; skipping the side-by-side part"
fi

integ_start_daemon
pw_start rtaudio
rt=$(pw_rt_thread)
note "realtimed: PipeWire's data thread: ${rt:-none}"
case "$rt" in
*" fifo 88") ok "realtimed: PipeWire's data thread runs SCHED_FIFO 88 for an audio member ($rt)" ;;
*) fail "realtimed: expected the data thread at fifo 88, got '${rt:-none}': $(grep mod.rt "$WORK/pw/rtaudio.log")" ;;
esac
tid=${rt%% *}
if [ -n "$tid" ] && native ListGrants | grep -q "uint64 $tid\$"; then
	ok "the data thread's grant is listed"
else
	fail "the data thread $tid is not in ListGrants"
fi
nice=$(nice_of "$PW_PID")
[ "$nice" = -11 ] && ok "PipeWire's main thread got nice.level -11 (MakeThreadHighPriority)" ||
	fail "PipeWire's main thread has nice $nice, want -11"
pw_stop
if [ -n "$tid" ] && wait_for 2 sh -c "! dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.ListGrants | grep -q 'uint64 $tid\$'"; then
	ok "PipeWire exited: its grants are gone"
else
	fail "PipeWire exited but thread $tid is still listed"
fi

pw_start rtplain
rt=$(pw_rt_thread)
case "$rt" in
*" rr 20") ok "a non-member's PipeWire is clamped to rr 20 by the policy it reads ($rt)" ;;
*) fail "rtplain: expected rr 20, got '${rt:-none}': $(grep mod.rt "$WORK/pw/rtplain.log")" ;;
esac
pw_stop

finish
