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
LAT_N=${LAT_N:-2000}
PRIO=5

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

run_suite()
{
	# DAEMON PID
	record "$1" "$(bench_client ping "$LAT_N")"
	record "$1" "$(bench_client grant "$LAT_N" $PRIO)"
	record "$1" "$(bench_client rate 8 "$BENCH_SECS" $PRIO)"
	hold_100 "$1" "$2"
}

LIFT_RTKIT="--actions-per-burst-max=1000000000 --threads-per-user-max=1000 --processes-per-user-max=1000"

# --- rtkit-daemon -------------------------------------------------------------
note "rtkit-daemon, default configuration"
integ_start_rtkit || skip "rtkit-daemon did not start on the private bus"
record rtkit "idle-0 $(idle "$RTKIT_PID")"
record rtkit "$(bench_client burst "$BURST_N" $PRIO "$BURST_MAX_SECS")"
kill -0 "$RTKIT_PID" 2>/dev/null && record rtkit "alive-after-burst yes" || record rtkit "alive-after-burst no"
integ_stop_rtkit
note "rtkit-daemon, limits lifted: $LIFT_RTKIT"
# shellcheck disable=SC2086
integ_start_rtkit $LIFT_RTKIT || skip "rtkit-daemon did not start with lifted limits"
run_suite rtkit "$RTKIT_PID"
integ_stop_rtkit

# --- realtimed ----------------------------------------------------------------
note "realtimed, default configuration (shipped policy)"
integ_start_daemon
record realtimed "idle-0 $(idle "$DAEMON_PID")"
record realtimed "$(bench_client burst "$BURST_N" $PRIO "$BURST_MAX_SECS")"
kill -0 "$DAEMON_PID" 2>/dev/null && record realtimed "alive-after-burst yes" || record realtimed "alive-after-burst no"
integ_stop_daemon
note "realtimed, limits lifted"
integ_admin_conf <<-EOF
	[Daemon]
	ActionsPerBurst=1000000000
	ThreadsPerUserMax=1000
	ProcessesPerUserMax=1000
EOF
integ_start_daemon
run_suite realtimed "$DAEMON_PID"
integ_stop_daemon

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
rtkit_ver=$(dpkg-query -W -f='${Version}' rtkit 2>/dev/null)
dbus_ver=$(dpkg-query -W -f='${Version}' dbus-daemon 2>/dev/null)
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs ($cpu), kernel $(uname -r),"
	echo "rtkit $rtkit_ver, dbus-daemon $dbus_ver, realtimed $(git -C "$TOP_SRCDIR" describe --always --dirty 2>/dev/null)."
	echo "One run, one private system bus, one client (bench/daemon-bench.c) speaking the"
	echo "RealtimeKit interface to both daemons, as the audio member rtaudio; every grant"
	echo "is SCHED_FIFO/RR $PRIO on a sleeping thread. Reproduce, as root:"
	echo
	echo '    meson setup build && ninja -C build && bench/daemon-bench.sh build'
	echo
	echo "| figure | rtkit-daemon | realtimed | target |"
	echo "|---|---|---|---|"
	for d in rtkit realtimed; do
		eval "${d}_ping=\$(val $d ping p50_us)"
		eval "${d}_grant=\$(val $d grant p50_us)"
	done
	echo "| Peer.Ping round trip p50 / p99 (us) | $(val rtkit ping p50_us) / $(val rtkit ping p99_us) | $(val realtimed ping p50_us) / $(val realtimed ping p99_us) | |"
	echo "| grant round trip p50 / p99 (us), $LAT_N calls | $(val rtkit grant p50_us) / $(val rtkit grant p99_us) | $(val realtimed grant p50_us) / $(val realtimed grant p99_us) | |"
	echo "| grant p50 / Ping p50 | $(ratio "$rtkit_grant" "$rtkit_ping")x | $(ratio "$realtimed_grant" "$realtimed_ping")x | <= 2x |"
	echo "| grants/s, 8 clients, ${BENCH_SECS} s | $(val rtkit rate grants_per_s) | $(val realtimed rate grants_per_s) ($(ratio "$(val realtimed rate grants_per_s)" "$(val rtkit rate grants_per_s)")x) | >= 10x rtkit |"
	echo "| $BURST_N back-to-back grants, default config: answered (granted + refused) / unanswered | $(( $(val rtkit burst ok) + $(val rtkit burst refused) )) ($(val rtkit burst ok) + $(val rtkit burst refused)) / $(val rtkit burst unanswered) | $(( $(val realtimed burst ok) + $(val realtimed burst refused) )) ($(val realtimed burst ok) + $(val realtimed burst refused)) / $(val realtimed burst unanswered) | all answered |"
	echo "| ... first refusal at call #, error | $(val rtkit burst first_refusal_at), $(val rtkit burst first_refusal) | $(val realtimed burst first_refusal_at), $(val realtimed burst first_refusal) | |"
	echo "| ... calls sent, seconds | $(val rtkit burst sent), $(val rtkit burst secs) | $(val realtimed burst sent), $(val realtimed burst secs) | |"
	echo "| idle, no grants: RSS (KiB) / wakeups/s | $(val rtkit idle-0 rss_kib) / $(val rtkit idle-0 wakeups_per_s) | $(val realtimed idle-0 rss_kib) / $(val realtimed idle-0 wakeups_per_s) | 0 wakeups/s |"
	echo "| idle, 100 supervised threads: RSS (KiB) / wakeups/s | $(val rtkit idle-100 rss_kib) / $(val rtkit idle-100 wakeups_per_s) | $(val realtimed idle-100 rss_kib) / $(val realtimed idle-100 wakeups_per_s) | |"
	echo "| threads granted of 100 | $(val rtkit hold granted) | $(val realtimed hold granted) | 100 |"
	echo
	echo "Wakeups are the context switches of all the daemon's threads over ${IDLE_SECS} s."
	echo "The latency, rate and 100-thread rows run with per-user limits lifted on both"
	echo "daemons (rtkit-daemon $LIFT_RTKIT;"
	echo "realtimed ActionsPerBurst=1000000000, ThreadsPerUserMax=1000, ProcessesPerUserMax=1000),"
	echo "so they measure the daemons and not their rate limiters. The burst row uses each"
	echo "daemon's defaults. Raw lines:"
	echo
	sed 's/^/    /' "$R"
} >"$WORK/section.md"

echo
cat "$WORK/section.md"

python3 - "$TOP_SRCDIR/bench/RESULTS.md" "$WORK/section.md" <<'PY' || note "could not update bench/RESULTS.md"
import sys
path, sec = sys.argv[1], open(sys.argv[2]).read()
text = open(path).read()
head = "## realtimed vs rtkit-daemon"
i = text.find(head)
if i < 0:
    text = text.rstrip("\n") + "\n\n" + head + "\n\n" + sec
else:
    j = text.find("\n## ", i + len(head))
    rest = text[j:] if j >= 0 else "\n"
    text = text[:i] + head + "\n\n" + sec + rest
open(path, "w").write(text)
PY
note "bench/RESULTS.md updated"
exit 0
