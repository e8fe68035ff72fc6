# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# What every tier checks of realtimectl latency's output, the same way:
# the JSON (the keys of realtimectl(1), histograms that add up to the
# samples, the verdict table) and the SVG (well-formed XML, and a picture
# that rsvg-convert renders). Values are not judged here: under TCG they
# mean nothing, and on a shared host they are noise.

# latency_check_json FILE [POLICY [PRIORITY]]: FILE is realtimectl latency
# --json's output; with POLICY (fifo, rr, other), every CPU was measured at
# it (and PRIORITY).
latency_check_json()
{
	if ! command -v python3 >/dev/null; then
		note "no python3: the JSON is not checked"
		return 0
	fi
	if _lj=$(python3 - "$@" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8", errors="strict"))
want = sys.argv[2] if len(sys.argv) > 2 else None
prio = int(sys.argv[3]) if len(sys.argv) > 3 else None
assert d["cpus"], "no CPU"
for c in d["cpus"]:
    for k in ("cpu", "policy", "priority", "samples", "min_us", "avg_us", "p99_us",
              "p999_us", "max_us", "histogram", "culprit"):
        assert k in c, "CPU %s has no %s" % (c.get("cpu"), k)
    assert c["samples"] > 0, "CPU %d: no samples" % c["cpu"]
    total = sum(n for us, n in c["histogram"])
    assert total == c["samples"], "CPU %d: histogram %d != samples %d" % (c["cpu"], total, c["samples"])
    assert c["min_us"] <= c["avg_us"] <= c["max_us"], "CPU %d: min/avg/max out of order" % c["cpu"]
    assert c["p99_us"] <= c["p999_us"] <= int(c["max_us"]) + 1, "CPU %d: percentiles" % c["cpu"]
    assert c["policy"] in ("fifo", "rr", "other"), c["policy"]
    if want:
        assert c["policy"] == want, "CPU %d measured at %s, not %s" % (c["cpu"], c["policy"], want)
    if prio is not None:
        assert c["priority"] == prio, "CPU %d at priority %d, not %d" % (c["cpu"], c["priority"], prio)
    if c["culprit"] is not None:
        assert c["culprit"]["name"] and c["culprit"]["count"] >= 0
v = d["verdicts"]
assert len(v) == 18, "%d verdicts" % len(v)
for e in v:
    assert set(e) == {"frames", "rate", "period_us", "verdict"}, e
    assert e["verdict"] in ("ok", "tight", "glitch"), e
print("%d CPUs, %s" % (len(d["cpus"]), ", ".join("%d: %s %d max %.1f us" % (c["cpu"], c["policy"], c["priority"], c["max_us"]) for c in d["cpus"])))
PY
	); then
		ok "latency --json: keys, histograms that add up, 18 verdicts ($_lj)"
	else
		fail "latency --json: $_lj"
	fi
}

# latency_check_svg FILE: well-formed XML (xmllint), rendered by rsvg-convert
# into a PNG that is not empty.
latency_check_svg()
{
	if ! [ -s "$1" ]; then
		fail "latency --svg wrote nothing to $1"
		return 1
	fi
	if command -v xmllint >/dev/null; then
		if _ls=$(xmllint --noout "$1" 2>&1); then
			ok "latency --svg: well-formed XML"
		else
			fail "latency --svg: xmllint: $_ls"
		fi
	else
		note "no xmllint (libxml2-utils): the SVG is not parsed"
	fi
	if command -v rsvg-convert >/dev/null; then
		if _ls=$(rsvg-convert -o "$1.png" "$1" 2>&1) && [ -s "$1.png" ]; then
			ok "latency --svg: rsvg-convert renders it ($(wc -c <"$1.png") bytes of PNG)"
		else
			fail "latency --svg: rsvg-convert: $_ls"
		fi
	else
		note "no rsvg-convert (librsvg2-bin): the SVG is not rendered"
	fi
}
