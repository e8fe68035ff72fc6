# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # its variables are for the scripts that source it
#
# A real polkitd on the private bus, with the project's actions and a test's
# rules bind-mounted over /usr/share/polkit-1/{actions,rules.d} and
# /etc/polkit-1/rules.d.

POLKITD=${POLKITD:-/usr/lib/polkit-1/polkitd}

# The default test rules: rtplain (whom no policy rule covers) is allowed
# realtime but not high priority, everyone else is left to the action defaults
# (no session here, so allow_any: no). Tests may replace $WORK/polkit-rules/.
integ_polkit_rules()
{
	cat >"$WORK/polkit-rules/50-realtimed-test.rules" <<-'EOF'
	polkit.addRule(function(action, subject) {
		if (subject.user == "rtplain") {
			if (action.id == "org.realtimed.acquire-realtime" ||
			    action.id == "org.freedesktop.RealtimeKit1.acquire-real-time")
				return polkit.Result.YES;
			if (action.id == "org.realtimed.acquire-high-priority" ||
			    action.id == "org.freedesktop.RealtimeKit1.acquire-high-priority" ||
			    action.id == "org.realtimed.acquire-limits")
				return polkit.Result.NO;
		}
		// rtkit-daemon (run side by side in some tests) asks polkit for everyone
		if (action.id.indexOf("org.freedesktop.RealtimeKit1.") == 0 && subject.isInGroup("audio"))
			return polkit.Result.YES;
		if (action.id == "org.realtimed.manage" && subject.user == "rtalice")
			return polkit.Result.YES;
		if (action.id == "org.realtimed.manage" && subject.user == "rtaudio")
			return polkit.Result.NO;
		return polkit.Result.NOT_HANDLED;
	});
	EOF
}

integ_start_polkitd()
{
	mkdir -p "$WORK/polkit-actions" "$WORK/polkit-rules" "$WORK/polkit-empty"
	cp "$TOP_SRCDIR/policy/org.realtimed.policy" "$WORK/polkit-actions/"
	# rtkit's action ids, which the compat interface checks
	cp /usr/share/polkit-1/actions/org.freedesktop.RealtimeKit1.policy "$WORK/polkit-actions/" 2>/dev/null
	integ_polkit_rules
	chmod -R a+rX "$WORK/polkit-actions" "$WORK/polkit-rules" "$WORK/polkit-empty"
	mount --bind "$WORK/polkit-actions" /usr/share/polkit-1/actions || skip "cannot bind-mount polkit actions"
	mount --bind "$WORK/polkit-empty" /usr/share/polkit-1/rules.d 2>/dev/null
	mkdir -p /etc/polkit-1/rules.d 2>/dev/null
	mount --bind "$WORK/polkit-rules" /etc/polkit-1/rules.d || skip "cannot bind-mount polkit rules"
	"$POLKITD" --no-debug >"$WORK/polkitd.log" 2>&1 &
	integ_track $!
	POLKITD_PID=$!
	wait_for 15 name_has_owner org.freedesktop.PolicyKit1 ||
		{ note "$(cat "$WORK/polkitd.log")"; skip "polkitd did not come up on the private bus"; }
}

