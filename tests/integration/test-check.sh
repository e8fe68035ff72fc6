#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtimectl check on a real machine, as root and as the test users, with
# realtimed running and stopped on the private bus: the values agree with
# /proc (swappiness, sched_rt_runtime_us, the kernel command line, the
# caller's getrlimit()), audio membership shows (rtaudio in audio: ok;
# rtplain: warn with the usermod hint; rtaudio with its groups dropped:
# warn, log in again), the daemon check follows realtimed, the exit status
# follows the fails, --json parses even for a user whose home holds control
# bytes and invalid UTF-8, and nothing is changed. In the project's VM
# (tests/vm/guest/check*.sh) it also switches RT throttling off and back,
# which the host must not, and says which way threadirqs went.
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

integ_require_daemon
integ_require_cmd python3 prlimit
integ_enter "$@"
integ_setup

# a python3 the test users can run too (not one under root's home)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
in_vm=0
[ "$(hostname)" = rt-vm ] && grep -q ' /rt-run ' /proc/mounts && in_vm=1
POLICY_ARGS="--vendor-conf=$VENDOR_CONF --admin-conf=$WORK/admin.conf --vendor-conf-dir=$WORK/vendor.d --admin-conf-dir=$WORK/conf.d"

# check_json OUT [USER [ARGS...]]: realtimectl check --json as USER (root
# when empty) into OUT; $rc is its exit status.
check_json()
{
	_out=$1 _who=$2
	shift 2
	# shellcheck disable=SC2086
	if [ -n "$_who" ]; then
		run_as "$_who" "$REALTIMECTL" check --json $POLICY_ARGS "$@" >"$_out" 2>"$_out.err"
	else
		"$REALTIMECTL" check --json $POLICY_ARGS "$@" >"$_out" 2>"$_out.err"
	fi
	rc=$?
	to_tsv "$_out"
}

