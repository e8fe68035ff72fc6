#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/latency-bench.sh: does realtimectl latency measure what cyclictest
# (rt-tests) measures, at no more CPU cost? As root, on the host:
#
#	bench/latency-bench.sh [BUILD_DIR]      (default: build)
#
# ROUNDS rounds (default 3) of DURATION seconds (default 10), idle and under
# `stress-ng --cpu NCPU` (the load runs SCHED_OTHER at nice 19, as a desktop's
# work does beside audio), one tool after the other in each round:
#
#   realtimectl latency --priority PRIO --interval 1ms --duration DURATION --json
#   cyclictest -m -p PRIO -i 1000 -d 0 -t -a -D DURATION -q
#
# both as root at SCHED_FIFO PRIO (default 95), one thread per CPU, pinned,
# memory locked. cyclictest holds /dev/cpu_dma_latency at 0 while it runs;
# the bench holds it the same during realtimectl's rounds, so both see the
# same C-states (realtimed can hold it for real work: CpuDmaLatency=).
# realtimectl runs without a system bus here (root sets SCHED_FIFO itself):
# the kernel state is the one a realtimed grant gives.
#
# Per tool and load: the average and the maximum over the CPUs, their mean
# and range over the rounds; they agree when each tool's mean lies within
# the other's range widened by the run's noise (the larger of the two
# ranges, plus 1 µs: cyclictest prints whole µs). CPU time per sample:
# user + system time of the whole process (getrusage of the child) over
# the wakeups it measured. Writes the
# "## realtimectl latency against cyclictest" section of bench/RESULTS.md
# and exits 1 when a target is missed.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
BUILD=${1:-$TOP_SRCDIR/build}
CTL=$BUILD/realtimectl/realtimectl
ROUNDS=${ROUNDS:-3}
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
		set -- cyclictest -m -p "$PRIO" -i 1000 -d 0 -t -a -D "$DURATION" -q
		hold=0
		;;
	esac
	# the child's own CPU time, from getrusage(RUSAGE_CHILDREN)
	python3 - "$hold" "$_o" "$@" <<-'PY'
	import os, resource, struct, subprocess, sys
	hold, out, cmd = sys.argv[1] == "1", sys.argv[2], sys.argv[3:]
	if hold:
	    fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
	    os.write(fd, struct.pack("i", 0))
	with open(out + ".out", "w") as f:
	    subprocess.run(cmd, stdout=f, stderr=subprocess.DEVNULL, check=True)
	r = resource.getrusage(resource.RUSAGE_CHILDREN)
	open(out + ".cpu", "w").write("%f\n" % (r.ru_utime + r.ru_stime))
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
		run realtimectl $load $r || exit 1
		run cyclictest $load $r || exit 1
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
    cpu = float(open(base + ".cpu").read())
    text = open(base + ".out").read()
    if tool == "realtimectl":
        d = json.loads(text)
        cpus = [(c["avg_us"], c["max_us"], c["samples"]) for c in d["cpus"]]
    else:
        cpus = [(float(a), float(m), int(n)) for n, a, m in
                re.findall(r"C:\s*(\d+).*?Avg:\s*(\d+)\s+Max:\s*(\d+)", text)]
    n = sum(c[2] for c in cpus)
    avg = sum(c[0] * c[2] for c in cpus) / n
    return avg, max(c[1] for c in cpus), cpu / n * 1e6, n

rows, ok = [], True
for load in ("idle", "stress"):
    got = {t: [figures(t, load, r) for r in range(1, rounds + 1)]
           for t in ("realtimectl", "cyclictest")}
    for k, what in ((0, "average"), (1, "maximum")):
        a = [g[k] for g in got["realtimectl"]]
        b = [g[k] for g in got["cyclictest"]]
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        # cyclictest prints whole µs: its figures are +-1 besides
        noise = max(max(a) - min(a), max(b) - min(b)) + 1
        agree = abs(ma - mb) <= noise
        ok &= agree
        rows.append("| %s | %s | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | %.1f | %s |" % (
            load, what, ma, min(a), max(a), mb, min(b), max(b), noise,
            "yes" if agree else "**no**"))
    ca = sum(g[2] for g in got["realtimectl"]) / rounds
    cb = sum(g[2] for g in got["cyclictest"]) / rounds
    ok &= ca <= cb
    rows.append("| %s | CPU time per wakeup | %.2f us | %.2f us | | %s |" % (
        load, ca, cb, "yes" if ca <= cb else "**no**"))

print("""Whether `realtimectl latency` measures what cyclictest measures, and at
no higher CPU cost: %d rounds of %s s per tool, one after the other,
idle and under `stress-ng --cpu %s` at nice 19, both as root at SCHED_FIFO
%s, every 1 ms, one pinned thread per CPU, memory locked, with
/dev/cpu_dma_latency held at 0 for both (cyclictest holds it itself).
Figures in µs: the mean over the rounds (their range in brackets) of the
average and the maximum over the CPUs; "noise" is the larger of the two
tools' ranges plus 1 µs (cyclictest prints whole µs), and they agree when
their means differ by no more. CPU time per wakeup: the process's user +
system time (getrusage) over the wakeups it measured. Release build (`meson setup build-rel -Dbuildtype=release`).

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
