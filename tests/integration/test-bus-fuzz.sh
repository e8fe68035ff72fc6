#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The bus fuzzer: three unprivileged users (rtaudio, a member of audio;
# rtplain, whom no rule covers and polkit lets have realtime; rtalice, an
# rr-only user with Nice=19 who holds org.realtimed.manage) run bus-fuzz
# against realtimed at once, each checking every grant against the policy
# written below (bus-fuzz/main.c). Besides single calls they send bursts of
# grants past the per-user limits, which wait together at polkit or at the
# resolver, floods of manage calls, granted threads that lower themselves
# to SCHED_OTHER and spin a few milliseconds, and grants for threads that
# exit at once (bus-fuzz/bursts.c); the first thread of each victim
# process calls execve() now and then, with whatever grant it held, and
# after every burst no thread may run realtime that no grant names unless
# it did before the run (rtalice looks at every user's). A fourth user, rtprobe (uid 4111, no
# rule; polkit allows it realtime), is no fuzzer: it holds one grant all
# along and asks for another about every 300 ms (bus-fuzz --probe); each
# must succeed, but for the canary's documented refusal. The limits are
# small on purpose (ThreadsPerUserMax=16, ProcessesPerUserMax=2,
# UsersMax=3: the probe and two of the fuzzers), so that a burst can pass
# them; each fuzzer counts its own grants after every burst, and this
# script counts everyone's (ListAllGrants, as root) every second.
# Fails when realtimed stops answering or
# exits, when a sanitizer reports (run it from the ASan/UBSan build:
# scripts/check does), when the oracle finds a grant beyond policy or a
# limit, or when the probe's grant fails.
#
#   BUSFUZZ_SECONDS  how long to fuzz (default 60)
#   BUSFUZZ_SEED     the seed of the first fuzzer (+1, +2 for the others)
#   BUSFUZZ_CALLS    only these kinds of calls (bus-fuzz --calls, see calls.c)
#   BUSFUZZ_LOGDIR   keep realtimed's log, the fuzzers' and sanitizer reports there
#   BUSFUZZ_ASAN_OPTIONS  more ASAN_OPTIONS for realtimed (quarantine_size_mb=0:
#                    RSS without ASan's quarantine of freed memory)
#
# A 30-minute run: BUSFUZZ_SECONDS=1800 meson test -C build-asan integ-bus-fuzz -t 0 -v

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
BUS_FUZZ=${BUS_FUZZ:-$TOP_BUILDDIR/tests/integration/bus-fuzz}
[ -x "$BUS_FUZZ" ] || skip "bus-fuzz is not built ($BUS_FUZZ)"
seconds=${BUSFUZZ_SECONDS:-60}
seed=${BUSFUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
integ_setup

# the probe user: no rule covers it, polkit allows it realtime (polkitd
# reads a new rules file by itself; the probe retries its first grant)
UID_PROBE=4111
echo "rtprobe:x:$UID_PROBE:$UID_PROBE:realtimed bus-fuzz probe:/nonexistent:/bin/sh" >>"$WORK/etc/passwd"
echo "rtprobe:x:$UID_PROBE:" >>"$WORK/etc/group"
echo "rtprobe:*:19000:0:99999:7:::" >>"$WORK/etc/shadow"
cat >"$WORK/polkit-rules/40-bus-fuzz-probe.rules" <<'EOF'
polkit.addRule(function(action, subject) {
	if (subject.user == "rtprobe" && action.id == "org.realtimed.acquire-realtime")
		return polkit.Result.YES;
	return polkit.Result.NOT_HANDLED;
});
EOF
chmod 644 "$WORK/polkit-rules/40-bus-fuzz-probe.rules"

# What each user may get; bus-fuzz is told the same below (fuzz_limits).
integ_admin_conf <<-'EOF'
	[Daemon]
	BurstSec=2
	ActionsPerBurst=100
	ThreadsPerUserMax=16
	ProcessesPerUserMax=2
	UsersMax=3

	[Default]
	RealtimePriority=20
	Policies=rr
	Nice=-15
	MemLock=8M
	RTTime=200ms

	[Group audio]
	RealtimePriority=40
	Policies=fifo rr
	CompatPolicy=fifo
	Nice=-10
	MemLock=8M
	RTTime=500ms

	[User rtalice]
	RealtimePriority=10
	Policies=rr
	CompatPolicy=rr
	Nice=19
	MemLock=4M
	RTTime=100ms
EOF

THREADS_MAX=16 PROCESSES_MAX=2 USERS_MAX=3
fuzz_limits()
{
	echo "--threads-max $THREADS_MAX --processes-max $PROCESSES_MAX --users-max $USERS_MAX"
	case $1 in
	rtaudio) echo "--max-prio 40 --policies fifo,rr --min-nice -10 --memlock 8388608 --rttime 500000" ;;
	rtplain) echo "--max-prio 20 --policies rr --min-nice -15 --memlock 8388608 --rttime 200000" ;;
	rtalice) echo "--max-prio 10 --policies rr --min-nice 19 --memlock 4194304 --rttime 100000 --sees-all" ;;
	esac
}

