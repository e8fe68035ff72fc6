#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# JACK clients under `realtimectl run --threads` are supervised like any
# other grant: in the VM (never on a host), jackd -R -P 70 -d dummy runs as
# the audio member rtaudio (RLIMIT_RTPRIO 0) under the preload, and one JACK
# client per vCPU (tests/integration/jack-spin.c, pinned with taskset), also
# under the preload, spins in its process callback once libjack made the
# thread realtime through realtimed. With every vCPU taken the canary fires:
# each spinning process thread is demoted within CanaryWatchdogSec + 1 s of
# the last one starting, and realtimed's Demoted(canary) signal names it.
# Also here, where root has CAP_SYS_RESOURCE: jackd's refused memory lock
# is retried after GrantLimits and succeeds (RLIMIT_MEMLOCK unlimited),
# while its RLIMIT_RTPRIO stays 0.

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

if [ "$(hostname)" != rt-vm ] || ! grep -q ' /rt-run ' /proc/mounts; then
	skip "jack-threads.sh runs only inside the project's VM (tests/vm/run-vm.sh)"
fi
integ_require_daemon
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built"
integ_enter "$@"
integ_require_cmd jackd dbus-monitor taskset
integ_require_preload
SPIN=$TOP_BUILDDIR/tests/integration/jack-spin
[ -x "$SPIN" ] || skip "jack-spin is not built"
integ_setup
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || skip "cannot mount a private /dev/shm"

WATCHDOG=2
LIMIT_MS=$((WATCHDOG * 1000 + 1000))
NCPU=$(nproc)
printf '[Daemon]\nCanary=yes\nCanaryWatchdogSec=%s\nCanaryRefuseSec=15\n' "$WATCHDOG" | integ_admin_conf
integ_start_daemon
# Demoted goes to the connection that asked for each grant, which a
# demoted JACK client may have closed by then, and in full to
# SubscribeDemoted watchers, an administrator's tool as this one is
"$TOP_BUILDDIR/tests/integration/demoted-listen" --subscribe >"$WORK/demoted" 2>&1 &
integ_track $!
wait_for 10 grep -q '^ready' "$WORK/demoted" || fail "the Demoted watcher did not start"
grep -q '^subscribed' "$WORK/demoted" || fail "SubscribeDemoted failed: $(cat "$WORK/demoted")"

mkdir -p "$WORK/jack"
chown rtaudio "$WORK/jack"
JACK_ENV="HOME=$WORK/jack JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 REALTIME_PRELOAD_DEBUG=1"

# shellcheck disable=SC2086
as_bg rtaudio env $JACK_ENV "$REALTIMECTL" run --threads -- \
	jackd -R -P 70 -d dummy -r 48000 -p 256 >"$WORK/jackd.log" 2>&1
JACK_PID=$!
integ_track $JACK_PID
if wait_for 20 grep -q 'SCHED_FIFO 70, realtimed granted' "$WORK/jackd.log"; then
	ok "jackd's SCHED_FIFO 70 thread was granted by realtimed"
else
	fail "jackd got no grant: $(tail -n 20 "$WORK/jackd.log")"
	finish
fi
grep librealtime-preload "$WORK/jackd.log" | sed 's/^/#   /'
grep -i 'locked memory\|realtime priority' "/proc/$JACK_PID/limits" | sed 's/^/#   /'
if grep -q 'realtimed granted RLIMIT_MEMLOCK' "$WORK/jackd.log" &&
	grep -q '^Max locked memory *unlimited *unlimited' "/proc/$JACK_PID/limits"; then
	ok "jackd's refused memory lock was retried after GrantLimits: RLIMIT_MEMLOCK unlimited"
else
	fail "jackd's memory lock: $(grep 'locking memory' "$WORK/jackd.log")"
fi
if grep -qi 'cannot lock\|mlock.*fail' "$WORK/jackd.log"; then
	fail "jackd says it could not lock memory: $(grep -i 'lock' "$WORK/jackd.log")"
else
	ok "jackd reports no failure to lock memory"
fi
grep -q '^Max realtime priority *0 *0' "/proc/$JACK_PID/limits" &&
	ok "jackd's RLIMIT_RTPRIO is still 0: realtime keeps going through realtimed" ||
	fail "jackd's RLIMIT_RTPRIO: $(grep 'realtime priority' "/proc/$JACK_PID/limits")"

# one spinning client per vCPU, each pinned to its own; every one started
# and realtime before any spins (the go file): a runaway on one vCPU starves
# the IRQ threads below it there, and when that is the root disk's (9p), the
# next client could not even be loaded until the first gave up (seen after
# shield.sh had moved the disk's IRQ to vCPU 0)
k=0
SPINNERS=""
while [ $k -lt "$NCPU" ]; do
	# shellcheck disable=SC2086
	as_bg rtaudio env $JACK_ENV taskset -c $k "$REALTIMECTL" run --threads -- "$SPIN" 30 "$WORK/go" \
		>"$WORK/spin.$k" 2>&1
	SPINNERS="$SPINNERS $!"
	integ_track $!
	wait_for 20 grep -q '^tid' "$WORK/spin.$k" || fail "spinning client $k did not start: $(cat "$WORK/spin.$k")"
	k=$((k + 1))
done
touch "$WORK/go"
note "$(date +%T.%N) every vCPU has a spinning JACK process thread"
for p in $SPINNERS; do
	wait "$p"
	integ_untrack "$p"
done
k=0
while [ $k -lt "$NCPU" ]; do
	sed 's/^/#   /' "$WORK/spin.$k"
	k=$((k + 1))
done
# when the last one started spinning (demotion time - spin time): every vCPU taken
last=0
k=0
while [ $k -lt "$NCPU" ]; do
	s=$(awk '/^demoted after/ { gsub(",", ""); print $7 - $3 }' "$WORK/spin.$k")
	[ -n "$s" ] && [ "$s" -gt "$last" ] && last=$s
	k=$((k + 1))
done
k=0
while [ $k -lt "$NCPU" ]; do
	tid=$(awk '/^tid/ { print $2 }' "$WORK/spin.$k")
	what=$(awk '/^tid/ { print $3, $4 }' "$WORK/spin.$k")
	t1=$(awk '/^demoted after/ { print $7 }' "$WORK/spin.$k")
	if [ -n "$t1" ] && [ $((t1 - last)) -le $LIMIT_MS ]; then
		ok "JACK client $k's process thread $tid ($what, through the preload) demoted $((t1 - last)) ms after every vCPU was taken (want <= $LIMIT_MS)"
	else
		fail "JACK client $k's process thread '$tid': $(grep -v '^tid' "$WORK/spin.$k" | tr '\n' ' ')"
	fi
	grep -q "^demoted [a-z]* [0-9]* $tid\$" "$WORK/demoted" && ok "the Demoted signal names thread $tid" ||
		fail "no Demoted signal names thread $tid: $(cat "$WORK/demoted")"
	k=$((k + 1))
done
grep -q '^demoted canary ' "$WORK/demoted" && ok "realtimed sent Demoted with reason \"canary\"" ||
	fail "no Demoted(canary): $(cat "$WORK/demoted")"

kill "$JACK_PID"
wait "$JACK_PID" 2>/dev/null
integ_untrack "$JACK_PID"
finish
