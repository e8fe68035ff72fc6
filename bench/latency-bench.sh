#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/latency-bench.sh: does realtimectl latency measure what cyclictest
# (rt-tests) measures, at no more CPU cost? As root, on the host:
#
#	bench/latency-bench.sh [BUILD_DIR]      (default: build)
#
# ROUNDS rounds (default 6) of DURATION seconds (default 10), idle and under
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
# with -N). CPU time per wakeup: user + system time of the whole process
# (wait4() on the child) over the wakeups it measured, and the part of
# it that is the tool's own: all but its measuring threads' (schedstat);
# realtimectl's must exceed cyclictest's in neither. Writes the
# "## realtimectl latency against cyclictest" section of bench/RESULTS.md
# and exits 1 when a target is missed.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
BUILD=${1:-$TOP_SRCDIR/build}
CTL=$BUILD/realtimectl/realtimectl
ROUNDS=${ROUNDS:-6}
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

# run TOOL LOAD ROUND: one measurement into $work/TOOL-LOAD-ROUND.{out,cpu}
run()
{
	_o=$work/$1-$2-$3
	case $1 in
	realtimectl)
		set -- env DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-bus \
			"$CTL" latency --priority "$PRIO" --interval 1ms --duration "${DURATION}s" --json
		hold=1
		;;
	cyclictest)
		set -- cyclictest -m -p "$PRIO" -i 1000 -d 0 -t -a -D "$DURATION" -q -N
		hold=0
		;;
	esac
	# The child's CPU time, from wait4() on it (not RUSAGE_CHILDREN:
	# Debian's python3 has 40-50 ms of children of its own at start-up),
	# and that of its measuring threads (every thread but the main one),
	# from their schedstat read every 20 ms until they end; the rest, the
	# tool's own, is the main thread with start-up and exit.
	python3 - "$hold" "$_o" "$@" <<-'PY'
	import os, struct, subprocess, sys, time
	hold, out, cmd = sys.argv[1] == "1", sys.argv[2], sys.argv[3:]
	if hold:
	    fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
	    os.write(fd, struct.pack("i", 0))
	threads = {}
	with open(out + ".out", "w") as f:
	    p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.DEVNULL)
	    while True:
	        pid, status, r = os.wait4(p.pid, os.WNOHANG)
	        if pid:
	            break
	        try:
	            tids = [t for t in os.listdir("/proc/%d/task" % p.pid) if t != str(p.pid)]
	        except OSError:
	            tids = []
	        for t in tids:
	            try:
	                with open("/proc/%d/task/%s/schedstat" % (p.pid, t)) as st:
	                    threads[t] = int(st.read().split()[0]) / 1e9
	            except (OSError, ValueError, IndexError):
	                pass
	        time.sleep(0.02)
	p.returncode = 0
	if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
	    sys.exit("%s failed (wait status %d)" % (cmd[0], status))
	open(out + ".cpu", "w").write("%f %f\n" % (r.ru_utime + r.ru_stime, sum(threads.values())))
	PY
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
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
WHEN="$(date -u '+%Y-%m-%d %H:%M UTC'), build of $(git -C "$TOP_SRCDIR" rev-parse --short HEAD 2>/dev/null || echo '?')"

python3 - "$work" "$ROUNDS" "$DURATION" "$PRIO" "$NCPU" "$LOAD0" "$LOAD1" "$WHEN" >"$work/section" <<'PY'
import json, re, sys
work, rounds, duration, prio, ncpu, load0, load1, when = sys.argv[1:9]
rounds = int(rounds)

def figures(tool, load, r):
    base = "%s/%s-%s-%d" % (work, tool, load, r)
    cpu, measuring = (float(x) for x in open(base + ".cpu").read().split())
    text = open(base + ".out").read()
    if tool == "realtimectl":
        d = json.loads(text)
        cpus = [(c["avg_us"], c["max_us"], c["samples"]) for c in d["cpus"]]
    else:
        # -N: in ns, not truncated to whole µs
        cpus = [(float(a) / 1000, float(m) / 1000, int(n)) for n, a, m in
                re.findall(r"C:\s*(\d+).*?Avg:\s*(\d+)\s+Max:\s*(\d+)", text)]
    n = sum(c[2] for c in cpus)
    avg = sum(c[0] * c[2] for c in cpus) / n
    return avg, max(c[1] for c in cpus), cpu / n * 1e6, (cpu - measuring) / n * 1e6

rows, ok = [], True
for load in ("idle", "stress"):
    got = {t: [figures(t, load, r) for r in range(1, rounds + 1)]
           for t in ("realtimectl", "cyclictest")}
    for k, what in ((0, "average"), (1, "maximum")):
        a = [g[k] for g in got["realtimectl"]]
        b = [g[k] for g in got["cyclictest"]]
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        noise = max(max(a) - min(a), max(b) - min(b))
        agree = abs(ma - mb) <= noise
        ok &= agree
        rows.append("| %s | %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.1f | %s |" % (
            load, what, ma, min(a), max(a), mb, min(b), max(b), noise,
            "yes" if agree else "**no**"))
    # all of it: the wakeups, the same kernel work for both, and each
    # tool's own; then the tool's own alone; neither may be higher
    for k, what in ((2, "CPU time per wakeup, all"), (3, "CPU time per wakeup, own")):
        a = [g[k] for g in got["realtimectl"]]
        b = [g[k] for g in got["cyclictest"]]
        ca, cb = sum(a) / rounds, sum(b) / rounds
        ok &= ca <= cb
        rows.append("| %s | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | | %s (%s by %.1f%%) |" % (
            load, what, ca, min(a), max(a), cb, min(b), max(b),
            "yes" if ca <= cb else "**no**", "lower" if ca <= cb else "higher",
            abs(ca - cb) / cb * 100))

print("""Whether `realtimectl latency` measures what cyclictest measures, and at
no higher CPU cost: %d rounds of %s s per tool, one after the other
(each first in every other round), idle and under `stress-ng --cpu %s` at nice 19, both as root at SCHED_FIFO
%s, every 1 ms, one pinned thread per CPU, memory locked, with
/dev/cpu_dma_latency held at 0 for both (cyclictest holds it itself).
Figures in µs: the mean over the rounds (their range in brackets) of the
average and the maximum over the CPUs; "noise" is the larger of the two
tools' ranges (cyclictest in ns, -N), and they agree when
their means differ by no more. CPU time per wakeup, in µs, the mean and
range over the rounds: "all" is the process's user + system time
(wait4()) over the wakeups it measured, mostly the kernel's wakeup path,
the same work for both tools and as noisy as this shared VM; "own" is
what the tool spends besides its measuring threads (their CPU time read
from /proc/PID/task/TID/schedstat every 20 ms until they end): its main
thread, start-up and exit, that is realtimectl's interrupt counts,
histograms and output, cyclictest's polling main thread. The targets:
realtimectl's figures no higher than cyclictest's, all and own. Release build (`meson setup build-rel -Dbuildtype=release`).

```
sudo bench/latency-bench.sh build-rel      # ROUNDS=%d DURATION=%s PRIO=%s
```

| load | figure | realtimectl | cyclictest | noise | agree |
|---|---|---|---|---|---|
%s

Measured %s; load average before and after: %s / %s.
""" % (rounds, duration, ncpu, prio, rounds, duration, prio, "\n".join(rows), when, load0, load1))
print("**Targets %s.**" % ("met" if ok else "missed"))
sys.exit(0 if ok else 1)
PY
status=$?
cat "$work/section"
python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" \
	"realtimectl latency against cyclictest" "$work/section"
exit $status
