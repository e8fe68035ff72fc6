#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/latency-bench.sh: does realtimectl latency measure what cyclictest
# (rt-tests) measures, at no more CPU cost? As root, on the host:
#
#	bench/latency-bench.sh [BUILD_DIR]      (default: build)
#
# ROUNDS rounds (default 8) of DURATION seconds (default 10), idle and under
# `stress-ng --cpu NCPU` (the load runs SCHED_OTHER at nice 19, as a desktop's
# work does beside audio), one tool after the other in each round, each
# first in every other round:
#
#   realtimectl latency --priority PRIO --interval 1ms --duration DURATION --json
#   cyclictest -m -p PRIO -i 1000 -d 0 -t -a -D DURATION -q -N
#
# both as root at SCHED_FIFO PRIO (default 95), one thread per CPU, pinned,
# memory locked. cyclictest holds /dev/cpu_dma_latency at 0 while it runs;
# the bench holds it the same during realtimectl's rounds, so both see the
# same C-states (realtimed can hold it for real work: CpuDmaLatency=).
# realtimectl runs without a system bus here (root sets SCHED_FIFO itself):
# the kernel state is the one a realtimed grant gives.
#
# Per tool and load: the average and the maximum over the CPUs, their mean
# and range over the rounds; they agree when their means differ by no more
# than the run's noise, the larger of the two ranges (cyclictest prints ns
# with -N). The cost, per wakeup measured:
#   - CPU time, all: user + system time of the whole process (wait4() on
#     the child). About 95% of it is the kernel's wakeup path, the same
#     work for both tools and as noisy as the host, so it is compared
#     round by round (the two tools ran back to back): the mean ratio and
#     its 95% interval. Higher only when the whole interval is above 1.
#   - CPU time, own: all but the measuring threads' (their schedstat), that
#     is the main thread, start-up and exit. Steady to a few hundredths of
#     a µs; realtimectl's must be lower.
#   - side by side: SIDE_ROUNDS more rounds (default 12), idle, both tools
#     at once on the same CPUs, so that the host weighs on both alike: CPU
#     time per wakeup, all of it, compared round by round the same way.
#   - context switches (wait4()) and, where perf(1) can count the
#     raw_syscalls tracepoint, system calls (one more run of each tool,
#     idle, not timed): counts, not times, so the host's noise does not
#     touch them; realtimectl's must be no higher.
# Writes the "## realtimectl latency against cyclictest" section of
# bench/RESULTS.md and exits 1 when a target is missed.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
BUILD=${1:-$TOP_SRCDIR/build}
CTL=$BUILD/realtimectl/realtimectl
ROUNDS=${ROUNDS:-8}
SIDE_ROUNDS=${SIDE_ROUNDS:-12}
DURATION=${DURATION:-10}
PRIO=${PRIO:-95}

[ "$(id -u)" = 0 ] || { echo "run as root (cyclictest needs it)" >&2; exit 77; }
for c in cyclictest stress-ng python3; do
	command -v $c >/dev/null || { echo "needs $c (rt-tests, stress-ng, python3)" >&2; exit 77; }
done
[ -x "$CTL" ] || { echo "realtimectl is not built ($CTL)" >&2; exit 77; }
work=$(mktemp -d) || exit 1
LOAD_PID=
trap '[ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
NCPU=$(nproc)

