#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Runs the built realtimectl as a user would: policy check on the shipped
# policy and on broken files (file:line messages, exit statuses), explain
# --offline with the file:line of every value for a user out of and in a
# privileged group (root, and a copy of the shipped policy whose audio
# section is [Group #0]), drop-in overrides, usage errors, an unreachable
# daemon (no bus; a private bus without realtimed) and, when built, the
# daemon-backed commands against mock-realtimed on a private bus.
#
#   test-ctl-cli.sh REALTIMECTL SRCDIR [MOCKD]
#
# Needs no privileges; everything lives in a mktemp directory.
set -u

ctl=$1
src=$2
mockd=${3:-}
# Policy files must be root's or ours and writable by no one else: work on a
# copy of the shipped policy, whoever owns the source tree and whatever the
# caller's umask.
umask 022
work=$(mktemp -d "${TMPDIR:-/tmp}/test-ctl-cli.XXXXXX") || { echo "mktemp failed"; exit 1; }
chmod 755 "$work"
policy=$work/realtime.conf
bus_pid=
mock_pid=
cleanup() {
	[ -n "$mock_pid" ] && kill "$mock_pid" 2>/dev/null
	[ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ok, fail, finish: the project's checks, reported as TAP
# shellcheck source=tests/lib/tap.sh
. "$src/tests/lib/tap.sh"

# run EXPECTED_STATUS DESCRIPTION -- ARGS...: runs realtimectl, keeps
# stdout in $out and stderr in $err, checks the exit status.
run() {
	local want=$1 what=$2
	shift 3
	"$ctl" "$@" >"$work/out" 2>"$work/err"
	status=$?
	out=$(cat "$work/out")
	err=$(cat "$work/err")
	if [ "$status" != "$want" ]; then
		fail "$what: exit status $status, want $want (realtimectl $*)"
		sed 's/^/    stdout: /' "$work/out"
		sed 's/^/    stderr: /' "$work/err"
		return 1
	fi
	ok "$what (exit $status)"
	return 0
}

# expect HAYSTACK_NAME NEEDLE DESCRIPTION: fixed-string match in $out or $err.
expect() {
	local where=$1 needle=$2 what=$3 text
	if [ "$where" = out ]; then text=$out; else text=$err; fi
	if grep -qF -- "$needle" <<<"$text"; then
		ok "$what"
	else
		fail "$what: '$needle' not in std$where:"
		sed 's/^/    /' <<<"$text"
	fi
}

# line_of FILE SECTION KEY: the line number of KEY= inside [SECTION].
line_of() {
	awk -v sec="[$2]" -v key="$3" '
		/^\[/ { insec = ($0 == sec) }
		insec && index($0, key "=") == 1 { print NR; exit }' "$1"
}

json_ok() {
	if ! command -v python3 >/dev/null; then
		ok "$1 (python3 missing, JSON not validated)"
	elif python3 -c 'import json, sys; json.load(sys.stdin)' <<<"$out" 2>/dev/null; then
		ok "$1"
	else
		fail "$1: not valid JSON: $out"
	fi
}

[ -x "$ctl" ] || { echo "realtimectl not built at $ctl"; exit 1; }
cp "$src/policy/realtime.conf" "$policy" || { echo "no shipped policy in $src/policy"; exit 1; }

echo "# policy check"
run 0 "shipped policy passes" -- policy check "$policy"
expect out "$policy: ok" "it says the shipped policy was read"

cat >"$work/typo.conf" <<'CONF'
# a typo on line 3
[Default]
RealtimePriorty=50
CONF
run 1 "a typo'd key is rejected" -- policy check "$policy" "$work/typo.conf"
expect err "$work/typo.conf:3: " "the error names file:line"
expect err "RealtimePriorty" "the error names the bad key"
expect out "$policy: ok" "the good file is still reported read"

printf '[Default]\nRealtimePriority=20\n[Group audio\n' >"$work/syntax.conf"
run 1 "a syntax error is rejected" -- policy check "$work/syntax.conf"
expect err "$work/syntax.conf:3: " "the syntax error names line 3"

printf '[Default]\nRealtimePriority=150\n' >"$work/range.conf"
run 1 "an out-of-range value is rejected" -- policy check "$work/range.conf"
expect err "$work/range.conf:2: " "the range error names line 2"

run 1 "a missing file named on the command line is an error" -- policy check "$work/missing.conf"
expect err "$work/missing.conf" "the error names the missing file"

run 1 "--json reports errors as JSON" -- --json policy check "$policy" "$work/typo.conf"
json_ok "policy check --json output parses"
expect out "\"line\":3" "the JSON carries the line"

# Trust: a file the group or others can write is rejected whole, whoever
# runs the check, naming the file and the command that fixes it.
printf '[Default]\nRealtimePriority=20\n' >"$work/shared.conf"
chmod 666 "$work/shared.conf"
run 1 "a file others can write is rejected" -- policy check "$policy" "$work/shared.conf"
expect err "$work/shared.conf: " "the error names the file"
expect err "writable by group and others (mode 0666)" "and why"
expect err "chmod go-w $work/shared.conf" "the error gives the fix"
expect out "$policy: ok" "the other file is still read"
run 1 "--json: the rejection is among the errors" -- --json policy check "$work/shared.conf"
json_ok "policy check --json output with a rejected file parses"
expect out '"warnings":[]' "no warnings beside the error"
rm "$work/shared.conf"
# Another user's file: rejected (root can make one).
if [ "$(id -u)" = 0 ]; then
	printf '[Default]\nRealtimePriority=20\n' >"$work/theirs.conf"
	chown 4242:4242 "$work/theirs.conf"
	run 1 "another user's file is rejected" -- policy check "$work/theirs.conf"
	expect err "$work/theirs.conf: owned by uid 4242, not root" "the error names the owner"
	expect err "chown root:root $work/theirs.conf" "the error gives the fix"
	rm "$work/theirs.conf"
fi
# A user's own draft: read, with a warning that realtimed would not, exit 6
# (warnings only).
# As root, that user is nobody.
printf '[Default]\nRealtimePriority=20\n' >"$work/draft.conf"
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chown 65534:65534 "$work/draft.conf"
	as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
if [ "$(id -u)" != 0 ] || [ ${#as_user[@]} -gt 0 ]; then
	"${as_user[@]}" "$ctl" policy check "$work/draft.conf" >"$work/out" 2>"$work/err"
	status=$?
	out=$(cat "$work/out")
	err=$(cat "$work/err")
	if [ $status = 6 ]; then
		ok "a user's own file passes their check, with a warning (exit 6)"
	else
		fail "a user's own file: exit $status: $err"
	fi
	expect out "$work/draft.conf: ok" "it is read"
	expect err "$work/draft.conf: warning: owned by uid $("${as_user[@]}" id -u), not root" "with a warning naming the owner"
	expect err "chown root:root $work/draft.conf" "and the fix"
fi
rm "$work/draft.conf"

# The installed set (vendor, admin, drop-ins), here pointed at the work dir.
mkdir -p "$work/vendor.d" "$work/admin.d"
cp "$policy" "$work/vendor.conf"
printf '[Default]\nRealtimePriority=30\n' >"$work/admin.d/10-more.conf"
printf '[Default]\nNicee=-5\n' >"$work/admin.d/20-broken.conf"
paths=(--vendor-conf="$work/vendor.conf" --admin-conf="$work/admin.conf" --vendor-conf-dir="$work/vendor.d" --admin-conf-dir="$work/admin.d")
run 1 "policy check without FILEs reads vendor, admin and drop-ins" -- policy check "${paths[@]}"
expect out "$work/vendor.conf: ok" "the vendor file is read"
expect out "$work/admin.d/10-more.conf: ok" "the good drop-in is read"
expect err "$work/admin.d/20-broken.conf:2: " "the broken drop-in is reported with its line"
rm "$work/admin.d/20-broken.conf"
run 6 "the same set passes once the broken drop-in is gone, with a warning" -- policy check "${paths[@]}"
expect err "$work/admin.d/10-more.conf:2: warning: RealtimePriority= in [Default] overrides $work/vendor.conf:$(line_of "$work/vendor.conf" Default RealtimePriority)" \
	"the override is a warning with both file:lines"
# An admin drop-in that masks a vendor drop-in of the same name.
printf '[Default]\nNice=-10\n' >"$work/vendor.d/10-more.conf"
run 6 "a masking drop-in is a warning" -- policy check "${paths[@]}"
expect err "$work/admin.d/10-more.conf: warning: masks the vendor drop-in $work/vendor.d/10-more.conf" "the mask names the vendor drop-in"
rm "$work/vendor.d/10-more.conf"

echo "# policy check: every error, and the warnings"
# A typo in a section name and a wrong value further down: both reported,
# with their lines, and the file is still rejected whole.
printf '[Default]\nRealtimePriority=20\n[Gruop audio]\nNice=-30\nFoo=1\n[Default]\nMemLock=lots\n' >"$work/multi.conf"
run 1 "a file with three errors is rejected" -- policy check "$work/multi.conf"
expect err "$work/multi.conf:3: unknown section [Gruop audio]" "the bad header (line 3)"
expect err "$work/multi.conf:4: invalid value '-30' for Nice" "the bad value under the bad header (line 4)"
expect err "$work/multi.conf:7: invalid value 'lots' for MemLock" "the bad value further down (line 7)"
if [ "$(grep -c "^$work/multi.conf:" <<<"$err")" = 3 ]; then
	ok "exactly three errors (an unknown key under an unknown header adds none)"
else
	fail "want 3 errors: $err"
fi
run 1 "--json lists every error" -- --json policy check "$work/multi.conf"
json_ok "policy check --json with several errors parses"
expect out '"line":7' "JSON has the last error's line"
# Warnings: a group and a user NSS does not know, a key set twice.
printf '[Group audoi-nonexistent]\nNice=-5\n[User nobody-nonexistent]\nNice=-5\n[Default]\nNice=-5\nNice=-6\n[IRQ]\nsnd*=80\nsnd*=81\n' >"$work/warn.conf"
run 6 "warnings only: exit 6" -- policy check "$work/warn.conf"
expect out "$work/warn.conf: ok" "the file is accepted"
expect err "$work/warn.conf:1: warning: [Group audoi-nonexistent]: no group 'audoi-nonexistent' is known" "an unknown group"
expect err "which may be down now" "the warning says a directory may be down"
expect err "$work/warn.conf:3: warning: [User nobody-nonexistent]: no user 'nobody-nonexistent' is known" "an unknown user"
expect err "$work/warn.conf:7: warning: Nice= set twice in [Default] (first at line 6)" "a key set twice"
expect err "$work/warn.conf:10: warning: snd*= set twice in [IRQ] (first at line 9)" "an IRQ rule set twice"
run 6 "--json: warnings, exit 6" -- --json policy check "$work/warn.conf"
json_ok "policy check --json with warnings parses"
expect out '"errors":[]' "no errors in JSON"
expect out '"line":7,"message":"Nice= set twice' "the warning's line in JSON"
# Errors win over warnings.
run 1 "errors and warnings: exit 1" -- policy check "$work/warn.conf" "$work/multi.conf"
# A file with an error still gets its warnings (issue 24): the error does
# not hide a [Group] NSS does not know, nor a key set twice.
printf '[Group audoi-nonexistent]\nNice=-5\n[Default]\nNice=-5\nNice=-6\nMemLock=lots\n[Daemon]\nUsersMax=5\nUsersMax=6\n' >"$work/both.conf"
run 1 "a file with an error and warnings is rejected" -- policy check "$work/both.conf"
expect err "$work/both.conf:6: invalid value 'lots' for MemLock" "its error"
expect err "$work/both.conf:1: warning: [Group audoi-nonexistent]: no group 'audoi-nonexistent' is known" "its unknown group, despite the error"
expect err "$work/both.conf:5: warning: Nice= set twice in [Default] (first at line 4)" "its key set twice, despite the error"
expect err "$work/both.conf:9: warning: UsersMax= set twice in [Daemon] (first at line 8)" "its [Daemon] key set twice, despite the error"
run 1 "--json: the error and the warnings" -- --json policy check "$work/both.conf"
json_ok "policy check --json with an error and warnings parses"
expect out '"line":5,"message":"Nice= set twice' "the warning of the rejected file in JSON"
rm "$work/multi.conf" "$work/warn.conf" "$work/both.conf"

echo "# explain --offline"
if id -nG root 2>/dev/null | tr ' ' '\n' | grep -qx audio; then
	echo "root is in audio on this machine: the out-of-audio case uses the same expectations anyway"
fi
run 0 "explain --offline root (out of audio: [Default])" -- explain --offline --conf "$policy" root
for kv in RealtimePriority:20 Policies:rr Nice:-15 MemLock:64M RTTime:200ms; do
	key=${kv%%:*} value=${kv#*:}
	line=$(line_of "$policy" Default "$key")
	expect out "$policy:$line [Default]" "$key's source is $policy:$line [Default]"
	if grep -Eq "^$key +$value +$policy:$line " <<<"$out"; then
		ok "$key = $value"
	else
		fail "$key: want value $value from line $line in: $out"
	fi
done
expect out "No [User] or [Group] rule covers this user" "it says no rule covers root"

# "In audio": the shipped policy with its audio section applying to gid 0.
sed 's/^\[Group audio\]$/[Group #0]/' "$policy" >"$work/root-audio.conf"
run 0 "explain --offline root (in the privileged group)" -- explain --offline --conf "$work/root-audio.conf" '#0'
for kv in RealtimePriority:95 "Policies:fifo rr" Nice:-19 MemLock:infinity RTTime:infinity CompatPolicy:fifo; do
	key=${kv%%:*} value=${kv#*:}
	line=$(line_of "$work/root-audio.conf" "Group #0" "$key")
	if grep -Eq "^$key +$value +$work/root-audio.conf:$line \[Group #0\]" <<<"$out"; then
		ok "$key = $value from root-audio.conf:$line [Group #0]"
	else
		fail "$key: want '$value' from line $line [Group #0] in: $out"
	fi
done
line=$(line_of "$work/root-audio.conf" "Group #0" Capabilities)
if grep -Eq "^Capabilities +\"\" +$work/root-audio.conf:$line \[Group #0\]" <<<"$out"; then
	ok "Capabilities set empty shows as \"\" with its line $line"
else
	fail "Capabilities: want '\"\"' from line $line in: $out"
fi
expect out "A [User] or [Group] rule covers this user" "it says a rule covers root"

run 0 "explain --offline --json" -- explain --offline --json --conf "$work/root-audio.conf" root
json_ok "explain --json output parses"
expect out "\"key\":\"RealtimePriority\",\"value\":\"95\",\"source\":\"$work/root-audio.conf:$(line_of "$work/root-audio.conf" "Group #0" RealtimePriority)\",\"section\":\"Group #0\"" "the JSON row of RealtimePriority"

run 0 "an admin drop-in overrides the vendor file, and explain says so" -- explain --offline "${paths[@]}" root
if grep -Eq "^RealtimePriority +30 +$work/admin.d/10-more.conf:2 \[Default\]" <<<"$out"; then
	ok "RealtimePriority 30 from the drop-in's line 2"
else
	fail "drop-in override not shown: $out"
fi

run 0 "explain --offline --no-legend prints only rows" -- explain --offline --no-legend --conf "$policy" root
if [ "$(wc -l <<<"$out")" = 7 ] && ! grep -q '^KEY' <<<"$out"; then ok "7 rows, no header"; else fail "--no-legend: $out"; fi

run 4 "an unknown user is exit 4" -- explain --offline --conf "$policy" no-such-user-realtimectl
expect err "No such user" "it says so"

echo "# usage errors (exit 2)"
run 2 "no command" --
run 2 "unknown command" -- frobnicate
expect err "unknown command 'frobnicate'" "it names the command"
run 2 "policy without subcommand" -- policy
run 2 "an unknown option" -- --frobnicate status
run 2 "grant: a priority out of range" -- grant 100 1
run 2 "grant: a bad target" -- grant 50 0
run 2 "grant: PID/TID garbage" -- grant --fifo 50 12/x
run 2 "grant: --nice out of range" -- grant --nice -21 1
run 2 "reset without a target" -- reset
run 2 "--fifo on status" -- --fifo status
run 2 "--offline on status" -- status --offline
run 2 "--all on grant" -- grant --all 5 1234
run 2 "run without a command" -- run --limits
run 2 "run: a bad priority" -- run --fifo 0 -- true
run 2 "run: --fifo before the verb has no priority" -- --fifo run -- true
run 2 "--conf with the path options" -- explain --offline --conf "$policy" --admin-conf=x root
run 2 "--user on status" -- status --user root
expect err "--user goes with check only" "it says where --user goes"
run 2 "check takes no operands" -- check root
run 2 "--refused on check" -- check --refused
expect err "--refused goes with status only" "it says where --refused goes"
run 2 "status --refused takes no operands" -- status --refused 1234
run 0 "--help" -- --help
expect out "policy check" "help lists policy check"
expect out "status --refused" "help lists status --refused"
run 0 "--version" -- --version
expect out "realtimectl " "version line"

echo "# irq --offline"
run 0 "irq --offline reads /proc" -- irq --offline --conf "$policy"
run 0 "irq --offline --json" -- irq --offline --json --conf "$policy"
json_ok "irq --json output parses"

echo "# no system bus (exit 3)"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/no-such-bus"
# check needs no bus: the daemon check fails (exit 1), the rest runs
run 1 "check without a system bus: the daemon check fails" -- check --conf "$policy"
expect out "fail  daemon" "the daemon line fails"
expect out "checks:" "the summary line"
run 1 "check --json without a system bus" -- --json check --conf "$policy"
json_ok "check --json output parses"
expect out '"id":"daemon","status":"fail"' "the daemon check is a fail in JSON"
run 4 "check --user: an unknown user is exit 4" -- check --user no-such-user-realtimectl
run 3 "status without a system bus" -- status
expect err "system bus" "it says the system bus is missing"
run 3 "explain (online) without a system bus" -- explain root
expect err "realtimectl explain --offline root" "it suggests --offline"
run 3 "run without a system bus does not exec" -- run --limits -- touch "$work/ran"
if [ -e "$work/ran" ]; then fail "run executed its command although the grant failed"; else ok "command not executed"; fi
echo "# run --threads (asks realtimed for nothing itself: no bus needed)"
: >"$work/preload.so"
REALTIME_PRELOAD=$work/preload.so run 0 "run --threads sets LD_PRELOAD" -- \
	run --threads -- sh -c 'echo "$LD_PRELOAD"'
expect out "$work/preload.so" "LD_PRELOAD is \$REALTIME_PRELOAD"
LD_PRELOAD=$work/other.so REALTIME_PRELOAD=$work/preload.so run 0 "run --threads keeps LD_PRELOAD" -- \
	run --threads sh -c 'echo "[$LD_PRELOAD]"'
expect out "[$work/other.so $work/preload.so]" "the preload comes after what was there"
REALTIME_PRELOAD=$work/missing.so run 5 "run --threads without the preload" -- \
	run --threads -- touch "$work/ran-threads"
expect err "Cannot use $work/missing.so" "it names the missing preload"
if [ -e "$work/ran-threads" ]; then fail "run --threads executed its command without the preload"; else ok "command not executed"; fi
REALTIME_PRELOAD="$work/a b.so" run 2 "run --threads: a path LD_PRELOAD cannot take" -- run --threads -- true
run 2 "--threads on status" -- status --threads
run 0 "irq falls back to /proc without a bus" -- irq --conf "$policy"
expect err "Reading the IRQ threads without realtimed instead." "it says it reads them itself"

if ! command -v dbus-daemon >/dev/null; then
	note "dbus-daemon missing: skipping the private-bus checks"
else
	cat >"$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_destination="*"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
CONF
	bus_pid=$(dbus-daemon --config-file="$work/bus.conf" --fork --print-pid) || { echo "dbus-daemon failed to start"; exit 1; }
	export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/bus"
	echo "# a private system bus without realtimed (exit 3)"
	run 3 "status with no realtimed on the bus" -- status
	expect err "realtimed is not running: start it with 'systemctl start realtimed'" "it says how to start realtimed"
	run 3 "grant with no realtimed" -- grant --fifo 50 $$

	if [ -n "$mockd" ] && [ -x "$mockd" ]; then
		echo "# the daemon-backed commands against mock-realtimed"
		"$mockd" "$work/mock.log" &
		mock_pid=$!
		for _ in $(seq 50); do
			"$ctl" status >/dev/null 2>&1 && break
			sleep 0.1
		done
		# shellcheck source=tests/unit/test-ctl-cli-online.sh
		. "$src/tests/unit/test-ctl-cli-online.sh"
	fi
fi

finish
