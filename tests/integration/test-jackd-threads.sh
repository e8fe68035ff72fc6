#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Debian's jackd2, unmodified, under `realtimectl run --threads` as the audio
# member rtaudio, whose RLIMIT_RTPRIO is 0 and stays 0:
#   - `jackd -R -P 70 -d dummy` runs its realtime threads at SCHED_FIFO 70,
#     as jackd sets them, granted by realtimed (the bus carries the
#     MakeThreadRealtime calls; `realtimectl status` lists the threads);
#   - JACK clients of jackd2 (jack_metro, jack_simple_client) started the
#     same way get their process thread realtime at the priority libjack
#     asks for (what the preload's REALTIME_PRELOAD_DEBUG line says it was
#     asked), granted and listed too;
#   - the same jackd without --threads gets no realtime thread, and asks
#     realtimed nothing.
# mlockall and the canary over these threads are the VM's (tests/vm/guest/
# jack-threads.sh): RLIMIT_MEMLOCK cannot be raised on a host whose root
# lacks CAP_SYS_RESOURCE, and a spinning realtime thread must never run here.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd jackd jack_metro jack_simple_client dbus-monitor
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_require_preload
integ_setup
# JACK keeps its server sockets and shared memory in /dev/shm: a private one
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || skip "cannot mount a private /dev/shm"
integ_start_daemon

mkdir -p "$WORK/jack"
chown rtaudio "$WORK/jack"
JACK_ENV="HOME=$WORK/jack JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 REALTIME_PRELOAD_DEBUG=1"

dbus-monitor --system "type='method_call',interface='$NATIVE_IFACE',member='MakeThreadRealtime'" \
	>"$WORK/monitor" 2>&1 &
integ_track $!
sleep 0.5
calls()
{
	grep -c "member=MakeThreadRealtime" "$WORK/monitor"
}

# rt_threads PID: "TID POLICY PRIO" of each realtime thread of PID
rt_threads()
{
	for _t in /proc/"$1"/task/*; do
		_t=${_t##*/}
		case "$(sched_name_of "$_t")" in
		fifo* | rr*) echo "$_t $(sched_name_of "$_t")" ;;
		esac
	done
}

# jackd_start LOG [run --threads]: jackd -R -P 70 as rtaudio; JACK_PID
jackd_start()
{
	_log=$1
	shift
	# shellcheck disable=SC2086
	as_bg rtaudio env $JACK_ENV "$@" jackd -R -P 70 -d dummy -r 48000 -p 256 >"$WORK/$_log" 2>&1
	JACK_PID=$!
	integ_track $JACK_PID
}

jackd_stop()
{
	kill "$JACK_PID" 2>/dev/null
	wait "$JACK_PID" 2>/dev/null
	integ_untrack "$JACK_PID"
}

echo "# --- jackd -R -P 70 without --threads"
before=$(calls)
jackd_start jackd-plain.log
# it is up (or gone) once its server socket is there
wait_for 10 sh -c "ls /dev/shm/jack* >/dev/null 2>&1 || ! kill -0 $JACK_PID"
sleep 1
rt=$(rt_threads "$JACK_PID")
[ -z "$rt" ] && ok "without --threads jackd has no realtime thread" ||
	fail "without --threads jackd has realtime threads: $rt"
[ "$(calls)" = "$before" ] && ok "and asked realtimed nothing" || fail "jackd without the preload called realtimed"
grep -i 'real-time\|realtime\|permit' "$WORK/jackd-plain.log" | head -n 3 | sed 's/^/#   jackd: /'
jackd_stop

echo "# --- realtimectl run --threads -- jackd -R -P 70"
before=$(calls)
jackd_start jackd.log "$REALTIMECTL" run --threads --
rt=""
i=0
while [ $i -lt 100 ] && ! echo "$rt" | grep -q ' fifo 70$'; do
	sleep 0.1
	rt=$(rt_threads "$JACK_PID")
	i=$((i + 1))
done
echo "$rt" | sed 's/^/#   realtime thread: /'
if echo "$rt" | grep -q ' fifo 70$'; then
	ok "jackd runs SCHED_FIFO 70 threads: $(echo "$rt" | awk '$2 == "fifo" && $3 == 70 { printf "%s ", $1 }')"
else
	fail "jackd has no SCHED_FIFO 70 thread: '$rt': $(tail -n 20 "$WORK/jackd.log")"
fi
n=$(($(calls) - before))
[ "$n" -ge 1 ] && ok "realtimed was asked $n times (MakeThreadRealtime)" || fail "realtimed was not asked"
grep -q '^Max realtime priority *0 *0' "/proc/$JACK_PID/limits" &&
	ok "jackd's RLIMIT_RTPRIO is still 0: no rlimits were asked for" ||
	fail "jackd's RLIMIT_RTPRIO: $(grep 'realtime priority' "/proc/$JACK_PID/limits")"
status=$(run_as rtaudio "$REALTIMECTL" status --no-legend 2>&1)
echo "$status" | sed 's/^/#   status: /'
for t in $(echo "$rt" | awk '{ print $1 }'); do
	echo "$status" | grep -qE "^ *$JACK_PID +$t +.*fifo +70" &&
		ok "realtimectl status lists jackd's thread $t, SCHED_FIFO 70" ||
		fail "realtimectl status does not list jackd's thread $t as fifo 70"
done
grep 'librealtime-preload' "$WORK/jackd.log" | sed 's/^/#   /'

for client in jack_metro jack_simple_client; do
	echo "# --- realtimectl run --threads -- $client"
	if [ "$client" = jack_metro ]; then
		set -- jack_metro -b 120
	else
		set -- jack_simple_client
	fi
	# shellcheck disable=SC2086
	as_bg rtaudio env $JACK_ENV "$REALTIMECTL" run --threads -- "$@" >"$WORK/$client.log" 2>&1
	CPID=$!
	integ_track $CPID
	# the preload's line names the thread and the priority libjack asked for
	wait_for 10 grep -q 'realtimed granted it' "$WORK/$client.log"
	grep 'librealtime-preload' "$WORK/$client.log" | sed 's/^/#   /'
	line=$(grep 'realtimed granted it' "$WORK/$client.log" | head -n 1)
	tid=$(echo "$line" | sed -n 's/.*: thread \([0-9]*\): the kernel refused.*/\1/p')
	prio=$(echo "$line" | sed -n 's/.*refused SCHED_FIFO \([0-9]*\),.*/\1/p')
	if [ -n "$tid" ] && [ -d "/proc/$CPID/task/$tid" ]; then
		expect_sched "$client's process thread runs at the priority libjack asked for" "$tid" "fifo $prio"
		run_as rtaudio "$REALTIMECTL" status --no-legend 2>&1 | grep -qE "^ *$CPID +$tid +.*fifo +$prio" &&
			ok "realtimectl status lists $client's thread $tid, SCHED_FIFO $prio" ||
			fail "realtimectl status does not list $client's thread $tid"
	else
		fail "$client: no realtime grant for a thread of its own: $(tail -n 10 "$WORK/$client.log")"
	fi
	kill "$CPID" 2>/dev/null
	wait "$CPID" 2>/dev/null
	integ_untrack "$CPID"
done
jackd_stop

finish
