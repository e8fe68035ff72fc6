#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/daemon-bench.sh: realtimed against Debian's rtkit-daemon, in one run,
# on one private system bus (the integration harness, tests/integration/lib.sh:
# private mount namespace, test users, real polkitd), with the same client
# (bench/daemon-bench.c, built here) speaking the RealtimeKit interface to
# both. As root:
#
#	bench/daemon-bench.sh [BUILD_DIR]      (default: build)
#
# It measures, for each daemon in turn:
#   - idle: resident memory and wakeups per second (context switches of all
#     its threads) with no grants, over 10 s;
#   - 100,000 back-to-back grants with the daemon's default configuration:
#     how many were answered, granted, refused, left unanswered;
#   - with per-user limits lifted (so that the figures measure the daemon,
#     not its rate limiter): Peer.Ping and MakeThreadRealtimeWithPID round
#     trips (p50, p99) for a policy-covered user (rtaudio, in audio; polkit
#     says yes to it for rtkit's actions), grants per second with 8
#     concurrent clients, and idle figures with 100 supervised threads.
# and writes the "## realtimed vs rtkit-daemon" section of bench/RESULTS.md.
# With RATE_AB="OLD NEW" (two realtimed binaries) it runs only the rate
# phase, RATE_AB_ROUNDS times each (default 4), the two taking turns and the
# order turning round every round, and prints a line per run with the
# daemon's CPU ticks: a before-and-after that the minutes between two whole
# benches do not skew. RESULTS.md is left as it is.
# Grants go to threads that only sleep; nothing runs away.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
if [ -n "$1" ]; then
	TOP_BUILDDIR=$(cd "$1" && pwd)
fi
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR
BENCH_SECS=${BENCH_SECS:-5}
IDLE_SECS=${IDLE_SECS:-10}
BURST_N=${BURST_N:-100000}
BURST_MAX_SECS=${BURST_MAX_SECS:-600}
LAT_N=${LAT_N:-1000}
PRIO=5

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
integ_enter "$@"
integ_require_cmd cc pkg-config
[ -x "$REALTIMED" ] || skip "realtimed is not built ($REALTIMED)"
[ -x /usr/libexec/rtkit-daemon ] || skip "rtkit-daemon is not installed (Debian package rtkit)"
INTEG_BUS_EXTRA=$INTEG_BUS_RTKIT
integ_setup

CLIENT=$WORK/daemon-bench
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP_SRCDIR/common" $(pkg-config --cflags dbus-1) \
	"$TOP_SRCDIR/bench/daemon-bench.c" -o "$CLIENT" $(pkg-config --libs dbus-1) -lpthread ||
	skip "cannot build bench/daemon-bench.c"
chmod 755 "$CLIENT"

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
R=$WORK/results
: >"$R"
record()
{
	# DAEMON LINE
	echo "$1 $2" | tee -a "$R"
}

# idle PID: "rss_kib=N wakeups_per_s=N" over IDLE_SECS
ctxsw()
{
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^(voluntary|nonvoluntary)_ctxt_switches/ { s += $2 } END { print s + 0 }'
}
idle()
{
	sleep 1
	a=$(ctxsw "$1")
	sleep "$IDLE_SECS"
	b=$(ctxsw "$1")
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$1/status")
	echo "rss_kib=$rss wakeups_per_s=$(awk -v a="$a" -v b="$b" -v s="$IDLE_SECS" 'BEGIN { printf "%.1f", (b - a) / s }') threads=$(ls /proc/"$1"/task | wc -l)"
}

bench_client()
{
	run_as rtaudio "$CLIENT" "$@"
}

# hold_100 DAEMON PID: 100 granted sleeping threads, idle figures, release
hold_100()
{
	rm -f "$WORK/hold.in"
	mkfifo "$WORK/hold.in"
	chmod 666 "$WORK/hold.in"
	as_bg rtaudio "$CLIENT" hold 100 $PRIO <>"$WORK/hold.in" >"$WORK/hold.out" 2>&1
	hp=$!
	integ_track $hp
	exec 7<>"$WORK/hold.in"
	wait_for 60 grep -q '^hold' "$WORK/hold.out"
	record "$1" "$(cat "$WORK/hold.out")"
	record "$1" "idle-100 $(idle "$2")"
	echo quit >&7
	exec 7>&-
	wait $hp 2>/dev/null
	integ_untrack $hp
}

