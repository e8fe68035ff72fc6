# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2154,SC2016
# Sourced by test-ctl-cli.sh with mock-realtimed owning org.realtimed.Realtime1
# on the private bus ($work/mock.log has one line per call it got): the
# daemon-backed commands send the contract's calls with the right arguments,
# parse the replies, and map each error to its exit status; run asks for
# itself and execs in the same process.

mocklog=$work/mock.log

# logged LINE DESCRIPTION: the mock got exactly this call (caller= left out).
logged() {
	if sed 's/ caller=[0-9]*//' "$mocklog" | grep -qxF -- "$1"; then
		ok "$2"
	else
		fail "$2: '$1' not in the mock's log:"
		sed 's/^/    /' "$mocklog"
	fi
}

run 0 "status with no grants" -- status
expect out "No grants" "it says there are none"

run 0 "grant --fifo 50 PID/TID" -- grant --fifo 50 1234/1235
logged "MakeThreadRealtime 1234 1235 fifo 50" "MakeThreadRealtime(1234, 1235, fifo, 50) sent"
expect out "Made thread 1234/1235 SCHED_FIFO 50." "it says what was done"
run 0 "grant PRIO PID: rr and the main thread by default" -- grant 10 1240
logged "MakeThreadRealtime 1240 0 rr 10" "MakeThreadRealtime(1240, 0, rr, 10) sent"
run 0 "grant --rr with --json" -- grant --rr 20 1241 --json
json_ok "grant --json output parses"
run 0 "grant --nice" -- grant --nice -5 1242/1243
logged "MakeThreadHighPriority 1242 1243 -5" "MakeThreadHighPriority(1242, 1243, -5) sent"

echo "# refusals and their exit statuses"
run 1 "policy refusal is exit 1" -- grant --fifo 95 1234
expect err "priority 95 exceeds the limit 90 for user mock (/etc/realtime/realtime.conf:14)" "the daemon's reason is shown"
expect err "realtimectl explain" "with a pointer to explain"
run 4 "no such process is exit 4" -- grant 50 999999
expect err "process 999999 does not exist" "the reason is shown"
run 1 "the canary cool-down is exit 1" -- grant 50 999998
expect err "canary" "the reason is shown"
run 5 "the kernel saying no is exit 5" -- grant 50 999997
expect err "Operation not permitted" "strerror is shown"
run 1 "another user's process is exit 1" -- reset 999996
expect err "belongs to another user" "the reason is shown"

echo "# status"
run 0 "status lists the grants" -- status
if grep -Eq '^1234 +1235 +jackd "rt" +rtaudio +4101 +fifo +50 +[0-9]{4}-[0-9]{2}-[0-9]{2} ' <<<"$out"; then
	ok "the fifo grant's row"
else
	fail "no row for 1234/1235: $out"
fi
expect out "PID" "a header"
logged "ListGrants" "ListGrants sent"
if [ "$(id -u)" = 0 ]; then
	expect out "4 threads supervised." "a count"
else
	expect out "4 threads of yours supervised." "a count of the caller's own"
fi
run 0 "status --all" -- status --all
logged "ListAllGrants interactive=1" "ListAllGrants sent, allowing interactive authorization"
expect out "4 threads supervised." "a count of every user's"
run 0 "status --json" -- status --json
json_ok "status --json output parses"
if command -v python3 >/dev/null && python3 -c '
import json, sys
rows = json.load(sys.stdin)
r = [r for r in rows if r["pid"] == 1234 and r["tid"] == 1235][0]
assert r["command"] == "jackd \"rt\"" and r["user"] == "rtaudio" and r["uid"] == 4101
assert r["policy"] == "fifo" and r["priority"] == 50 and r["since"] == 1764716400000000
n = [r for r in rows if r["policy"] == "nice"][0]
assert n["priority"] == -5
' <<<"$out"; then
	ok "status --json has typed fields"
else
	fail "status --json fields: $out"
