#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtimectl against the real realtimed (suite integration): a private
# bus, real polkitd and realtimed with the shipped policy, through the
# integration harness (tests/integration/lib.sh: root, private mount
# namespace, test users rtaudio in audio and rtplain). Checks what the
# kernel and the daemon then report: grant/reset/--nice change the thread,
# status lists the grant, explain from the daemon agrees with explain
# --offline key by key, refusals have their exit statuses, run execs the
# command in the granted process, reload needs an administrator, irq works.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
integ_enter "$@"
integ_require_daemon
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built ($REALTIMECTL)"
integ_setup
integ_start_daemon

C=$REALTIMECTL
POLICY=$VENDOR_CONF

# ctl USER WANT DESC ARGS...: realtimectl ARGS as USER; checks the exit
# status; $out and $err hold what it printed.
ctl()
{
	_user=$1 _want=$2 _desc=$3
	shift 3
	run_as "$_user" "$C" "$@" >"$WORK/out" 2>"$WORK/err"
	_rc=$?
	out=$(cat "$WORK/out")
	err=$(cat "$WORK/err")
	if [ "$_rc" = "$_want" ]; then
		ok "$_desc (exit $_rc)"
		return 0
	fi
	fail "$_desc: exit $_rc, want $_want: $(head -n 3 "$WORK/err")"
	return 1
}

contains()
{
	if printf '%s\n' "$2" | grep -qE -e "$3"; then
		ok "$1"
	else
		fail "$1: /$3/ not in: $(printf '%s' "$2" | head -n 5)"
	fi
}

holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)

ctl rtaudio 0 "rtaudio: grant --fifo 70 to its own thread" grant --fifo 70 "$HOLDER_PID/$T1"
expect_sched "the kernel reports it" "$T1" "fifo 70"
ctl rtaudio 0 "rtaudio: grant --nice -10 to another thread" grant --nice -10 "$HOLDER_PID/$T2"
if [ "$(nice_of "$T2")" = -10 ]; then ok "thread $T2 has nice -10"; else fail "thread $T2 has nice $(nice_of "$T2")"; fi

ctl rtaudio 1 "rtaudio: priority 99 is above audio's 95" grant --fifo 99 "$HOLDER_PID/$T1"
contains "the refusal names the limit and its file:line" "$err" "95.*realtime\.conf:[0-9]+"
expect_sched "the refused grant changed nothing" "$T1" "fifo 70"
ctl rtplain 1 "rtplain: another user's process is refused" grant --rr 5 "$HOLDER_PID/$T1"
ctl rtaudio 4 "a tid that is not a thread of the pid" grant --rr 5 "$HOLDER_PID/1"
ctl rtaudio 1 "a pid that does not exist: refused as another user's is" reset 4000000

ctl rtaudio 0 "status" status
contains "status lists the fifo grant" "$out" "^$HOLDER_PID +$T1 +rt-client +rtaudio +$UID_AUDIO +fifo +70 "
contains "status lists the nice grant" "$out" "^$HOLDER_PID +$T2 +rt-client +rtaudio +$UID_AUDIO +nice +-10 "
ctl rtaudio 0 "status --json" status --json
if printf '%s' "$out" | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert any(r["tid"] == int(sys.argv[1]) and r["policy"] == "fifo" and r["priority"] == 70 and r["user"] == "rtaudio" for r in rows), rows
' "$T1" 2>"$WORK/py"; then ok "status --json has the grant, typed"; else fail "status --json: $(cat "$WORK/py")"; fi

# The daemon's answer and the offline evaluation of the same files agree,
# key, value and file:line (--offline adds the section, which is dropped).
for u in rtaudio rtplain; do
	ctl "$u" 0 "explain $u as $u (realtimed)" explain --no-legend "$u"
	online=$(printf '%s\n' "$out" | tr -s ' ')
	ctl rtaudio 0 "explain --offline $u" explain --offline --no-legend --vendor-conf="$POLICY" \
		--admin-conf="$WORK/admin.conf" --vendor-conf-dir="$WORK/vendor.d" --admin-conf-dir="$WORK/conf.d" "$u"
	offline=$(printf '%s\n' "$out" | sed 's/ \[[^]]*\]$//' | tr -s ' ')
	if [ "$online" = "$offline" ] && [ -n "$online" ]; then
		ok "realtimed and --offline agree on every key, value and source for $u"
	else
		fail "explain $u: realtimed says '$online', --offline says '$offline'"
	fi
done
ctl rtaudio 0 "explain rtaudio (values)" explain --no-legend rtaudio
contains "rtaudio: RealtimePriority 95 from the shipped policy" "$out" "^RealtimePriority +95 +$POLICY:[0-9]+$"

# A user in 300 groups: the header line names them all, with no cap on the count.
printf 'rtmany:x:4107:4107::/nonexistent:/bin/sh\n' >>"$WORK/etc/passwd"
seq 1 300 | awk '{ printf "rtg%d:x:%d:rtmany\n", $1, 47000 + $1 }' >>"$WORK/etc/group"
ctl rtaudio 0 "explain --offline rtmany (in 300 groups)" explain --offline --vendor-conf="$POLICY" rtmany
n=$(printf '%s\n' "$out" | grep '^Policy for rtmany' | tr ' ' '\n' | grep -c '^rtg')
if [ "$n" = 300 ]; then ok "its header line names all 300 groups"; else fail "its header line names $n of 300 groups: $(printf '%s\n' "$out" | head -n 1 | cut -c1-200)"; fi

ctl rtaudio 0 "reset PID/TID" reset "$HOLDER_PID/$T1"
expect_sched "the thread is back to other 0" "$T1" "other 0"
ctl rtaudio 0 "reset PID (the rest of the process)" reset "$HOLDER_PID"
if [ "$(nice_of "$T2")" = 0 ]; then ok "thread $T2 is back to nice 0"; else fail "thread $T2 has nice $(nice_of "$T2")"; fi
ctl rtaudio 0 "status after the resets" status --no-legend
if [ -z "$out" ]; then ok "no grants left"; else fail "grants left: $out"; fi
holder_stop

# run: the command runs in the very process that got the grant.
ctl rtaudio 0 "run --fifo 60 -- COMMAND" run --fifo 60 -- sh -c 'sed "s/^.*) //" /proc/$$/stat | awk "{ print \$39 % 1073741824, \$38 }"'
if [ "$out" = "1 60" ]; then ok "COMMAND runs SCHED_FIFO 60"; else fail "COMMAND runs '$out', want '1 60'"; fi
ctl rtplain 1 "rtplain: run --fifo 60 is refused by policy" run --fifo 60 -- touch "$WORK/tmp/ran"
contains "it does not start the command" "$err" "Not starting touch"
if [ -e "$WORK/tmp/ran" ]; then fail "the refused command ran"; else ok "the command did not run"; fi

ctl root 0 "reload as root" reload
ctl rtaudio 1 "reload as rtaudio needs an administrator (no agent here)" reload
ctl rtaudio 0 "irq through realtimed" irq
contains "irq says where the list came from" "$out$err" "from realtimed|No IRQ threads"

finish