# to_tsv OUT: OUT.tsv gets "id<TAB>key<TAB>value" lines for field(), from
# the one-line JSON array realtimectl prints, in awk: a python3 per run
# costs seconds in the VM. (The JSON is validated by python3 below, once.)
to_tsv()
{
	awk '
	{
		n = split(substr($0, 3, length($0) - 4), objs, /\},\{/)
		for (i = 1; i <= n; i++) {
			o = objs[i]
			id = ""
			while (match(o, /"[a-z]+":("([^"\\]|\\.)*"|null)/)) {
				kv = substr(o, RSTART, RLENGTH)
				o = substr(o, RSTART + RLENGTH)
				k = kv
				sub(/":.*/, "", k)
				sub(/^"/, "", k)
				v = kv
				sub(/^"[a-z]+":/, "", v)
				if (v == "null")
					v = ""
				else {
					v = substr(v, 2, length(v) - 2)
					gsub(/\\"/, "\"", v)
					gsub(/\\\\/, "\\", v)
				}
				if (k == "id")
					id = v
				print id "\t" k "\t" v
			}
		}
	}' "$1" >"$1.tsv"
}

# field OUT ID KEY: the KEY of check ID in OUT's JSON.
field()
{
	awk -F '\t' -v id="$2" -v k="$3" '$1 == id && $2 == k { print $3 }' "$1.tsv"
}

# expect OUT ID STATUS [VALUE]: check ID's status (and value) in OUT.
expect()
{
	_s=$(field "$1" "$2" status) _v=$(field "$1" "$2" value)
	if [ "$_s" != "$3" ]; then
		fail "$2: status $_s, want $3 ($(field "$1" "$2" summary); value '$_v')"
	elif [ $# -ge 4 ] && [ "$_v" != "$4" ]; then
		fail "$2: value '$_v', want '$4'"
	else
		ok "$2 is $3${4:+ ($4)}"
	fi
}

# agree OUT WHO: the values that /proc and getrlimit() give WHO.
agree()
{
	_o=$1 _who=$2
	expect "$_o" swappiness "$(field "$_o" swappiness status)" "$(cat /proc/sys/vm/swappiness)"
	expect "$_o" rt-throttling "$(field "$_o" rt-throttling status)" \
		"$(cat /proc/sys/kernel/sched_rt_runtime_us)/$(cat /proc/sys/kernel/sched_rt_period_us)"
	if grep -qw threadirqs /proc/cmdline || [ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ]; then
		expect "$_o" threadirqs ok
	else
		expect "$_o" threadirqs warn "not threaded"
	fi
	# whether Debian's -rt kernel is installable, as apt itself says
	_v=$(field "$_o" kernel-preempt value)
	[ -n "${RT_CAND+set}" ] ||
		RT_CAND=$(LC_ALL=C apt-cache policy linux-image-rt-amd64 2>/dev/null | sed -n 's/^  Candidate: //p')
	_cand=$RT_CAND
	if grep -q PREEMPT_RT /proc/version || ! [ -e /etc/debian_version ]; then
		ok "$_who: kernel-preempt needs no -rt kernel here ($_v)"
	elif case "$_v" in *"apt-cache policy gave no answer within"*) true ;; *) false ;; esac; then
		# a slow machine (the vm tier under TCG) without apt's binary cache
		ok "$_who: kernel-preempt: apt-cache was too slow here, and the value says so ($_v)"
	elif dpkg-query -W -f='${Status}' linux-image-rt-amd64 2>/dev/null | grep -q 'ok installed'; then
		case "$_v" in
		*"linux-image-rt-amd64 "*" installed") ok "$_who: kernel-preempt: the -rt kernel is installed" ;;
		*) fail "$_who: kernel-preempt is '$_v', but linux-image-rt-amd64 is installed" ;;
		esac
	elif [ -n "$_cand" ] && [ "$_cand" != "(none)" ]; then
		case "$_v" in
		*"linux-image-rt-amd64 $_cand installable") ok "$_who: kernel-preempt: installable $_cand, as apt-cache says" ;;
		*) fail "$_who: kernel-preempt is '$_v', apt-cache policy says candidate $_cand" ;;
		esac
	else
		case "$_v" in
		*"not in the apt lists" | *"no apt lists") ok "$_who: kernel-preempt: apt has no -rt kernel ($_v)" ;;
		*) fail "$_who: kernel-preempt is '$_v', apt-cache policy has no candidate" ;;
		esac
	fi
	# the soft/hard limits realtimectl's own process had, from prlimit(2)
	# (getrlimit()) in a process started the same way
	_pl="prlimit --rtprio --memlock --rttime -o RESOURCE,SOFT,HARD --noheadings --raw"
	if [ "$_who" = root ]; then
		$_pl
	else
		run_as "$_who" $_pl
	fi >"$WORK/getrlimit"
	# prlimit's "unlimited" is written "infinity", realtime.conf(5)'s word
	for _pair in RTPRIO:rlimit-rtprio MEMLOCK:rlimit-memlock RTTIME:rlimit-rttime; do
		_want=$(awk -v n="${_pair%%:*}" 'function v(x) { return x == "unlimited" ? "infinity" : x }
			$1 == n { print v($2) "/" v($3) }' "$WORK/getrlimit")
		_v=$(field "$_o" "${_pair#*:}" value)
		case "$_v" in
		"$_want" | "$_want "*) ok "$_who: ${_pair#*:} starts with getrlimit()'s $_want" ;;
		*) fail "$_who: ${_pair#*:} is '$_v', getrlimit() says '$_want'" ;;
		esac
	done
	# the exit status follows the fails
	if grep -q '"status":"fail"' "$_o"; then _want=1; else _want=0; fi
	[ "$rc" = "$_want" ] && ok "$_who: exit status $rc matches the fails" ||
		fail "$_who: exit status $rc, want $_want: $(cat "$_o.err")"
}

snapshot()
{
	cat /proc/sys/vm/swappiness /proc/sys/kernel/sched_rt_runtime_us /proc/cmdline
	ls -l --time-style=+%s "$VENDOR_CONF" "$WORK/admin.conf"
}
snapshot >"$WORK/before"

note "realtimed stopped"
check_json "$WORK/root-stopped.json" ""
n=$("$PY" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$WORK/root-stopped.json")
[ "$n" = 26 ] && ok "--json parses: 26 checks" || fail "$n checks, want 26: $(head -c 300 "$WORK/root-stopped.json")"
n=$(awk -F '\t' '$2 == "id"' "$WORK/root-stopped.json.tsv" | wc -l)
[ "$n" = 26 ] || fail "to_tsv read $n checks, want 26"
expect "$WORK/root-stopped.json" shield skip realtimed=not-running
expect "$WORK/root-stopped.json" daemon warn
grep -q 'systemctl enable --now realtimed' "$WORK/root-stopped.json" && ok "the daemon hint says how to start it" ||
	fail "no start hint"
expect "$WORK/root-stopped.json" policy ok
agree "$WORK/root-stopped.json" root

integ_start_daemon
note "realtimed running (pid $DAEMON_PID)"
check_json "$WORK/root.json" ""
expect "$WORK/root.json" daemon ok
expect "$WORK/root.json" shield info state=unset
case "$(field "$WORK/root.json" daemon value)" in
"pid $DAEMON_PID;"*) ok "the daemon check names realtimed's pid" ;;
*) fail "daemon value: $(field "$WORK/root.json" daemon value)" ;;
esac
agree "$WORK/root.json" root
"$REALTIMECTL" check $POLICY_ARGS >"$WORK/root.txt" 2>&1
grep -Eq '^[0-9]+ checks: [0-9]+ ok, [0-9]+ info, [0-9]+ skipped, [0-9]+ warnings, [0-9]+ failed\.$' "$WORK/root.txt" &&
	ok "the text output ends with the summary line" || fail "no summary line: $(tail -n 3 "$WORK/root.txt")"