# measure HOLD OUT CMD... [::: OUT CMD...]: runs the commands at once (one
# after the other by 0.3 ms), each writing its stdout to OUT.out, and puts
# into OUT.cpu each one's CPU time, that of its measuring threads and its
# context switches. With HOLD 1, /dev/cpu_dma_latency is held at 0 meanwhile.
# The CPU time is the child's own, from wait4() on it (not RUSAGE_CHILDREN:
# Debian's python3 has 40-50 ms of children of its own at start-up); the
# measuring threads (every thread but the main one) are read from their
# schedstat every 20 ms until they end. The rest, the tool's own, is the
# main thread with start-up and exit.
measure()
{
	python3 - "$@" <<-'PY'
	import os, struct, subprocess, sys, time
	hold, args = sys.argv[1] == "1", sys.argv[2:]
	groups = []
	while args:
	    k = args.index(":::") if ":::" in args else len(args)
	    groups.append((args[0], args[1:k]))
	    args = args[k + 1:]
	if hold:
	    fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
	    os.write(fd, struct.pack("i", 0))
	runs = []
	for out, cmd in groups:
	    with open(out + ".out", "w") as f:
	        runs.append({"out": out, "cmd": cmd, "threads": {}, "r": None,
	                     "p": subprocess.Popen(cmd, stdout=f, stderr=subprocess.DEVNULL)})
	    time.sleep(0.0003)
	while any(x["r"] is None for x in runs):
	    for x in runs:
	        if x["r"] is not None:
	            continue
	        pid, status, r = os.wait4(x["p"].pid, os.WNOHANG)
	        if pid:
	            x["p"].returncode = 0
	            x["r"], x["status"] = r, status
	            continue
	        try:
	            tids = [t for t in os.listdir("/proc/%d/task" % x["p"].pid)
	                    if t != str(x["p"].pid)]
	        except OSError:
	            tids = []
	        for t in tids:
	            try:
	                with open("/proc/%d/task/%s/schedstat" % (x["p"].pid, t)) as st:
	                    x["threads"][t] = int(st.read().split()[0]) / 1e9
	            except (OSError, ValueError, IndexError):
	                pass
	    time.sleep(0.02)
	for x in runs:
	    st, r = x["status"], x["r"]
	    if not os.WIFEXITED(st) or os.WEXITSTATUS(st) != 0:
	        sys.exit("%s failed (wait status %d)" % (x["cmd"][0], st))
	    open(x["out"] + ".cpu", "w").write("%f %f %d\n" % (
	        r.ru_utime + r.ru_stime, sum(x["threads"].values()), r.ru_nvcsw + r.ru_nivcsw))
	PY
}

# The two tools' command lines
CTL_CMD="env DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-bus $CTL latency --priority $PRIO --interval 1ms --duration ${DURATION}s --json"
CYC_CMD="cyclictest -m -p $PRIO -i 1000 -d 0 -t -a -D $DURATION -q -N"

# run TOOL LOAD ROUND [perf]: one measurement into $work/TOOL-LOAD-ROUND.{out,cpu}
# (with perf: under perf stat counting system calls, into .perf as well).
# cyclictest holds /dev/cpu_dma_latency itself; the bench does for realtimectl.
run()
{
	_o=$work/$1-$2-$3
	_perf=
	[ -n "${4:-}" ] && _perf="perf stat -x, -e raw_syscalls:sys_enter -o $_o.perf --"
	# word splitting wanted: command lines without blanks in their words
	# shellcheck disable=SC2086
	case $1 in
	realtimectl) measure 1 "$_o" $_perf $CTL_CMD ;;
	cyclictest) measure 0 "$_o" $_perf $CYC_CMD ;;
	esac
}

# side ROUND: both tools at once on the same CPUs, the one started first
# in turn, into $work/TOOL-side-ROUND.{out,cpu}
side()
{
	# shellcheck disable=SC2086
	if [ $(($1 % 2)) = 1 ]; then
		measure 1 "$work/realtimectl-side-$1" $CTL_CMD ::: "$work/cyclictest-side-$1" $CYC_CMD
	else
		measure 1 "$work/cyclictest-side-$1" $CYC_CMD ::: "$work/realtimectl-side-$1" $CTL_CMD
	fi
}

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
for load in idle stress; do
	if [ $load = stress ]; then
		nice -n 19 stress-ng --cpu "$NCPU" --quiet &
		LOAD_PID=$!
		sleep 2
	fi
	r=1
	while [ $r -le "$ROUNDS" ]; do
		# in turn first, so that a drift of the machine (other guests,
		# clocks) weighs on both alike
		if [ $((r % 2)) = 1 ]; then
			run realtimectl $load $r || exit 1
			run cyclictest $load $r || exit 1
		else
			run cyclictest $load $r || exit 1
			run realtimectl $load $r || exit 1
		fi
		r=$((r + 1))
	done
	if [ -n "$LOAD_PID" ]; then
		kill "$LOAD_PID"
		wait "$LOAD_PID" 2>/dev/null
		LOAD_PID=
	fi
done
# System calls are counted in a run of their own (the tracepoint costs
# time), where perf can count them.
if command -v perf >/dev/null && perf stat -x, -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null; then
	run realtimectl idle perf perf || exit 1
	run cyclictest idle perf perf || exit 1
fi
# Side by side: both at once, idle, so that the host's moods weigh on both
# alike; the CPU time is compared, not the latencies (the two tools' threads
# share the CPUs at one priority, and delay each other).
r=1
while [ $r -le "$SIDE_ROUNDS" ]; do
	side $r || exit 1
	r=$((r + 1))
