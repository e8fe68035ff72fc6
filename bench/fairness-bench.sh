#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/fairness-bench.sh: can one user take realtime, or its speed, away
# from another? While one user (rtflood, uid 4120, whom no rule covers and
# polkit refuses realtime and org.realtimed.manage but allows nice levels)
# floods every method realtimed serves from 16 connections, each with 64
# calls in flight (grants past its limits, native and rtkit, realtime and
# nice; ListAllGrants, Explain of another uid, Reload; Explain of itself,
# ListGrants, Properties Get/GetAll), another user's grant round trip is
# measured, and the same without the flood, and under the close-at-once
# flood (issue 31): rtflood's FAIR_CLOSE_THREADS (2) threads each open a
# connection, send FAIR_CLOSE_CALLS (100) of those calls wanting no reply
# and close it at once, again and again, so that every connection is a
# new sender realtimed has not seen. The victims:
#   - rtaudio, a member of audio ([Group audio] covers it, polkit is not
#     asked): MakeThreadRealtime rr 5 on its own sleeping thread, then
#     ResetThread;
#   - rtplain, whom no rule covers and polkit authorizes: the same on a new
#     child process each round, so that polkit is asked every time (its
#     "yes" is cached per process);
#   - the floor: rtaudio asks dbus-daemon itself (GetId), with realtimed
#     running but not asked: what the flood costs every round trip on this
#     bus and these CPUs, whatever service answers.
# Figures: p50 and p99 of the grant, their ratio flood / quiet (the target
# is within 2x), the grants that failed, by error name, and realtimed's CPU
# time in each phase. In the
# integration harness's private namespace (tests/integration/lib.sh: private
# system bus, real polkitd, test users); a fresh realtimed for every phase.
# Nothing runs away: every granted thread sleeps. As root:
#
#	bench/fairness-bench.sh [BUILD_DIR]          (default: build)
#	REALTIMED="/old/build-rel/daemon/realtimed /new/build-rel/daemon/realtimed" \
#		bench/fairness-bench.sh build-rel
#
# REALTIMED names one or more realtimed binaries, measured in turn within
# each phase (quiet and flood alternate per binary), so that builds are
# compared in one sitting under the same load. FAIR_ROUNDS (300) is the
# rounds per victim and phase, FAIR_DEPTH (64) the calls in flight per
# flooding connection, FAIR_CONNECTIONS (16), FAIR_NO_RESULTS=1 leaves
# bench/RESULTS.md alone, FAIR_SECTION names the section of it that the
# run replaces (default: the issue 20 one). The policy is the shipped one with
# ActionsPerBurst=400 (default 100), so that a victim's rounds fit its own
# rate limit; the flooder's grants then meet the rate limit and its per-user
# limits, its manage calls polkit.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
if [ -n "$1" ]; then
	TOP_BUILDDIR=$(cd "$1" && pwd)
fi
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR
FAIR_DAEMONS=${REALTIMED:-$TOP_BUILDDIR/daemon/realtimed}
ROUNDS=${FAIR_ROUNDS:-300}
DEPTH=${FAIR_DEPTH:-64}
CONNS=${FAIR_CONNECTIONS:-16}
CLOSE_THREADS=${FAIR_CLOSE_THREADS:-2}
CLOSE_CALLS=${FAIR_CLOSE_CALLS:-100}
SECTION=${FAIR_SECTION:-"Fairness: another user's grants under a flood (issue 20)"}
PRIO=5
UID_FLOOD=4120

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
integ_enter "$@"
integ_require_cmd cc pkg-config
for d in $FAIR_DAEMONS; do
	[ -x "$d" ] || skip "realtimed is not built ($d)"
done

integ_setup
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
T_START=$(date +%s)