# start_DAEMON / stop_DAEMON: a fresh daemon with limits lifted for each
# phase, so that one phase's trouble does not spill into the next
start_rtkit()
{
	# shellcheck disable=SC2086
	integ_start_rtkit $LIFT_RTKIT || { record rtkit "start failed"; return 1; }
	PID=$RTKIT_PID
}
stop_rtkit()
{
	if kill -0 "$RTKIT_PID" 2>/dev/null; then
		record rtkit "alive-after-$1 running=yes"
	else
		wait "$RTKIT_PID" 2>/dev/null
		record rtkit "alive-after-$1 running=no exit=$?"
		tail -n 3 "$WORK/rtkit-daemon.log" | sed 's/^/# rtkit-daemon log: /'
	fi
	integ_stop_rtkit
}
start_realtimed()
{
	integ_admin_conf <<-EOF
		[Daemon]
		BurstSec=1
		ActionsPerBurst=1000000
		ThreadsPerUserMax=1000
		ProcessesPerUserMax=1000
	EOF
	integ_start_daemon
	PID=$DAEMON_PID
}
stop_realtimed()
{
	kill -0 "$DAEMON_PID" 2>/dev/null && record realtimed "alive-after-$1 running=yes" ||
		record realtimed "alive-after-$1 running=no"
	integ_stop_daemon
}

run_suite()
{
	# DAEMON
	start_$1 || return
	# alternating Ping and grant: both see the same load (rtkit-daemon
	# survives about 1,500 grants in a row, so 1,000 rounds)
	record "$1" "$(bench_client pair "$LAT_N" $PRIO)"
	stop_$1 latency
	start_$1 || return
	record "$1" "$(bench_client rate 8 "$BENCH_SECS" $PRIO)"
	stop_$1 rate
	start_$1 || return
	hold_100 "$1" "$PID"
	stop_$1 hold
}

LIFT_RTKIT="--actions-per-burst-max=1000000000 --threads-per-user-max=1000 --processes-per-user-max=1000"
LIFT_REALTIMED="BurstSec=1, ActionsPerBurst=1000000, ThreadsPerUserMax=1000, ProcessesPerUserMax=1000"

if [ -n "${RATE_AB:-}" ]; then
	# shellcheck disable=SC2086
	set -- $RATE_AB
	[ $# = 2 ] || skip "RATE_AB names $# binaries, not 2"
	for b in "$1" "$2"; do
		[ -x "$b" ] || skip "RATE_AB: $b is not executable"
	done
	i=1
	while [ "$i" -le "${RATE_AB_ROUNDS:-4}" ]; do
		order="$1 $2"
		[ $((i % 2)) = 1 ] || order="$2 $1"
		for REALTIMED in $order; do
			start_realtimed
			echo "$REALTIMED round $i load=$(cut -d' ' -f1 /proc/loadavg)" \
				"$(bench_client rate 8 "$BENCH_SECS" $PRIO)" \
				"cpu_ticks=$(awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat")"
			integ_stop_daemon
		done
		i=$((i + 1))
	done
	ok "${RATE_AB_ROUNDS:-4} rounds of each"
	finish
fi

# --- rtkit-daemon -------------------------------------------------------------
note "rtkit-daemon, default configuration"
integ_start_rtkit || skip "rtkit-daemon did not start on the private bus"
record rtkit "idle-0 $(idle "$RTKIT_PID")"
record rtkit "$(bench_client burst "$BURST_N" $PRIO "$BURST_MAX_SECS")"
stop_rtkit burst
note "rtkit-daemon, limits lifted: $LIFT_RTKIT"
run_suite rtkit

# --- realtimed ----------------------------------------------------------------
note "realtimed, default configuration (shipped policy)"
integ_start_daemon
record realtimed "idle-0 $(idle "$DAEMON_PID")"
record realtimed "$(bench_client burst "$BURST_N" $PRIO "$BURST_MAX_SECS")"
stop_realtimed burst
note "realtimed, limits lifted: $LIFT_REALTIMED"
run_suite realtimed