done
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
WHEN="$(date -u '+%Y-%m-%d %H:%M UTC'), build of $(git -C "$TOP_SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?')"

python3 - "$work" "$ROUNDS" "$DURATION" "$PRIO" "$NCPU" "$LOAD0" "$LOAD1" "$WHEN" "$SIDE_ROUNDS" >"$work/section" <<'PY'
import json, math, os, re, sys
work, rounds, duration, prio, ncpu, load0, load1, when, side_rounds = sys.argv[1:10]
rounds, side_rounds = int(rounds), int(side_rounds)
# Student's t, two-sided 95%, by degrees of freedom
T95 = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18,
       2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09]

def samples(tool, text):
    if tool == "realtimectl":
        d = json.loads(text)
        return [(c["avg_us"], c["max_us"], c["samples"]) for c in d["cpus"]]
    # -N: in ns, not truncated to whole µs
    return [(float(a) / 1000, float(m) / 1000, int(n)) for n, a, m in
            re.findall(r"C:\s*(\d+).*?Avg:\s*(\d+)\s+Max:\s*(\d+)", text)]

def figures(tool, load, r):
    base = "%s/%s-%s-%d" % (work, tool, load, r)
    cpu, measuring, switches = (float(x) for x in open(base + ".cpu").read().split())
    cpus = samples(tool, open(base + ".out").read())
    n = sum(c[2] for c in cpus)
    avg = sum(c[0] * c[2] for c in cpus) / n
    return (avg, max(c[1] for c in cpus), cpu / n * 1e6, (cpu - measuring) / n * 1e6,
            switches / n)

def syscalls(tool):
    base = "%s/%s-idle-perf" % (work, tool)
    try:
        n = sum(c[2] for c in samples(tool, open(base + ".out").read()))
        for line in open(base + ".perf"):
            f = line.split(",")
            if len(f) > 2 and f[2].startswith("raw_syscalls:sys_enter"):
                return float(f[0]) / n
    except (OSError, ValueError, ZeroDivisionError):
        pass
    return None

def mean(v):
    return sum(v) / len(v)

