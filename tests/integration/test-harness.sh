#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The integration harness itself: inside the private mount namespace the test
# users exist with the right groups, the private system bus runs, and the real
# polkitd on it answers with our actions and the test rules. Needs no daemon,
# so a broken harness is told apart from a broken daemon.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_cmd pkcheck
integ_setup

[ "$(id -u rtaudio)" = 4101 ] && id -Gn rtaudio | grep -qw audio &&
	ok "rtaudio is uid 4101 in group audio" || fail "rtaudio: $(id rtaudio 2>&1)"
[ "$(id -u rtplain)" = 4102 ] && ! id -Gn rtplain | grep -qw audio &&
	ok "rtplain is uid 4102, not in audio" || fail "rtplain: $(id rtplain 2>&1)"
[ "$(id -u rtalice)" = 4103 ] && id -Gn rtalice | grep -qw audio &&
	ok "rtalice is uid 4103 in group audio" || fail "rtalice: $(id rtalice 2>&1)"
[ "$(run_as rtaudio id -u)" = 4101 ] && run_as rtaudio id -G | grep -qw 29 &&
	ok "run_as rtaudio runs with uid 4101 and gid 29" || fail "run_as rtaudio: $(run_as rtaudio id 2>&1)"

name_has_owner org.freedesktop.PolicyKit1 && ok "polkitd owns org.freedesktop.PolicyKit1 on the private bus" ||
	fail "polkitd is not on the private bus"
out=$(pkaction --action-id org.realtimed.acquire-realtime --verbose 2>&1)
echo "$out" | grep -q 'implicit active: *yes' && ok "polkitd knows org.realtimed.acquire-realtime" ||
	fail "pkaction: $out"

pk()
{
	run_as "$1" sh -c "pkcheck --action-id $2 --process \$\$ >/dev/null 2>&1"
}
pk rtplain org.realtimed.acquire-realtime && ok "polkit: test rule says yes to rtplain for acquire-realtime" ||
	fail "polkit said no to rtplain for acquire-realtime"
pk rtplain org.realtimed.acquire-high-priority && fail "polkit said yes to rtplain for acquire-high-priority" ||
	ok "polkit: test rule says no to rtplain for acquire-high-priority"
pk rtaudio org.realtimed.acquire-realtime && fail "polkit said yes to rtaudio outside any session" ||
	ok "polkit: no session, no rule: rtaudio is refused acquire-realtime (allow_any no)"

finish
