#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# An unmodified `jackd -R` started through `realtimectl run` by a member of
# audio who has no realtime rlimits: realtimectl asks realtimed for the
# policy's rlimits (GrantLimits), execs jackd, and jackd's own realtime
# threads run SCHED_FIFO at its -P priority.
#
# Raising a hard rlimit of another process needs CAP_SYS_RESOURCE; on a host
# whose root lacks it (this project's build machine) the test checks that the
# refusal is clean and says so, then skips; tests/vm/guest/stack.sh runs it in
# the VM where root has every capability.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd jackd
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_setup
# JACK keeps its server sockets and shared memory in /dev/shm: a private one
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || skip "cannot mount a private /dev/shm"
integ_start_daemon

mkdir -p "$WORK/jack"
chown rtaudio "$WORK/jack"
run_as rtaudio grep -i "max realtime priority" /proc/self/limits |
	grep -q 'priority *0 *0' && ok "rtaudio starts with RLIMIT_RTPRIO 0 (no login limits)" ||
	note "rtaudio's RLIMIT_RTPRIO is not 0 here"

if ! capsh --has-p=cap_sys_resource 2>/dev/null; then
	out=$(run_as rtaudio "$REALTIMECTL" run --limits -- true 2>&1)
	rc=$?
	if [ $rc != 0 ] && echo "$out" | grep -qi 'CAP_SYS_RESOURCE\|not permitted\|permission'; then
		ok "without CAP_SYS_RESOURCE, realtimectl run --limits fails cleanly (exit $rc: $(echo "$out" | head -n 1 | cut -c1-120))"
	else
		fail "realtimectl run --limits without CAP_SYS_RESOURCE: exit $rc: $out"
	fi
	[ "$rt_failures" = 0 ] || finish
	skip "root has no CAP_SYS_RESOURCE here, so no hard rlimit can be raised; tests/vm/guest/stack.sh runs this in the VM"
fi

# realtimectl run execs jackd: one pid from start to end
as_bg rtaudio env HOME="$WORK/jack" JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 \
	"$REALTIMECTL" run --limits -- jackd -R -P 70 -d dummy -r 48000 -p 256 >"$WORK/jackd.log" 2>&1
JACK_PID=$!
integ_track $JACK_PID
rt=""
i=0
while [ $i -lt 100 ] && [ -z "$rt" ]; do
	for t in /proc/"$JACK_PID"/task/*; do
		t=${t##*/}
		case "$(sched_name_of "$t")" in
		fifo*) rt="$t $(sched_name_of "$t")" ;;
		esac
	done
	sleep 0.1
	i=$((i + 1))
done
grep -i 'realtime priority\|locked memory' "/proc/$JACK_PID/limits" | sed 's/^/#   /'
grep -q '^Max realtime priority *95 *95' "/proc/$JACK_PID/limits" &&
	ok "jackd runs with RLIMIT_RTPRIO 95 from GrantLimits" || fail "jackd's limits: $(cat "/proc/$JACK_PID/limits" 2>&1)"
case "$rt" in
*" fifo 70") ok "jackd -R -P 70 has a SCHED_FIFO 70 thread ($rt)" ;;
*) fail "jackd has no SCHED_FIFO 70 thread: '${rt:-none}': $(tail -n 20 "$WORK/jackd.log")" ;;
esac
kill "$JACK_PID"
wait "$JACK_PID" 2>/dev/null
integ_untrack "$JACK_PID"

finish