echo "rtflood:x:$UID_FLOOD:$UID_FLOOD:realtimed bench flooder:/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
echo "rtflood:x:$UID_FLOOD:" >>"$WORK/etc/group"
echo "rtflood:*:19000:0:99999:7:::" >>"$WORK/etc/shadow"
id rtflood >/dev/null 2>&1 || skip "rtflood is not known to NSS after adding it"
# rtflood: polkit says no to realtime and to manage (never cached, so
# every such call asks polkitd), yes to nice levels (cached: its nice
# grants pile up to ThreadsPerUserMax and past it). polkitd is started
# again to read the rule with the new user known.
cat >"$WORK/polkit-rules/40-fairness-bench.rules" <<'EOF'
polkit.addRule(function(action, subject) {
	if (subject.user != "rtflood")
		return polkit.Result.NOT_HANDLED;
	if (action.id == "org.realtimed.acquire-high-priority" ||
	    action.id == "org.freedesktop.RealtimeKit1.acquire-high-priority")
		return polkit.Result.YES;
	return polkit.Result.NO;
});
EOF
chmod 644 "$WORK/polkit-rules/40-fairness-bench.rules"
integ_stop "$POLKITD_PID"
wait_for 10 sh -c '! dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.PolicyKit1 | grep -q "boolean true"'
"$POLKITD" --no-debug >>"$WORK/polkitd.log" 2>&1 &
POLKITD_PID=$!
integ_track $POLKITD_PID
wait_for 15 name_has_owner org.freedesktop.PolicyKit1 || skip "polkitd did not come back"

CLIENT=$WORK/fairness-bench
# shellcheck disable=SC2046
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$TOP_SRCDIR/common" $(pkg-config --cflags dbus-1) \
	"$TOP_SRCDIR/bench/fairness-bench.c" -o "$CLIENT" $(pkg-config --libs dbus-1) -lpthread ||
	skip "cannot build bench/fairness-bench.c"
chmod 755 "$CLIENT"

integ_admin_conf <<-EOF
	[Daemon]
	ActionsPerBurst=400
EOF

R=$WORK/results
: >"$R"
record()
{
	# TAG LINES: each line tagged
	printf '%s\n' "$2" | sed "s/^/$1 /" | tee -a "$R"
}

# realtimed's CPU time so far, in ms (utime + stime)
cpu_ms()
{
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print int(($12 + $13) * 1000 / hz) }' "/proc/$DAEMON_PID/stat"
}

# phase TAG VICTIM_USER MODE FLOOD(0: none, 1: in flight, 2: close at once) DAEMON
phase()
{
	REALTIMED=$5
	INTEG_DAEMON_DEBUG='' integ_start_daemon
	sleep 1
	record "$1" "load=$(cut -d' ' -f1 /proc/loadavg)"
	c0=$(cpu_ms) w0=$(date +%s%N)
	fp=
	if [ "$4" != 0 ]; then
		rm -f "$WORK/flood.out"
		if [ "$4" = 1 ]; then
			as_bg rtflood "$CLIENT" flood "$CONNS" "$DEPTH" 900 "$UID_AUDIO" >"$WORK/flood.out" 2>&1
		else
			as_bg rtflood "$CLIENT" closeflood "$CLOSE_THREADS" "$CLOSE_CALLS" 900 "$UID_AUDIO" >"$WORK/flood.out" 2>&1
		fi
		fp=$!
		integ_track $fp
		wait_for 30 grep -q '^flood started' "$WORK/flood.out" || note "the flooder did not start: $(cat "$WORK/flood.out")"
		# let the flood fill every queue first
		sleep 3
	fi
	record "$1" "$(run_as "$2" "$CLIENT" victim "$3" "$ROUNDS" $PRIO)"
	if [ -n "$fp" ]; then
		kill -TERM "$fp" 2>/dev/null
		wait "$fp" 2>/dev/null
		integ_untrack "$fp"
		record "$1" "$(grep '^flood sent' "$WORK/flood.out")"
	fi
	if kill -0 "$DAEMON_PID" 2>/dev/null; then
		record "$1" "daemon cpu_ms=$(($(cpu_ms) - c0)) wall_ms=$((($(date +%s%N) - w0) / 1000000))"
		record "$1" "alive=yes"
	else
		record "$1" "alive=no"
	fi
	# a realtimed still working through a backlog may not get to its
	# SIGTERM for minutes (1837f8f after the close-at-once flood): 10 s,
	# then SIGKILL, and the line says so
	kill -TERM "$DAEMON_PID" 2>/dev/null
	t=0
	while kill -0 "$DAEMON_PID" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$DAEMON_PID/stat" 2>/dev/null)" != Z ] && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if [ $t -ge 100 ]; then
		record "$1" "stopped=killed (no exit within 10 s of SIGTERM)"
		integ_stop_daemon KILL
	else
		record "$1" "stopped=term"
		integ_stop_daemon
	fi
}

