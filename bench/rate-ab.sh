#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/rate-ab.sh: the rate phase of bench/daemon-bench.sh (8 clients of
# rtaudio, 5 s of MakeThreadRealtimeWithPID, per-user limits lifted) for
# two realtimed binaries taking turns, the order turning round every
# round, on one private system bus: a before-and-after that the time
# between two whole benches does not skew. As root:
#
#	bench/rate-ab.sh OLD_REALTIMED NEW_REALTIMED [ROUNDS]   (default 4)
#
# Prints a line per run: which, round, load, the client's figures, and
# the daemon's CPU ticks (utime + stime) for the run.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR
[ $# -ge 2 ] || { echo "usage: $0 OLD_REALTIMED NEW_REALTIMED [ROUNDS]" >&2; exit 2; }
OLD=$(realpath "$1") NEW=$(realpath "$2") ROUNDS=${3:-4}

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
integ_enter "$@"
integ_require_cmd cc pkg-config
{ [ -x "$OLD" ] && [ -x "$NEW" ]; } || skip "not both executable: $OLD $NEW"
integ_setup
CLIENT=$WORK/daemon-bench
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP_SRCDIR/common" $(pkg-config --cflags dbus-1) \
	"$TOP_SRCDIR/bench/daemon-bench.c" -o "$CLIENT" $(pkg-config --libs dbus-1) -lpthread ||
	skip "cannot build bench/daemon-bench.c"
chmod 755 "$CLIENT"
integ_admin_conf <<-EOF
	[Daemon]
	BurstSec=1
	ActionsPerBurst=1000000
	ThreadsPerUserMax=1000
	ProcessesPerUserMax=1000
EOF
i=1
while [ "$i" -le "$ROUNDS" ]; do
	order="old new"
	[ $((i % 2)) = 1 ] || order="new old"
	for which in $order; do
		if [ "$which" = old ]; then REALTIMED=$OLD; else REALTIMED=$NEW; fi
		integ_start_daemon
		line=$(run_as rtaudio "$CLIENT" rate 8 5 5)
		echo "$which round $i load=$(cut -d' ' -f1 /proc/loadavg) $line" \
			"cpu_ticks=$(awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat")"
		integ_stop_daemon
	done
	i=$((i + 1))
done
ok "$ROUNDS rounds of each"
finish
