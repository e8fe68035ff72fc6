#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtimectl latency through the real realtimed on the private bus, as the
# test users, a few seconds each: rtaudio (in audio) is measured at
# SCHED_FIFO 95, its policy's highest, granted by realtimed; rtplain (no
# rule, polkit allows realtime but not the limits) at SCHED_RR 20, what it
# gets, and said so in the text; rtplain asking above its policy
# (--priority 50) is measured at SCHED_OTHER with "measured without
# realtime"; with realtimed stopped, a clear message and still a
# measurement. check --latency adds its line. As root, what the measuring
# process locks (smaps). The JSON and the SVG pass
# tests/lib/latency.sh each time; their values are not judged (the host is
# shared; the vm tier runs this under TCG).
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
# shellcheck source=tests/lib/latency.sh
. "$TOP_SRCDIR/tests/lib/latency.sh"

integ_require_daemon
integ_enter "$@"
integ_setup
integ_start_daemon

T=$WORK/tmp
LAT="latency --duration 2s --interval 1ms"

# lat USER NAME [ARGS...]: realtimectl latency as USER, --json into
# $T/NAME.json, --svg into $T/NAME.svg, stderr into $T/NAME.err; $rc.
lat()
{
	_u=$1 _n=$2
	shift 2
	# shellcheck disable=SC2086
	run_as "$_u" "$REALTIMECTL" $LAT --json --svg "$T/$_n.svg" "$@" >"$T/$_n.json" 2>"$T/$_n.err"
	rc=$?
	sed "s/^/# $_n stderr: /" "$T/$_n.err"
}

lat rtaudio audio
check_eq "rtaudio: exit status" 0 "$rc"
latency_check_json "$T/audio.json" fifo 95
latency_check_svg "$T/audio.svg"
check "rtaudio: granted by realtimed, no note" grep -q '"realtimed":true,"note":null' "$T/audio.json"
check "rtaudio: the SVG's title names the policy" grep -q 'SCHED_FIFO 95' "$T/audio.svg"
# the grants were realtimed's: it logged them (the measuring threads are gone by now)
check "realtimed granted the measuring threads" grep -q "Granted fifo 95 to thread" "$WORK/realtimed.log"

lat rtplain plain
check_eq "rtplain: exit status" 0 "$rc"
latency_check_json "$T/plain.json" rr 20
run_as rtplain "$REALTIMECTL" latency --duration 1s >"$T/plain.txt" 2>&1
check "rtplain: the text says what it was measured at" grep -q "^Measured [0-9.]* s at SCHED_RR 20" "$T/plain.txt"

lat rtplain refused --priority 50
check_eq "rtplain above its policy: exit status" 0 "$rc"
latency_check_json "$T/refused.json" other 0
check "rtplain above its policy: the note says so" grep -q '"note":"measured without realtime: realtimed refused SCHED_RR 50' "$T/refused.json"
check "... and stderr says why" grep -q "realtimed refused SCHED_RR 50" "$T/refused.err"

run_as rtaudio "$REALTIMECTL" check --json --latency=1s >"$T/check.json" 2>"$T/check.err"
grep -o '{"id":"latency"[^}]*}' "$T/check.json" | sed "s/^/# check: /"
check "check --latency: a latency line with the verdicts at 64 and 256 frames" \
	grep -q '"id":"latency","status":"[a-z]*","summary":"64 frames at 48 kHz: [a-z]*, 256: [a-z]*; worst wakeup' "$T/check.json"

# What is locked, read from smaps while it measures: the measuring threads'
# stacks and histograms in full (anonymous, resident and locked: 144 kB a
# CPU at least), the libraries only as far as they are used (MCL_ONFAULT:
# locking them whole read all of libgcrypt and the compressors in for
# nothing, and cost more start-up time than cyclictest's whole run).
# As root, which may lock without limit.
lock_smaps()
{
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$T/no-bus "$REALTIMECTL" latency --duration 3s \
		--priority 10 --json >/dev/null 2>&1 &
	_p=$!
	sleep 1.5
	cat "/proc/$_p/smaps" >"$T/smaps" 2>/dev/null
	wait "$_p"
	awk -v ncpu="$(nproc)" '
		/^[0-9a-f]+-[0-9a-f]+ / { lib = ($6 ~ /\.so/); anon = (NF < 6) }
		/^Size:/ { if (lib) lsize += $2 }
		/^Rss:/ { if (lib) lrss += $2 }
		/^Locked:/ { if (lib) llocked += $2; if (anon) alocked += $2 }
		END { printf "%d %d %d %d %d\n", lsize, lrss, llocked, alocked, ncpu * 144 }
	' "$T/smaps"
}
# word splitting wanted: five numbers
# shellcheck disable=SC2046
set -- $(lock_smaps)
note "memory: libraries ${1:-?} kB mapped, ${2:-?} kB resident, ${3:-?} kB locked; anonymous ${4:-?} kB locked (want >= ${5:-?})"
if [ $# = 5 ] && [ "$1" -gt 0 ]; then
	check "memory lock: the measuring threads' stacks and histograms are resident and locked" \
		test "$4" -ge "$5"
	check "memory lock: what the libraries run is locked" test "$3" -gt 0
	check "memory lock: the libraries are not read in whole" test "$2" -lt "$(($1 * 3 / 4))"
else
	fail "memory lock: could not read the measuring process's smaps"
fi

integ_stop_daemon
lat rtaudio gone
check_eq "without realtimed: exit status" 0 "$rc"
latency_check_json "$T/gone.json"
latency_check_svg "$T/gone.svg"
check "without realtimed: it says so" grep -q "realtimed is not reachable" "$T/gone.err"
check "... in the JSON too" grep -q '"realtimed":false,"note":"[^"]*realtimed is not reachable' "$T/gone.json"
finish
