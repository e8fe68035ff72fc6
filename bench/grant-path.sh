#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/grant-path.sh: the files and functions of realtimed that one native
# grant which waits for polkit passes through (issue 32's measure of how
# much a reviewer must read to follow it). realtimed is a build with
# -finstrument-functions, run with bench/grant-path-trace.c preloaded,
# which logs each function entry with its time; the functions of
# realtimed's own sources (daemon/, common/, procfs/) that ran between just
# before rtplain (whom no rule covers; the test rules let polkit say yes)
# asks for SCHED_RR 10 and the answer are listed, with their files. Two
# rounds: cold (the user's first request: the NSS lookup, polkit's first
# answer) and warm (the same from a new process). In the integration
# harness's private namespace (tests/integration/lib.sh). As root:
#
#	meson setup build-trace -Dc_args=-finstrument-functions -Dtests=disabled
#	ninja -C build-trace daemon/realtimed
#	bench/grant-path.sh [BUILD_DIR]    (BUILD_DIR: rt-client's; default build)
#	REALTIMED=/old/build-trace/daemon/realtimed bench/grant-path.sh
#
# REALTIMED defaults to build-trace/daemon/realtimed. Prints the counts
# (all of realtimed's sources, and daemon/*.c alone), then the functions by
# file; GRANT_PATH_LIST=0 prints the counts alone. What realtimed's main
# thread, its event loop, ran from just before the client started to its
# answer is counted: the client's connection, its read of RTTimeUSecMax
# (as rtkit's clients do) and its request, up to the reply (the client
# holds its grant for 3 s after, so that its leaving is not counted). GRANT_PATH_THREADS=1 counts its other threads too (the
# canary's, and the resolver's workers in builds that ran NSS in-process);
# a forked child (the NSS helper) writes nothing.

TOP_SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-build} in
/*) TOP_BUILDDIR=${1:-build} ;;
*) TOP_BUILDDIR=$TOP_SRCDIR/${1:-build} ;;
esac
: "${REALTIMED:=$TOP_SRCDIR/build-trace/daemon/realtimed}"
export TOP_SRCDIR TOP_BUILDDIR REALTIMED

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd cc addr2line
integ_setup

cc -O2 -shared -fPIC -o "$WORK/trace.so" "$TOP_SRCDIR/bench/grant-path-trace.c" -ldl ||
	skip "cannot build bench/grant-path-trace.c"
REAL_DAEMON=$REALTIMED
REALTIMED=$WORK/realtimed-traced
printf '#!/bin/sh\nexec env LD_PRELOAD=%s GRANT_PATH_TRACE=%s "%s" "$@"\n' \
	"$WORK/trace.so" "$WORK/trace" "$REAL_DAEMON" >"$REALTIMED"
chmod 755 "$REALTIMED"
INTEG_DAEMON_DEBUG='' integ_start_daemon
[ -s "$WORK/trace" ] ||
	skip "$REAL_DAEMON logged no function entry: not built with -finstrument-functions"

# one round: a grant between two times; the functions realtimed entered
# meanwhile into $WORK/$1.functions as "file function"
grant_round()
{
	: >"$WORK/$1.out"
	t0=$(date +%s%N)
	as_bg rtplain "$RT_CLIENT" ask --policy rr --prio 10 --hold 3 >"$WORK/$1.out" 2>&1
	client=$!
	integ_track $client
	# the window ends at the answer: the client's leaving comes after
	while ! grep -q '^granted\|^refused\|^mismatch' "$WORK/$1.out" && [ -d "/proc/$client" ]; do
		sleep 0.005
	done
	t1=$(date +%s%N)
	wait $client
	integ_untrack $client
	sleep 1.5 # the client's exit is handled before the next round
	out=$(cat "$WORK/$1.out")
	echo "$out" | grep -q 'SCHED_RR priority 10' && ok "$1: rtplain granted rr 10 after polkit" ||
		fail "$1: rtplain rr 10: $out"
	awk -v t0="$t0" -v t1="$t1" -v pid="$DAEMON_PID" -v all="${GRANT_PATH_THREADS:-0}" \
		'$1 >= t0 && $1 <= t1 && $2 == pid && (all || $3 == pid) { print "0x" $4 }' \
		"$WORK/trace" | sort -u |
		addr2line -f -e "$REAL_DAEMON" | paste - - |
		sed -E -n 's#^([A-Za-z_][A-Za-z0-9_]*)\t.*/((daemon|common|procfs)/[^:]*):.*#\2 \1#p' |
		sort -u >"$WORK/$1.functions"
	files=$(cut -d' ' -f1 "$WORK/$1.functions" | sort -u | wc -l)
	functions=$(wc -l <"$WORK/$1.functions")
	dfiles=$(grep '^daemon/[^ ]*\.c ' "$WORK/$1.functions" | cut -d' ' -f1 | sort -u | wc -l)
	dfunctions=$(grep -c '^daemon/[^ ]*\.c ' "$WORK/$1.functions")
	note "$1: $files files, $functions functions of realtimed's own sources;" \
		"in daemon/*.c: $dfiles files, $dfunctions functions ($REAL_DAEMON)"
	[ "$functions" -gt 0 ] && ok "$1: the grant's functions were seen" ||
		fail "$1: no function of realtimed's sources seen"
	if [ "${GRANT_PATH_LIST:-1}" = 1 ]; then
		cut -d' ' -f1 "$WORK/$1.functions" | uniq -c | sed 's/^/# /'
		sed 's/^/#   /' "$WORK/$1.functions"
	fi
}

grant_round cold
grant_round warm
finish