note "rtaudio, in audio, with its groups"
check_json "$WORK/audio.json" rtaudio
expect "$WORK/audio.json" audio-group ok "nss=member session=member"
expect "$WORK/audio.json" daemon ok
case "$(field "$WORK/audio.json" daemon value)" in
*"MaxRealtimePriority 95 for you"*) ok "realtimed tells rtaudio its 95" ;;
*) fail "daemon value for rtaudio: $(field "$WORK/audio.json" daemon value)" ;;
esac
agree "$WORK/audio.json" rtaudio

note "rtaudio, its groups dropped (a session from before usermod)"
setpriv --reuid=rtaudio --regid=rtaudio --clear-groups -- "$REALTIMECTL" check --json $POLICY_ARGS \
	>"$WORK/stale.json" 2>/dev/null
to_tsv "$WORK/stale.json"
expect "$WORK/stale.json" audio-group warn "nss=member session=no"
grep -q 'log out and in again' "$WORK/stale.json" && ok "the hint says to log in again" || fail "no re-login hint"

note "rtplain, in no group of the policy"
check_json "$WORK/plain.json" rtplain
expect "$WORK/plain.json" audio-group warn "nss=no session=no"
grep -q 'usermod -aG audio rtplain' "$WORK/plain.json" && ok "the hint names usermod" || fail "no usermod hint"
expect "$WORK/plain.json" policy warn
agree "$WORK/plain.json" rtplain

note "root checks rtaudio's session (--user)"
as_bg rtaudio sleep 30
SLEEPER=$!
integ_track $SLEEPER
check_json "$WORK/user.json" "" --user rtaudio
expect "$WORK/user.json" audio-group ok "nss=member session=member"
case "$(field "$WORK/user.json" rlimit-rtprio value)" in
"$(awk '/^Max realtime priority/ { print $4 "/" $5 }' "/proc/$SLEEPER/limits") "*) ok "--user reads the session's limits" ;;
*) fail "--user rtprio: $(field "$WORK/user.json" rlimit-rtprio value)" ;;
esac
kill $SLEEPER 2>/dev/null

note "hostile bytes in a home directory, through NSS"
printf 'rthostile:x:4199:4199:x:/tmp/\001q"\\\377z:/bin/sh\n' >>"$WORK/etc/passwd"
check_json "$WORK/hostile.json" "" --user rthostile
"$PY" -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
s = [c for c in d if c["id"] == "filesystem"][0]["summary"]
assert "/tmp/\x01q\"\\\ufffdz" in s, s' "$WORK/hostile.json" &&
	ok "control bytes, quotes and invalid UTF-8 are escaped, and the JSON parses" ||
	fail "hostile JSON: $(grep -a filesystem "$WORK/hostile.json" | head -c 400)"

integ_stop_daemon
check_json "$WORK/again.json" ""
expect "$WORK/again.json" daemon warn

if [ "$in_vm" = 1 ]; then
	note "VM: RT throttling switched off and back"
	old=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	echo -1 >/proc/sys/kernel/sched_rt_runtime_us
	check_json "$WORK/nothrottle.json" ""
	echo "$old" >/proc/sys/kernel/sched_rt_runtime_us
	expect "$WORK/nothrottle.json" rt-throttling warn "-1/$(cat /proc/sys/kernel/sched_rt_period_us)"
	check_json "$WORK/throttle.json" ""
	expect "$WORK/throttle.json" rt-throttling ok "$old/$(cat /proc/sys/kernel/sched_rt_period_us)"
	took_path vm-rt-throttling
	if grep -qw threadirqs /proc/cmdline; then
		note "VM: threadirqs on"
		took_path vm-threadirqs-on
		n=$(field "$WORK/throttle.json" irq-priorities status)
		[ "$n" != skip ] && ok "irq-priorities sees IRQ threads ($n)" || fail "irq-priorities skipped with threadirqs"
	else
		note "VM: threadirqs off"
		took_path vm-threadirqs-off
		expect "$WORK/throttle.json" irq-priorities skip "not threaded"
	fi
fi

snapshot >"$WORK/after"
cmp -s "$WORK/before" "$WORK/after" && ok "nothing changed (sysctls, cmdline, policy files)" ||
	fail "something changed: $(diff "$WORK/before" "$WORK/after")"
finish
