#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/preload-bench.sh: what librealtime-preload.so costs, in one run, on
# the integration harness's private system bus (tests/integration/lib.sh),
# with realtimed from the build dir. As root:
#
#	bench/preload-bench.sh [BUILD_DIR]      (default: build)
#
#   - the kernel allows the call (rtaudio with CAP_SYS_NICE): ns per
#     pthread_setschedparam() without and with the preload, ROUNDS rounds
#     of each in turn, ALLOWED_N calls per round; the preload may add
#     less than 1 us;
#   - the kernel refuses it (rtaudio, RLIMIT_RTPRIO 0) and the preload gets
#     it from realtimed: p50 of that call beside the p50 of a Peer.Ping
#     round trip to realtimed, alternating, REFUSED_N rounds; the target
#     is 1.3x the Ping.
# and writes the "## librealtime-preload.so" section of bench/RESULTS.md.
# Grants go to a thread that only sleeps; nothing runs away.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
if [ -n "$1" ]; then
	TOP_BUILDDIR=$(cd "$1" && pwd)
fi
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR
ROUNDS=${ROUNDS:-5}
ALLOWED_N=${ALLOWED_N:-100000}
REFUSED_N=${REFUSED_N:-1000}

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
integ_enter "$@"
integ_require_cmd cc pkg-config setpriv
[ -x "$REALTIMED" ] || skip "realtimed is not built ($REALTIMED)"
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_require_preload
integ_setup

CLIENT=$WORK/preload-bench
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP_SRCDIR/common" $(pkg-config --cflags dbus-1) \
	"$TOP_SRCDIR/bench/preload-bench.c" -o "$CLIENT" $(pkg-config --libs dbus-1) -lpthread ||
	skip "cannot build bench/preload-bench.c"
chmod 755 "$CLIENT"

# as in daemon-bench.sh: per-user limits lifted, so that the figures measure
# the path, not realtimed's rate limiter
integ_admin_conf <<-CONF
	[Daemon]
	BurstSec=1
	ActionsPerBurst=1000000
	ThreadsPerUserMax=1000
	ProcessesPerUserMax=1000
CONF
# without --debug, as realtimed runs in production: a grant logs a debug
# line, a Ping does not, and the figure compares the two
INTEG_DAEMON_DEBUG='' integ_start_daemon

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
R=$WORK/results
: >"$R"

# allowed [--threads]: one round, as rtaudio with an ambient CAP_SYS_NICE
# (RLIMIT_RTPRIO would do as well, but root here may lack CAP_SYS_RESOURCE
# to raise it)
allowed()
{
	if [ "$1" = --threads ]; then
		set -- "$REALTIMECTL" run --threads --
	fi
	setpriv --reuid=rtaudio --regid=rtaudio --init-groups --inh-caps=+sys_nice \
		--ambient-caps=+sys_nice -- "$@" "$CLIENT" allowed "$ALLOWED_N"
}
i=0
while [ $i -lt "$ROUNDS" ]; do
	echo "without $(allowed)" | tee -a "$R"
	echo "with $(allowed --threads)" | tee -a "$R"
	i=$((i + 1))
done
echo "grant $(run_as rtaudio "$REALTIMECTL" run --threads -- "$CLIENT" refused "$REFUSED_N")" | tee -a "$R"

# median KIND KEY: the median over the rounds
median()
{
	awk -v k="$1" -v key="$2" '$1 == k { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' "$R" |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
val()
{
	awk -v key="$1" '$1 == "grant" { for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == key) print kv[2] } }' "$R"
}

w50=$(median without p50_ns) p50=$(median with p50_ns)
wmean=$(median without mean_ns) mean=$(median with mean_ns)
ping=$(val ping_p50_us) grant=$(val grant_p50_us)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
bdir=$(basename "$TOP_BUILDDIR")
buildtype=$(python3 -c 'import json, sys; print(next(o["value"] for o in json.load(open(sys.argv[1])) if o["name"] == "buildtype"))' \
	"$TOP_BUILDDIR/meson-info/intro-buildoptions.json" 2>/dev/null) || buildtype=unknown
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs ($cpu), kernel $(uname -r),"
	echo "glibc $(ldd --version | head -n 1 | awk '{ print $NF }'), dbus-daemon $(dpkg-query -W -f='${Version}' dbus-daemon 2>/dev/null), realtimed $(git -C "$TOP_SRCDIR" describe --always --dirty 2>/dev/null);"
	echo "load average when it started: $LOAD0 (other work on the machine adds noise)."
	echo "One run, one private system bus, realtimed (without --debug) with per-user limits lifted; the"
	echo "client is bench/preload-bench.c as the audio member rtaudio, every call on a"
	echo "thread that sleeps. Reproduce, as root:"
	echo
	echo "    meson setup $bdir -Dbuildtype=$buildtype && ninja -C $bdir && bench/preload-bench.sh $bdir"
	echo
	echo "| figure | without the preload | with the preload | added | target |"
	echo "|---|---|---|---|---|"
	echo "| pthread_setschedparam() the kernel allows (CAP_SYS_NICE), p50 / mean ns, median of $ROUNDS rounds of $ALLOWED_N | $w50 / $wmean | $p50 / $mean | $((p50 - w50)) / $((mean - wmean)) ns | < 1000 ns |"
	echo
	echo "| figure | p50 (us) | p99 (us) | target |"
	echo "|---|---|---|---|"
	echo "| Peer.Ping round trip to realtimed | $ping | $(val ping_p99_us) | |"
	echo "| pthread_setschedparam(SCHED_FIFO 5) refused by the kernel, granted by realtimed through the preload | $grant | $(val grant_p99_us) | |"
	echo "| MakeThreadRealtime sent directly on the same bus (the grant alone, no preload) | $(val direct_p50_us) | $(val direct_p99_us) | |"
	echo "| refused-and-granted p50 / Ping p50 | $(awk -v a="$grant" -v b="$ping" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }') | | <= 1.3x |"
	echo "| MakeThreadRealtime p50 / Ping p50 | $(awk -v a="$(val direct_p50_us)" -v b="$ping" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }') | | |"
	echo
	echo "Target <= 1.3x in this run: $(awk -v a="$grant" -v b="$ping" 'BEGIN { print (b > 0 && a <= 1.3 * b) ? "met" : "not met" }')."
	echo
	echo "$REFUSED_N rounds alternate one Ping (a private libdbus connection of the"
	echo "client's own) with one refused call (librealtime's connection, opened by the"
	echo "first); between rounds the thread goes back to SCHED_OTHER, which the kernel"
	echo "allows, so each timed call is the kernel's EPERM, the retry with"
	echo "SCHED_RESET_ON_FORK (EPERM again) and realtimed's MakeThreadRealtime; each"
	echo "round then times the same grant sent directly, so that what realtimed's grant"
	echo "costs and what the preload adds to it can be told apart. Raw lines:"
	echo
	sed 's/^/    /' "$R"
} >"$WORK/section.md"

echo
cat "$WORK/section.md"

python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" "librealtime-preload.so" "$WORK/section.md" ||
	note "could not update bench/RESULTS.md"
note "bench/RESULTS.md updated"
exit 0