# The daemon under its sanitizers: every report goes to a file of its own,
# an abort() (libdbus's answer to an invalid argument) gets a stack trace,
# and leaks are checked at exit (libdbus and sd-event have needed no
# suppression so far; if they do, suppress their frames only, never ours).
if ldd "$REALTIMED" 2>/dev/null | grep -q libasan; then
	note "realtimed is built with AddressSanitizer and UBSan"
else
	note "realtimed is not built with sanitizers; scripts/check runs this test from the ASan/UBSan build"
fi
ASAN_OPTIONS="detect_leaks=1:handle_abort=1:log_path=$WORK/sanitizer${BUSFUZZ_ASAN_OPTIONS:+:$BUSFUZZ_ASAN_OPTIONS}"
UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$WORK/sanitizer"
export ASAN_OPTIONS UBSAN_OPTIONS
integ_start_daemon
# the fuzzers and the tools below are not under test
ASAN_OPTIONS=detect_leaks=0
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# explain_is UID KEY VALUE: realtimed's Explain says so (asked as root)
explain_is()
{
	native Explain "uint32:$1" | grep -A2 "\"$2\"" | grep -q "string \"$3\""
}
if explain_is $UID_AUDIO RealtimePriority 40 && explain_is $UID_ALICE Nice 19; then
	ok "the test policy is in force (rtaudio: RealtimePriority=40, rtalice: Nice=19)"
else
	fail "the test policy is not in force, so bus-fuzz's limits would be wrong: $(native Explain uint32:$UID_AUDIO | head -n 12)"
	finish
fi

rss()
{
	awk '/^VmRSS:/ { print $2 }' "/proc/$DAEMON_PID/status" 2>/dev/null
}
sleep 1
rss_before=$(rss)
note "fuzzing for $seconds s, seed $seed (rerun: BUSFUZZ_SEED=$seed); realtimed pid $DAEMON_PID, VmRSS $rss_before kB"

# The probe first: its standing grant makes it one of the UsersMax users.
as_bg rtprobe "$BUS_FUZZ" --probe 300 --label rtprobe --seed "$seed" --seconds "$seconds" \
	>"$WORK/fuzz-rtprobe.log" 2>&1
integ_track $!
fuzzers="rtprobe:$!"
if ! wait_for 20 grep -q 'probe ready' "$WORK/fuzz-rtprobe.log"; then
	fail "the probe user got no grant before the run: $(tail -n 3 "$WORK/fuzz-rtprobe.log")"
	finish
fi