def spread(v, fmt="%.2f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (mean(v), min(v), max(v))

def verdict(good, text):
    return ("yes (%s)" if good else "**no** (%s)") % text

def compared(a, b):
    """Round by round a against b: whether a is no higher (higher only when
    the whole 95% interval of the mean ratio is above 1), and in words."""
    logs = [math.log(x / y) for x, y in zip(a, b)]
    n = len(logs)
    m = mean(logs)
    half = (T95[min(n - 2, len(T95) - 1)] *
            math.sqrt(sum((x - m) ** 2 for x in logs) / (n - 1) / n) if n > 1 else math.inf)
    lo, ratio, hi = math.exp(m - half), math.exp(m), math.exp(m + half)
    text = "%.3f of it, 95%% interval %.3f-%.3f" % (ratio, lo, hi)
    if ratio <= 1:
        return True, "lower: " + text
    if lo <= 1:
        return True, "within the noise: " + text
    return False, "higher: " + text

rows, ok = [], True
for load in ("idle", "stress"):
    got = {t: [figures(t, load, r) for r in range(1, rounds + 1)]
           for t in ("realtimectl", "cyclictest")}
    for k, what in ((0, "average"), (1, "maximum")):
        a = [g[k] for g in got["realtimectl"]]
        b = [g[k] for g in got["cyclictest"]]
        ma, mb = mean(a), mean(b)
        noise = max(max(a) - min(a), max(b) - min(b))
        agree = abs(ma - mb) <= noise
        ok &= agree
        rows.append("| %s | %s | %s | %s | %.1f | %s |" % (
            load, what, spread(a, "%.1f"), spread(b, "%.1f"), noise,
            "yes" if agree else "**no**"))
    # all of it: round by round, the two tools ran back to back
    a = [g[2] for g in got["realtimectl"]]
    b = [g[2] for g in got["cyclictest"]]
    good, text = compared(a, b)
    ok &= good
    rows.append("| %s | CPU time per wakeup, all | %s | %s | | %s |" % (
        load, spread(a), spread(b), verdict(good, text)))
    # the tool's own, and the context switches: lower, no higher
    for k, what, fmt in ((3, "CPU time per wakeup, own", "%.2f"),
                         (4, "context switches per wakeup", "%.3f")):
        a = [g[k] for g in got["realtimectl"]]
        b = [g[k] for g in got["cyclictest"]]
        ca, cb = mean(a), mean(b)
        good = ca < cb if k == 3 else ca <= cb
        ok &= good
        rows.append("| %s | %s | %s | %s | | %s |" % (
            load, what, spread(a, fmt), spread(b, fmt), verdict(good, "%s by %.1f%%" % (
                "lower" if ca <= cb else "higher", abs(ca - cb) / cb * 100))))
# side by side: all of it, and the measuring threads alone
if side_rounds > 0:
    got = {t: [figures(t, "side", r) for r in range(1, side_rounds + 1)]
           for t in ("realtimectl", "cyclictest")}
    a = [g[2] for g in got["realtimectl"]]
    b = [g[2] for g in got["cyclictest"]]
    good, text = compared(a, b)
    ok &= good
    rows.append("| side by side | CPU time per wakeup, all | %s | %s | | %s |" % (
        spread(a), spread(b), verdict(good, text)))
    a = [g[2] - g[3] for g in got["realtimectl"]]
    b = [g[2] - g[3] for g in got["cyclictest"]]
    rows.append("| side by side | CPU time per wakeup, measuring threads | %s | %s | | %s |" % (
        spread(a), spread(b), "(%s)" % compared(a, b)[1]))
sa, sb = syscalls("realtimectl"), syscalls("cyclictest")
if sa is not None and sb is not None:
    good = sa <= sb
    ok &= good
    rows.append("| idle | system calls per wakeup (perf, one run) | %.3f | %.3f | | %s |" % (
        sa, sb, "yes" if good else "**no**"))
else:
    rows.append("| idle | system calls per wakeup | not counted: perf cannot count "
                "raw_syscalls here | | | |")

print("""Whether `realtimectl latency` measures what cyclictest measures, and at
no higher cost: %d rounds of %s s per tool, back to back
(each first in every other round), idle and under `stress-ng --cpu %s` at nice 19, both as root at SCHED_FIFO
%s, every 1 ms, one pinned thread per CPU, memory locked, with
/dev/cpu_dma_latency held at 0 for both (cyclictest holds it itself).
Release build (`meson setup build-rel -Dbuildtype=release`).

- Average and maximum, in µs: the mean over the rounds (their range in
  brackets) of the average and the maximum over the CPUs; "noise" is the
  larger of the two tools' ranges (cyclictest in ns, -N), and they agree
  when their means differ by no more.
- CPU time per wakeup, in µs, mean and range over the rounds. "All" is
  the process's user + system time (wait4()) over the wakeups it
  measured. About 95%% of it is the kernel's wakeup path, the same work for
  both tools, and it moves with the host by ±15%% a round; so it is
  compared round by round (the tools ran back to back), as the mean ratio
  of realtimectl's to cyclictest's with its 95%% interval, and counts as
  higher only when the whole interval is above 1. "Own" is all but the
  measuring threads' CPU time (read from /proc/PID/task/TID/schedstat
  every 20 ms until they end): the main thread, start-up and exit, that is
  realtimectl's interrupt counts, histograms and output, cyclictest's main
  thread, which polls every 10 ms. It is steady to a few hundredths of a
  µs, and realtimectl's must be lower.
- Side by side: %d more rounds, idle, with both tools at once on the same
  CPUs (each started first in turn), so that the host's moods weigh on both
  alike: the CPU time per wakeup compared round by round as above, all
  of it and the measuring threads' alone (shown, not a target: that is
  where the wakeups' cost is, the same for both).
- Context switches per wakeup (wait4()) and system calls per wakeup
  (`perf stat -e raw_syscalls:sys_enter`, one more run of each, idle, not
  timed) are counts, which the host's noise does not move: realtimectl's
  must be no higher.

```
sudo bench/latency-bench.sh build-rel      # ROUNDS=%d SIDE_ROUNDS=%d DURATION=%s PRIO=%s
```

| load | figure | realtimectl | cyclictest | noise | agree |
|---|---|---|---|---|---|
%s

Measured %s; load average before and after: %s / %s.
""" % (rounds, duration, ncpu, prio, side_rounds, rounds, side_rounds, duration, prio,
       "\n".join(rows), when, load0, load1))
print("**Targets %s.**" % ("met" if ok else "missed"))
sys.exit(0 if ok else 1)
PY
status=$?
cat "$work/section"
python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" \
	"realtimectl latency against cyclictest" "$work/section"
exit $status
