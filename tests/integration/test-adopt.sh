#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Restart adoption decides as a reload does. realtimed is stopped with four
# grants in its state file; meanwhile the policy lowers [Group audio] to
# RealtimePriority=10, and two of the threads lower themselves. At the next
# start:
#   - fifo 50, which the new policy no longer allows, is demoted (back to
#     SCHED_OTHER), with a journal line; its Demoted(..., "policy") goes to
#     no connection, as which one asked for an adopted grant is not known
#     (only SubscribeDemoted's callers would get it, and there are none yet);
#   - fifo 5 is adopted as it is;
#   - a thread that lowered itself to fifo 8 is adopted as fifo 8, not
#     forgotten while it runs realtime;
#   - a thread that lowered itself to fifo 30 (still above 10) is demoted.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_require_cmd chrt dbus-monitor
integ_setup
integ_start_daemon

holder_start rtaudio 4 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
T3=$(holder_tid 3)
T4=$(holder_tid 4)
for tp in "$T1 50" "$T2 5" "$T3 50" "$T4 50"; do
	set -- $tp
	out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:$1 string:fifo uint32:$2)
	expect_success "fifo $2 on thread $1" "$out"
done

integ_stop_daemon TERM
expect_sched "the stop leaves thread $T1 as granted" "$T1" "fifo 50"
# while realtimed is away, two threads lower themselves (root stands in)
chrt -R -f -p 8 "$T3"
chrt -R -f -p 30 "$T4"
printf '[Group audio]\nRealtimePriority=10\n' >>"$WORK/admin.conf"

dbus-monitor --system "type='signal',interface='$NATIVE_IFACE',member='Demoted'" >"$WORK/monitor.out" 2>&1 &
integ_track $!
sleep 0.5
integ_start_daemon
# the verdicts wait for the users' lookups (realtimed(8), SUPERVISION),
# which may end after realtimed is on the bus: wait for their journal lines
wait_for 10 grep -q "Demoted thread $T1 " "$WORK/realtimed.log"
wait_for 10 grep -q "Demoted thread $T4 " "$WORK/realtimed.log"

expect_sched "fifo 50, no longer allowed, was demoted at start" "$T1" "other 0"
[ -z "$(grant_of "$T1")" ] && ok "thread $T1 is not listed" || fail "thread $T1 is listed: $(grant_of "$T1")"
expect_sched "fifo 5, still allowed, runs as before" "$T2" "fifo 5"
[ "$(grant_of "$T2")" = "fifo 5" ] && ok "thread $T2 was adopted as fifo 5" ||
	fail "thread $T2: ListGrants has '$(grant_of "$T2")'"
expect_sched "the thread that lowered itself to fifo 8 still runs it" "$T3" "fifo 8"
[ "$(grant_of "$T3")" = "fifo 8" ] && ok "and was adopted as fifo 8, not left unsupervised" ||
	fail "thread $T3 runs fifo 8 but ListGrants has '$(grant_of "$T3")'"
expect_sched "the thread that lowered itself to fifo 30 (above 10) was demoted" "$T4" "other 0"
[ -z "$(grant_of "$T4")" ] && ok "thread $T4 is not listed" || fail "thread $T4 is listed: $(grant_of "$T4")"

for t in "$T1" "$T4" "$T2"; do
	grep -q "uint64 $t\$" "$WORK/monitor.out" &&
		fail "a Demoted signal names thread $t, whose asker is not known: $(cat "$WORK/monitor.out")" ||
		ok "no Demoted signal names thread $t: no connection is known to have asked for it"
done
line=$(grep "Demoted thread $T1 " "$WORK/realtimed.log")
if echo "$line" | grep -q "the policy loaded at start no longer allows it.*priority 50 exceeds the limit 10"; then
	ok "the journal says why: $(echo "$line" | cut -c1-160)"
else
	fail "no journal line for thread $T1: $(grep -i demot "$WORK/realtimed.log" | tail -n 3)"
fi

holder_stop
finish
