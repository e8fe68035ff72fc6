#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A JACK client run under PipeWire (Debian's pipewire-jack, `pw-jack`),
# unmodified, by a member of audio whose RLIMIT_RTPRIO is 0: PipeWire's
# libjack loads libpipewire-module-rt (jack.conf), which finds that the
# rlimits do not allow realtime and asks org.freedesktop.RealtimeKit1 on the
# system bus, here served by realtimed. jack_metro's process thread (made by
# jack_activate) then runs SCHED_FIFO 88, module-rt's rt.prio, as the kernel
# and `realtimectl status` both say; dbus-monitor shows the request went
# through RealtimeKit1; no rlimit of the client was raised. Before realtimed
# runs the same client gets no realtime thread (the grant is realtimed's, not
# the kernel's), and when the client exits its grant is gone.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd pipewire pw-jack jack_metro chrt dbus-monitor
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
PW_MODULE_DIR=$(ls -d /usr/lib/*/pipewire-0.3 2>/dev/null | head -n 1)
[ -f "$PW_MODULE_DIR/libpipewire-module-rt.so" ] || skip "libpipewire-module-rt.so is missing (pipewire-bin)"
[ -e "$PW_MODULE_DIR/jack/libjack.so.0" ] || skip "PipeWire's libjack is missing (Debian package pipewire-jack)"
integ_setup
# PipeWire's JACK clients map the server's shared memory from /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || skip "cannot mount a private /dev/shm"

U=rtaudio
mkdir -p "$WORK/pw/run" "$WORK/pw/home"
chown -R "$U" "$WORK/pw"
chmod 700 "$WORK/pw/run"
# PipeWire as a user's session starts it: its own runtime dir, Debian's
# pipewire.conf (module-rt: nice.level -11, rt.prio 88, the Dummy-Driver)
# (split into words on purpose: $WORK, from mktemp, has no blanks)
PW_ENV="env -u DBUS_SESSION_BUS_ADDRESS HOME=$WORK/pw/home XDG_RUNTIME_DIR=$WORK/pw/run PIPEWIRE_DEBUG=3"

baseline=$(run_as $U cat /proc/self/limits)
printf '%s\n' "$baseline" | grep -q '^Max realtime priority *0 *0 ' &&
	ok "$U has RLIMIT_RTPRIO 0 (no login limits): the kernel would refuse SCHED_FIFO" ||
	skip "$U's RLIMIT_RTPRIO is not 0 here: $(printf '%s\n' "$baseline" | grep -i 'realtime priority')"

# pw_start / client_start: set PW_PID / CL_PID
pw_start()
{
	as_bg $U $PW_ENV pipewire >"$WORK/pw/server.log" 2>&1
	PW_PID=$!
	integ_track $PW_PID
	wait_for 10 test -S "$WORK/pw/run/pipewire-0" || { tail -n 20 "$WORK/pw/server.log"; fail "pipewire did not start"; finish; }
}

client_start()
{
	as_bg $U $PW_ENV pw-jack jack_metro -b 120 >"$WORK/pw/$1.log" 2>&1
	CL_PID=$!
	integ_track $CL_PID
	# jack_activate creates the process thread and module-rt asks for it
	wait_for 10 grep -q 'impl_create()] create thread' "$WORK/pw/$1.log" ||
		{ tail -n 20 "$WORK/pw/$1.log"; fail "jack_metro under pw-jack did not activate"; }
}

# 1. No realtimed: nothing owns RealtimeKit1, so the client stays SCHED_OTHER.
pw_start
client_start none
sleep 1
rt=$(rt_threads "$CL_PID")
if [ -z "$rt" ] && [ -d "/proc/$CL_PID" ]; then
	ok "without realtimed the JACK client has no realtime thread (the kernel alone refuses it)"
else
	fail "without realtimed the JACK client has realtime threads: '${rt:-its process is gone}'"
fi
integ_stop "$CL_PID"
integ_stop "$PW_PID"

# 2. realtimed serves RealtimeKit1.
integ_start_daemon
dbus-monitor --system "type='method_call',interface='$RTKIT_IFACE'" >"$WORK/monitor.out" 2>&1 &
integ_track $!
sleep 0.5
pw_start
client_start granted
wait_for 5 sh -c "grep -q 'acquired realtime priority.*using RTKit' '$WORK/pw/granted.log'"
sleep 0.3
rt=$(rt_threads "$CL_PID")
note "jack_metro (pid $CL_PID) realtime threads: $(echo $rt)"
note "module-rt: $(grep 'mod.rt' "$WORK/pw/granted.log" | sed 's/.*\] //' | tr '\n' ';')"
tid=$(echo "$rt" | awk '$2 == "fifo" && $3 == 88 { print $1; exit }')
if [ -n "$tid" ]; then
	ok "the JACK client's process thread $tid runs SCHED_FIFO 88 (module-rt's rt.prio)"
else
	fail "no thread of the JACK client runs fifo 88: '${rt:-none}': $(grep mod.rt "$WORK/pw/granted.log" | tail -n 3)"
	finish
fi
[ "$(cat "/proc/$CL_PID/task/$tid/comm")" = jack_metro ] &&
	ok "thread $tid is the client's JACK process thread (named jack_metro), not a PipeWire helper" ||
	fail "thread $tid is named '$(cat "/proc/$CL_PID/task/$tid/comm")'"
out=$(chrt -p "$tid")
echo "$out" | grep -q 'policy: SCHED_FIFO' && echo "$out" | grep -q 'priority: 88$' &&
	ok "chrt -p $tid agrees: $(echo "$out" | tr '\n' ' ')" || fail "chrt -p $tid: $out"

# the request went over RealtimeKit1, for the client's own thread
if grep -A3 "member=MakeThreadRealtime" "$WORK/monitor.out" | grep -q "uint64 $tid\$"; then
	ok "the grant came through $RTKIT_IFACE: $(grep -o 'member=MakeThreadRealtime[A-Za-z]*' "$WORK/monitor.out" | sort -u | tr '\n' ' ')"
else
	fail "dbus-monitor saw no RealtimeKit1 MakeThreadRealtime* call for thread $tid: $(cat "$WORK/monitor.out" | head -n 20)"
fi

# realtimed supervises it, and realtimectl status shows it to the user
st=$(run_as $U "$REALTIMECTL" --no-legend status 2>&1)
if printf '%s\n' "$st" | awk -v p="$CL_PID" -v t="$tid" '$1 == p && $2 == t && /jack_metro/ && / fifo +88 /' | grep -q .; then
	ok "realtimectl status lists the grant: $(printf '%s\n' "$st" | awk -v t="$tid" '$2 == t' | tr -s ' ')"
else
	fail "realtimectl status does not list $CL_PID/$tid at fifo 88: $st"
fi

# no rlimit was raised: RLIMIT_RTPRIO is still 0, and no scheduling rlimit
# is above $U's own. (module-rt itself lowers RLIMIT_RTTIME to the
# RTTimeUSecMax it read, as it does under rtkit: INT64_MAX for "no limit".)
limits=$(cat "/proc/$CL_PID/limits")
printf '%s\n' "$limits" | grep -q '^Max realtime priority *0 *0 ' &&
	ok "the client's RLIMIT_RTPRIO is still 0/0" ||
	fail "the client's RLIMIT_RTPRIO changed: $(printf '%s\n' "$limits" | grep -i 'realtime priority')"
# limit_of NAME: "SOFT HARD" of the limits on stdin, unlimited as 2^64-1
limit_of()
{
	grep "^$1 " | sed "s/^$1 *//; s/unlimited/18446744073709551615/g" | awk '{ print $1, $2 }'
}
for l in 'Max locked memory' 'Max nice priority' 'Max realtime timeout'; do
	a=$(printf '%s\n' "$baseline" | limit_of "$l")
	b=$(printf '%s\n' "$limits" | limit_of "$l")
	if [ -n "$b" ] && echo "$a $b" | awk '{ exit !($3 <= $1 && $4 <= $2) }'; then
		ok "the client's '$l' ($b) is not above $U's own ($a)"
	else
		fail "'$l' was raised: $U has '$a', the client '$b'"
	fi
done

# the grant ends with the client
integ_stop "$CL_PID"
if wait_for 2 sh -c "! dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	$NATIVE_IFACE.ListGrants | grep -q 'uint64 $tid\$'"; then
	ok "the JACK client exited: its grant is gone"
else
	fail "the JACK client exited but thread $tid is still listed"
fi
integ_stop "$PW_PID"

finish