# --- report -----------------------------------------------------------------
val()
{
	# DAEMON KIND KEY
	awk -v d="$1" -v k="$2" -v key="$3" '$1 == d && $2 == k {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' "$R" | tail -n 1
}
ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'
}

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
# the build measured, as the reproduce line below says it
bdir=$(basename "$TOP_BUILDDIR")
buildtype=$(python3 -c 'import json, sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "buildtype"))' \
	"$TOP_BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null) || buildtype=unknown
rtkit_ver=$(dpkg-query -W -f='${Version}' rtkit 2>/dev/null)
dbus_ver=$(dpkg-query -W -f='${Version}' dbus-daemon 2>/dev/null)
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs ($cpu), kernel $(uname -r),"
	echo "rtkit $rtkit_ver, dbus-daemon $dbus_ver, realtimed $(git -C "$TOP_SRCDIR" describe --always --dirty 2>/dev/null);"
	echo "load average when it started: $LOAD0 (other work on the machine adds noise)."
	echo "One run, one private system bus, one client (bench/daemon-bench.c) speaking the"
	echo "RealtimeKit interface to both daemons, as the audio member rtaudio; every grant"
	echo "is SCHED_FIFO/RR $PRIO on a sleeping thread. Reproduce, as root:"
	echo
	echo "    meson setup $bdir -Dbuildtype=$buildtype && ninja -C $bdir && bench/daemon-bench.sh $bdir"
	echo
	echo "| figure | rtkit-daemon | realtimed | target |"
	echo "|---|---|---|---|"
	for d in rtkit realtimed; do
		eval "${d}_ping=\$(val $d pair ping_p50_us)"
		eval "${d}_grant=\$(val $d pair grant_p50_us)"
	done
	echo "| Peer.Ping round trip p50 / p99 (us) | $(val rtkit pair ping_p50_us) / $(val rtkit pair ping_p99_us) | $(val realtimed pair ping_p50_us) / $(val realtimed pair ping_p99_us) | |"
	echo "| grant round trip p50 / p99 (us), $LAT_N calls alternating with the Pings | $(val rtkit pair grant_p50_us) / $(val rtkit pair grant_p99_us) | $(val realtimed pair grant_p50_us) / $(val realtimed pair grant_p99_us) | |"
	# shellcheck disable=SC2154 # set by the eval above
	echo "| grant p50 / Ping p50 | $(ratio "$rtkit_grant" "$rtkit_ping")x | $(ratio "$realtimed_grant" "$realtimed_ping")x | <= 2x |"
	echo "| grants/s, 8 clients, ${BENCH_SECS} s | $(val rtkit rate grants_per_s) | $(val realtimed rate grants_per_s) ($(ratio "$(val realtimed rate grants_per_s)" "$(val rtkit rate grants_per_s)")x) | >= 10x rtkit |"
	echo "| $BURST_N back-to-back grants, default config: answered (granted + refused) / unanswered | $(( $(val rtkit burst ok) + $(val rtkit burst refused) )) ($(val rtkit burst ok) + $(val rtkit burst refused)) / $(val rtkit burst unanswered) | $(( $(val realtimed burst ok) + $(val realtimed burst refused) )) ($(val realtimed burst ok) + $(val realtimed burst refused)) / $(val realtimed burst unanswered) | all answered |"
	echo "| ... first refusal at call #, error | $(val rtkit burst first_refusal_at), $(val rtkit burst first_refusal) | $(val realtimed burst first_refusal_at), $(val realtimed burst first_refusal) | |"
	echo "| ... calls sent, seconds | $(val rtkit burst sent), $(val rtkit burst secs) | $(val realtimed burst sent), $(val realtimed burst secs) | |"
	echo "| idle, no grants: RSS (KiB) / wakeups/s | $(val rtkit idle-0 rss_kib) / $(val rtkit idle-0 wakeups_per_s) | $(val realtimed idle-0 rss_kib) / $(val realtimed idle-0 wakeups_per_s) | 0 wakeups/s |"
	echo "| idle, 100 supervised threads: RSS (KiB) / wakeups/s | $(val rtkit idle-100 rss_kib) / $(val rtkit idle-100 wakeups_per_s) | $(val realtimed idle-100 rss_kib) / $(val realtimed idle-100 wakeups_per_s) | |"
	echo "| threads granted of 100 | $(val rtkit hold granted) | $(val realtimed hold granted) | 100 |"
	for d in rtkit realtimed; do
		eval "${d}_alive=\"\$(val $d alive-after-burst running) / \$(val $d alive-after-latency running) / \$(val $d alive-after-rate running) / \$(val $d alive-after-hold running)\""
	done
	# shellcheck disable=SC2154 # set by the eval above
	echo "| daemon still running after the burst / latency / rate / 100-thread phases | $rtkit_alive | $realtimed_alive | yes |"
	echo
	died=$(awk '$1 == "rtkit" && $2 ~ /^alive-after-/ && $3 == "running=no" { sub("alive-after-", "", $2); sub("exit=", "", $4); printf "%s%s (exit status %s)", sep, $2, $4; sep = ", " }' "$R")
	if [ -n "$died" ]; then
		echo "rtkit-daemon did not survive these phases: $died. Exit status 137 is"
		echo "SIGKILL: rtkit-daemon runs its own threads at SCHED_RR under an RLIMIT_RTTIME,"
		echo "and a flood of requests keeps it from ever blocking, so (most likely) the"
		echo "kernel kills it at the hard RTTIME limit. Its grants/s figure counts the grants"
		echo "answered before it died, over the whole ${BENCH_SECS} s."
		echo
	fi
	echo "Wakeups are the context switches of all the daemon's threads over ${IDLE_SECS} s;"
	echo "realtimed's canary watchdog runs only while grants are supervised, which is"
	echo "what its wakeups with 100 supervised threads are."
	echo "The latency, rate and 100-thread rows run with per-user limits lifted on both"
	echo "daemons (rtkit-daemon $LIFT_RTKIT;"
	echo "realtimed $LIFT_REALTIMED), each phase on a freshly started daemon,"
	echo "so they measure the daemons and not their rate limiters. The burst row uses each"
	echo "daemon's defaults. Raw lines:"
	echo
	sed 's/^/    /' "$R"
} >"$WORK/section.md"

echo
cat "$WORK/section.md"

python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" "realtimed vs rtkit-daemon" "$WORK/section.md" ||
	note "could not update bench/RESULTS.md"
note "bench/RESULTS.md updated"
exit 0