fi

echo "# reset"
run 0 "reset PID/TID" -- reset 1234/1235
logged "ResetThread 1234 1235" "ResetThread(1234, 1235) sent"
run 0 "reset PID" -- reset 1240
logged "ResetProcess 1240 0" "ResetProcess(1240) sent"

echo "# explain (from the daemon)"
run 0 "explain root online" -- explain root --no-legend
logged "Explain 0" "Explain(0) sent"
if [ "$(awk '{print $1}' <<<"$out" | tr '\n' ' ')" = "RealtimePriority Nice Capabilities CompatPolicy FutureKey " ]; then
	ok "known keys in realtime.conf(5) order, unknown ones last"
else
	fail "key order: $out"
fi
if grep -Eq '^RealtimePriority +95 +/etc/realtime/realtime.conf:14$' <<<"$out" &&
	grep -Eq '^Capabilities +"" +/usr/share/realtime/realtime.conf:59$' <<<"$out" &&
	grep -Eq '^CompatPolicy +- +-$' <<<"$out"; then
	ok "values and sources, \"\" for a key set empty, '-' for an unset key"
else
	fail "explain rows: $out"
fi
run 0 "explain '#4101' --json" -- explain '#4101' --json
logged "Explain 4101" "Explain(4101) sent"
json_ok "explain --json output parses"
expect out '{"key":"Capabilities","value":"","source":"/usr/share/realtime/realtime.conf:59","section":null}' "a key set empty is \"\" in JSON"
expect out '{"key":"CompatPolicy","value":null,"source":null,"section":null}' "an unset key is null in JSON"

echo "# reload, irq"
run 0 "reload" -- reload
logged "Reload interactive=1" "Reload sent, allowing interactive authorization"
run 0 "irq from the daemon" -- irq --conf "$policy"
if grep -Eq "^16 +snd_hda_intel:card0 +300 +fifo +90 +snd\*=90 \($policy:[0-9]+\)$" <<<"$out"; then
	ok "the IRQ thread with its matching [IRQ] rule and its file:line"
else
	fail "irq row: $out"
fi
expect out "(from realtimed)" "it says where it read from"

echo "# run: ask for this process, then exec in it"
run 0 "run --limits" -- run --limits -- sh -c 'echo $$ >"$0"; grep "Max realtime timeout" /proc/self/limits' "$work/run.pid"
if grep -Eq 'Max realtime timeout +123456 +123456 +us' <<<"$out"; then
	ok "the command runs with the limit the daemon set"
else
	fail "RLIMIT_RTTIME not inherited: $out"
fi
logged "GrantLimits 0" "GrantLimits(0) sent"
if grep -q "^GrantLimits caller=$(cat "$work/run.pid") 0$" "$mocklog"; then
	ok "the caller's pid is the command's pid"
else
	fail "GrantLimits caller is not pid $(cat "$work/run.pid"): $(cat "$mocklog")"
fi
run 0 "run --fifo 50" -- run --fifo 50 -- sh -c 'echo $$ >"$0"' "$work/run.pid"
if grep -q "^MakeThreadRealtime caller=$(cat "$work/run.pid") 0 0 fifo 50$" "$mocklog"; then
	ok "MakeThreadRealtime(0, 0, fifo, 50) from the command's own process"
else
	fail "run --fifo request: $(cat "$mocklog")"
fi
run 0 "run --rr 5 --nice -3 --limits, options after COMMAND stay COMMAND's" -- run --rr 5 --nice -3 --limits sh -c 'echo "$1"' sh --json
expect out "--json" "COMMAND got its own option"
run 1 "run refused: the command does not start" -- run --fifo 95 -- touch "$work/ran2"
if [ -e "$work/ran2" ]; then fail "run started its command although refused"; else ok "not started"; fi
expect err "Not starting touch." "it says so"
run 127 "run of a command that does not exist" -- run -- "$work/no-such-command"