# limits_poll: every user's grants on live threads (ListAllGrants, as
# root) against the per-user limits; a line per excess into limits.out
: >"$WORK/limits.out"
limits_poll()
{
	native ListAllGrants | awk -v tmax=$THREADS_MAX -v pmax=$PROCESSES_MAX -v umax=$USERS_MAX \
		-v when="$(($(date +%s) - start)) s" '
		/struct {/ { i = 0; next }
		$1 == "uint64" { i++; if (i == 1) pid = $2; else if (i == 2) tid = $2; next }
		$1 == "uint32" && i == 2 {
			i = 3
			f = "/proc/" pid "/task/" tid "/stat"
			if ((getline line < f) <= 0)
				next
			close(f)
			nt[$2]++
			if (!((($2) SUBSEP pid) in seen)) { seen[$2, pid] = 1; np[$2]++ }
			if (!($2 in users)) { users[$2] = 1; nu++ }
		}
		END {
			for (u in nt) {
				if (nt[u] > tmax) printf "%s: uid %s holds grants on %d live threads, ThreadsPerUserMax=%d\n", when, u, nt[u], tmax
				if (np[u] > pmax) printf "%s: uid %s holds grants in %d live processes, ProcessesPerUserMax=%d\n", when, u, np[u], pmax
			}
			if (nu > umax) printf "%s: %d users hold grants on live threads, UsersMax=%d\n", when, nu, umax
		}' >>"$WORK/limits.out"
}

i=0
start=$(date +%s)
for u in rtaudio rtplain rtalice; do
	# shellcheck disable=SC2046
	as_bg $u "$BUS_FUZZ" --label $u --seed $((seed + i)) --seconds "$seconds" --workers 3 \
		--burst 100 --burst-sec 2 $(fuzz_limits $u) ${BUSFUZZ_CALLS:+--calls "$BUSFUZZ_CALLS"} \
		>"$WORK/fuzz-$u.log" 2>&1
	integ_track $!
	fuzzers="$fuzzers $u:$!"
	i=$((i + 1))
done

# Wait for them; keep realtimed's --debug log in bounds on long runs;
# count everyone's grants every second.
while :; do
	running=0
	for f in $fuzzers; do
		kill -0 "${f#*:}" 2>/dev/null && running=1
	done
	[ $running = 1 ] || break
	if [ "$(stat -c %s "$WORK/realtimed.log")" -gt 67108864 ]; then
		tail -n 2000 "$WORK/realtimed.log" >"$WORK/realtimed.log.old"
		: >"$WORK/realtimed.log"
	fi
	if [ $(($(date +%s) - start)) -gt $((seconds + 180)) ]; then
		fail "bus-fuzz did not finish within $seconds s + 180 s"
		break
	fi
	limits_poll
	sleep 1
done
rss_after=$(rss)

for f in $fuzzers; do
	u=${f%%:*}
	wait "${f#*:}"
	rc=$?
	integ_untrack "${f#*:}"
	grep -v ': error \|: stat \|: violation ' "$WORK/fuzz-$u.log" | sed 's/^/# /'
	calls=$(sed -n 's/.*: stat calls //p' "$WORK/fuzz-$u.log")
	checked=$(sed -n 's/.*: stat grants_checked //p' "$WORK/fuzz-$u.log")
	if [ $rc = 0 ]; then
		ok "$u: ${calls:-?} calls, ${checked:-?} grants checked, no violation"
	else
		fail "$u: bus-fuzz exited with $rc (violations or a crash, above)"
	fi
done

# Totals over the three fuzzers, for bench/RESULTS.md.
sum()
{
	cat "$WORK"/fuzz-*.log | sed -n "s/.*: stat $1 //p" | awk '{ s += $1 } END { print s + 0 }'
}
note "calls sent: $(sum calls), answered without error: $(sum ok)"
note "grants checked: $(sum grants_checked), GrantLimits checked: $(sum limits_checked), supervision checks: $(sum supervised_checks)"
note "violations: $(sum violations), fuzzers that saw realtimed stop answering: $(sum crashes), timeouts: $(sum timeouts)"
note "clients hung up mid-call: $(sum disconnects), extra connections: $(sum connections), floods: $(sum floods) ($(sum flood_rate_limited) rate-limited), renames: $(sum renames), read-back races: $(sum races)"
note "violations by kind (the first few of each are shown above):"
cat "$WORK"/fuzz-*.log | sed -n 's/.*: violation \([0-9]*\) x /\1 /p' |
	awk '{ n = $1; $1 = ""; v[$0] += n } END { for (k in v) printf "%9d%s\n", v[k], k }' |
	sort -rn | sed 's/^/#   /'
note "errors by name:"
cat "$WORK"/fuzz-*.log | sed -n 's/.*: error //p' |
	awk '{ n[$1] += $2 } END { for (e in n) printf "%9d %s\n", n[e], e }' | sort -rn | sed 's/^/#   /'
note "bursts: $(sum bursts) ($(sum burst_granted) grants), limit checks after them: $(sum limit_checks), manage floods: $(sum manage_floods), lower-and-spin: $(sum spins), tid churns: $(sum tid_churns) ($(sum tid_reuses) tids reused)"
note "victim threads that called execve(): $(sum execs); looks for a realtime thread no grant names: $(sum supervision_scans)"
note "probe: $(sum probes) grants asked, $(sed -n 's/.*: stat ok //p' "$WORK/fuzz-rtprobe.log") succeeded, $(sum probe_refused) refused by the canary's cool-down; $(grep -h 'probe grants p50' "$WORK/fuzz-rtprobe.log" | sed 's/.*probe grants //')"
if [ -s "$WORK/limits.out" ]; then
	fail "the per-user limits were exceeded $(wc -l <"$WORK/limits.out") times in ListAllGrants (every second, as root); the first:"
	head -n 5 "$WORK/limits.out" | sed 's/^/#   /'
else
	ok "no user's grants went past ThreadsPerUserMax=$THREADS_MAX, ProcessesPerUserMax=$PROCESSES_MAX, UsersMax=$USERS_MAX in any look (every second, as root)"
fi
[ "$(sum grants_checked)" -gt 0 ] || [ "$(sum crashes)" -gt 0 ] || [ -n "$BUSFUZZ_CALLS" ] ||
	fail "no grant was checked: the oracle never ran"
[ "$(sum supervision_scans)" -gt 0 ] || [ "$(sum crashes)" -gt 0 ] || [ -n "$BUSFUZZ_CALLS" ] ||
	fail "no burst ended in a look for unsupervised realtime threads"

crashes=0
if kill -0 "$DAEMON_PID" 2>/dev/null; then
	ok "realtimed is still running (VmRSS $rss_before kB before, $rss_after kB after)"
	integ_stop_daemon TERM
	if [ "$DAEMON_RC" = 0 ]; then
		ok "realtimed exited cleanly on SIGTERM"
	else
		fail "realtimed exited with $DAEMON_RC on SIGTERM"
	fi
else
	wait "$DAEMON_PID" 2>/dev/null
	fail "realtimed exited during the run (status $?)"
	crashes=1
	tail -n 20 "$WORK/realtimed.log" | sed 's/^/#   realtimed: /'
	integ_untrack "$DAEMON_PID"
	DAEMON_PID=
fi

reports=0
for f in "$WORK"/sanitizer.*; do
	[ -s "$f" ] || continue
	reports=$((reports + 1))
	note "sanitizer report $f:"
	head -n 60 "$f" | sed 's/^/#   /'
done
if [ $reports = 0 ]; then
	ok "no sanitizer report"
else
	fail "$reports sanitizer report(s)"
fi
if [ -n "$BUSFUZZ_LOGDIR" ]; then
	mkdir -p "$BUSFUZZ_LOGDIR" && cp "$WORK"/realtimed.log* "$WORK"/fuzz-*.log "$WORK"/limits.out "$BUSFUZZ_LOGDIR"/ &&
		cp "$WORK"/sanitizer.* "$BUSFUZZ_LOGDIR"/ 2>/dev/null
	note "logs kept in $BUSFUZZ_LOGDIR"
fi
note "summary: seconds=$seconds calls=$(sum calls) grants_checked=$(sum grants_checked) violations=$(sum violations) limit_excesses=$(wc -l <"$WORK/limits.out") probes=$(sum probes) crashes=$crashes sanitizer_reports=$reports rss_before_kb=$rss_before rss_after_kb=$rss_after"

finish