i=0
for d in $FAIR_DAEMONS; do
	i=$((i + 1))
	note "daemon $i: $d"
done
for p in "covered own rtaudio" "polkit fresh rtplain" "bus bus rtaudio"; do
	# shellcheck disable=SC2086
	set -- $p
	for f in 0 1 2; do
		i=0
		for d in $FAIR_DAEMONS; do
			i=$((i + 1))
			note "$1 victim ($3, $2), flood=$f, daemon $i"
			phase "d$i-$1-$f" "$3" "$2" "$f" "$d"
		done
	done
done
T_RUN=$(($(date +%s) - T_START))

# --- report -----------------------------------------------------------------
val()
{
	# TAG KEY [KIND]: the last value of KEY in TAG's lines (of KIND: victim, flood)
	awk -v t="$1" -v key="$2" -v kind="${3:-victim}" '$1 == t && $2 == kind { for (i = 2; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); if (k == key) last = v } } END { print last }' "$R"
}
ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'
}
# TAG: realtimed's CPU time per second of the phase (ms)
cpu_rate()
{
	awk -v c="$(val "$1" cpu_ms daemon)" -v w="$(val "$1" wall_ms daemon)" 'BEGIN { if (w > 0) printf "%.0f", c * 1000 / w; else print "?" }'
}
ms()
{
	# no grant succeeded: no time to show
	awk -v v="$1" 'BEGIN { if (v == "") print "?"; else if (v == 0) print "-"; else printf "%.2f", v / 1000 }'
}

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
bdir=$(basename "$TOP_BUILDDIR")
n=0
for d in $FAIR_DAEMONS; do n=$((n + 1)); done
{
	echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) CPUs ($cpu), kernel $(uname -r),"
	echo "dbus-daemon $(dpkg-query -W -f='${Version}' dbus-daemon 2>/dev/null), polkitd $(dpkg-query -W -f='${Version}' polkitd 2>/dev/null), source tree at $(git -C "$TOP_SRCDIR" describe --always --dirty 2>/dev/null);"
	echo "load average when it started: $LOAD0 (the 1-minute figure at each phase is in the"
	echo "raw lines); the whole run took $T_RUN s. $ROUNDS rounds per victim and phase; the flood:"
	echo "$CONNS connections of rtflood with $DEPTH calls in flight each; the close-at-once flood:"
	echo "$CLOSE_THREADS threads of rtflood, each a new connection again and again that sends $CLOSE_CALLS calls"
	echo "wanting no reply and closes."
	echo
	echo '```'
	echo "sudo${REALTIMED:+ REALTIMED=\"$FAIR_DAEMONS\"}${FAIR_SECTION:+ FAIR_SECTION=\"$SECTION\"} bench/fairness-bench.sh $bdir"
	echo '```'
	echo
	i=0
	for d in $FAIR_DAEMONS; do
		i=$((i + 1))
		echo "- daemon $i: \`$d\` ($(cd "$(dirname "$d")/../.." 2>/dev/null && git describe --always --dirty 2>/dev/null || echo '?'))"
	done
	echo
	printf '| figure |'
	i=0
	while [ $i -lt $n ]; do i=$((i + 1)); printf ' daemon %s |' $i; done
	printf '\n|---|'
	i=0
	while [ $i -lt $n ]; do i=$((i + 1)); printf -- '---|'; done
	printf '\n'
	for v in covered polkit bus; do
		case $v in
		covered) what="rtaudio (audio member, own thread) grant" ;;
		polkit) what="rtplain (polkit, new process each round) grant" ;;
		bus) what="the floor: rtaudio's GetId to dbus-daemon itself (no realtimed in it)," ;;
		esac
		for row in quiet flood ratio failed close cratio cfailed cpu; do
			case $row in
			quiet) printf '| %s p50 / p99, quiet (ms) |' "$what" ;;
			flood) printf '| ... under the flood (ms) |' ;;
			ratio) printf '| ... flood / quiet, p50 / p99 (target <= 2) |' ;;
			failed) printf '| ... grants failed under the flood / quiet, errors |' ;;
			close) printf '| ... under the close-at-once flood (ms) |' ;;
			cratio) printf '| ... close-at-once flood / quiet, p50 / p99 (target <= 2) |' ;;
			cfailed) printf '| ... grants failed under the close-at-once flood, errors |' ;;
			cpu) printf '| ... realtimed CPU ms per s: quiet / flood / close-at-once |' ;;
			esac
			i=0
			while [ $i -lt $n ]; do
				i=$((i + 1))
				q=d$i-$v-0 f=d$i-$v-1 c=d$i-$v-2
				case $row in
				quiet) printf ' %s / %s |' "$(ms "$(val "$q" p50_us)")" "$(ms "$(val "$q" p99_us)")" ;;
				flood) printf ' %s / %s |' "$(ms "$(val "$f" p50_us)")" "$(ms "$(val "$f" p99_us)")" ;;
				ratio) printf ' **%s** / **%s** |' "$(ratio "$(val "$f" p50_us)" "$(val "$q" p50_us)")" "$(ratio "$(val "$f" p99_us)" "$(val "$q" p99_us)")" ;;
				failed) printf ' %s of %s / %s of %s; %s |' "$(val "$f" failed)" "$(val "$f" n)" "$(val "$q" failed)" "$(val "$q" n)" "$(val "$f" errors)" ;;
				close) printf ' %s / %s |' "$(ms "$(val "$c" p50_us)")" "$(ms "$(val "$c" p99_us)")" ;;
				cratio) printf ' **%s** / **%s** |' "$(ratio "$(val "$c" p50_us)" "$(val "$q" p50_us)")" "$(ratio "$(val "$c" p99_us)" "$(val "$q" p99_us)")" ;;
				cfailed) printf ' %s of %s; %s |' "$(val "$c" failed)" "$(val "$c" n)" "$(val "$c" errors)" ;;
				cpu) printf ' %s / %s / %s |' "$(cpu_rate "$q")" "$(cpu_rate "$f")" "$(cpu_rate "$c")" ;;
				esac
			done
			printf '\n'
		done
	done
	printf '| flood: calls answered / sent (during the %s victim) |' "polkit"
	i=0
	while [ $i -lt $n ]; do i=$((i + 1)); printf ' %s / %s in %s s |' "$(val d$i-polkit-1 answered flood)" "$(val d$i-polkit-1 sent flood)" "$(val d$i-polkit-1 secs flood)"; done
	printf '\n'
	printf '| close-at-once flood: connections / calls sent (during the %s victim) |' "polkit"
	i=0
	while [ $i -lt $n ]; do i=$((i + 1)); printf ' %s / %s in %s s |' "$(val d$i-polkit-2 connections flood)" "$(val d$i-polkit-2 sent flood)" "$(val d$i-polkit-2 secs flood)"; done
	printf '\n'
	echo
	echo "The victims' errors with their first message, and the flood's answers by D-Bus"
	echo "error name, are in the raw lines:"
	echo
	sed 's/^/    /' "$R"
} >"$WORK/section.md"
echo
cat "$WORK/section.md"
if [ -z "$FAIR_NO_RESULTS" ]; then
	python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" \
		"$SECTION" "$WORK/section.md" ||
		note "could not update bench/RESULTS.md"
fi
exit 0
