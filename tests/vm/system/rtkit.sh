#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-rtkit: realtimed's package takes RealtimeKit's name over from
# Debian's rtkit, which stays installed (README.Debian): `apt-get install`
# alone, nothing stopped, enabled or masked by hand. Proved with the
# member's own PipeWire, a `systemd --user` service asking module-rt for 88:
#   - before the install, rtkit-daemon runs and owns the name, as on a
#     desktop: PipeWire gets RR 20;
#   - installed while rtkit-daemon and that PipeWire run: rtkit-daemon is
#     stopped, PipeWire keeps the RR 20 thread rtkit gave it (rtkit does not
#     demote on exit), realtimed owns org.freedesktop.RealtimeKit1, and
#     PipeWire's next request (a restart) gets FIFO 88 from realtimed;
#   - realtimed stopped: PipeWire's RealtimeKit1 call activates realtimed,
#     not rtkit-daemon (rtkit's activation file is diverted), again FIFO 88;
#     rtkit-daemon.service is an alias of realtimed.service;
#   - `apt-get remove realtimed`: rtkit's activation file and unit are back,
#     and rtkit-daemon, activated by PipeWire's call, clamps it to RR 20;
#   - installed again while rtkit-daemon runs, then purged: realtimed again,
#     then rtkit again.

# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/system-lib.sh
. "$TOP_SRCDIR/tests/vm/system-lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is not systemd (run through run-vm.sh --system)"
[ -x /usr/libexec/rtkit-daemon ] || skip "rtkit is not installed: apt-get install rtkit"
[ -f /usr/share/dbus-1/system-services/org.freedesktop.RealtimeKit1.service ] ||
	skip "rtkit's D-Bus activation file is missing"
command -v pipewire >/dev/null || skip "pipewire is not installed: apt-get install pipewire-bin"
[ -f /usr/lib/systemd/user/pipewire.service ] || skip "PipeWire's user unit is missing (pipewire)"
add_test_users
uid=$(id -u rtaudio)

# The member's PipeWire, as its user unit, loading only module-rt as
# pipewire.conf does (the guest has no sound card or session bus).
cp "$TOP_SRCDIR/tests/integration/pipewire-rt88.conf" /etc/pipewire-vm-system.conf
mkdir -p /etc/systemd/user/pipewire.service.d
cat >/etc/systemd/user/pipewire.service.d/vm-system.conf <<'EOF'
[Service]
ExecStart=
ExecStart=/usr/bin/pipewire -c /etc/pipewire-vm-system.conf
EOF
# rtkit-daemon asks polkit (allow_inactive yes, allow_any no), and the
# member's systemd --user here belongs to no logind session of a seat, as a
# desktop login's would: a rule stands in for that session. (realtimed does
# not ask polkit for the member: [Group audio] covers it.)
cat >/etc/polkit-1/rules.d/50-vm-system-rtkit.rules <<'EOF'
polkit.addRule(function(action, subject) {
        if (action.id.indexOf("org.freedesktop.RealtimeKit1.") == 0 && subject.user == "rtaudio")
                return polkit.Result.YES;
});
EOF
systemctl start "user@$uid.service"
check "the member's systemd --user runs" systemctl -q is-active "user@$uid.service"

user_ctl()
{
	as rtaudio env XDG_RUNTIME_DIR="/run/user/$uid" systemctl --user "$@"
}

# pw_thread: "POLICY PRIO" of the member's running PipeWire's realtime data
# thread (1 fifo, 2 rr), or "none"; waits up to 30 s for one.
pw_thread()
{
	pw=$(user_ctl show -p MainPID --value pipewire.service)
	found=none
	n=0
	while [ "$n" -lt 60 ] && [ "$found" = none ]; do
		for t in /proc/"$pw"/task/*; do
			s=$(sched_of "${t##*/}" 2>/dev/null)
			case "$s" in
			"1 "* | "2 "*) found=$s ;;
			esac
		done
		[ "$found" = none ] && sleep 0.5
		n=$((n + 1))
	done
	echo "$found"
}

# pw_data_thread: restarts the member's pipewire.service, a new request, and
# prints pw_thread.
pw_data_thread()
{
	user_ctl restart pipewire.service
	pw_thread
}

# owner_of: the name of the process that owns org.freedesktop.RealtimeKit1,
# or none.
owner_of()
{
	pid=$(busctl status --system org.freedesktop.RealtimeKit1 2>/dev/null | sed -n 's/^PID=//p')
	[ -n "$pid" ] && cat "/proc/$pid/comm" 2>/dev/null || echo none
}

rtkit_file=/usr/share/dbus-1/system-services/org.freedesktop.RealtimeKit1.service

# --- before: the desktop's rtkit-daemon runs and owns the name -----------------
check_eq "rtkit alone: rtkit-daemon clamps the member's PipeWire to RR 20" "2 20" "$(pw_data_thread)"
check_eq "rtkit-daemon owns org.freedesktop.RealtimeKit1" rtkit-daemon "$(owner_of)"

# --- installed while rtkit-daemon and PipeWire run -----------------------------------
out=$(system_install)
check_eq "apt-get install ./realtimed_*.deb ... while rtkit-daemon runs" 0 "$?"
printf '%s\n' "$out" | grep -i -E 'error|warn' || true
check "the install stopped rtkit-daemon" sh -c '! pgrep -x rtkit-daemon'
check_eq "realtimed owns org.freedesktop.RealtimeKit1" realtimed "$(owner_of)"
check_eq "the running PipeWire keeps the RR 20 thread rtkit gave it" "2 20" "$(pw_thread)"
check_eq "its next request: FIFO 88, from realtimed" "1 88" "$(pw_data_thread)"
check "rtkit's activation file is diverted" sh -c "dpkg-divert --list '$rtkit_file' | grep -q 'by realtimed'"
check "realtimed's activation file for the name names realtimed.service" \
	grep -q '^SystemdService=realtimed.service$' "$rtkit_file"
check_eq "systemd resolves rtkit-daemon.service to realtimed.service (Alias=)" realtimed.service \
	"$(systemctl show -p Id --value rtkit-daemon.service)"

# --- stopped: the RealtimeKit1 call activates realtimed ---------------------------
systemctl stop realtimed.service
check "no RealtimeKit1 owner while realtimed is stopped" \
	sh -c '! busctl status --system org.freedesktop.RealtimeKit1 >/dev/null 2>&1'
check_eq "activated by PipeWire's RealtimeKit1 call: FIFO 88 again" "1 88" "$(pw_data_thread)"
check "the call started realtimed" systemctl -q is-active realtimed.service
check "and no rtkit-daemon" sh -c '! pgrep -x rtkit-daemon'

# --- removed: the name goes back to rtkit ----------------------------------------
out=$(system_apt remove realtimed libpam-realtime librealtime1)
check_eq "apt-get remove realtimed libpam-realtime librealtime1" 0 "$?"
check "rtkit's activation file is back" grep -q '^SystemdService=rtkit-daemon.service$' "$rtkit_file"
check_eq "no diversion is left" "" "$(dpkg-divert --list "$rtkit_file")"
check "no alias of rtkit-daemon.service is left in /etc" sh -c '! test -L /etc/systemd/system/rtkit-daemon.service'
check_eq "rtkit-daemon.service is rtkit's own unit again" /lib/systemd/system/rtkit-daemon.service \
	"$(systemctl show -p FragmentPath --value rtkit-daemon.service)"
check_eq "realtimed removed: rtkit-daemon clamps the member's PipeWire to RR 20" "2 20" "$(pw_data_thread)"
check_eq "org.freedesktop.RealtimeKit1 is rtkit-daemon's again" rtkit-daemon "$(owner_of)"

# --- installed again while rtkit-daemon runs, then purged ---------------------------
out=$(system_install)
check_eq "installed again while rtkit-daemon runs" 0 "$?"
check_eq "realtimed owns the name again" realtimed "$(owner_of)"
check_eq "and PipeWire's next request gets FIFO 88" "1 88" "$(pw_data_thread)"
user_ctl stop pipewire.service
out=$(system_purge)
check_eq "apt-get purge" 0 "$?"
check_eq "no diversion is left after the purge" "" "$(dpkg-divert --list "$rtkit_file")"
check "no alias of rtkit-daemon.service is left" sh -c '! test -L /etc/systemd/system/rtkit-daemon.service'
out=$(busctl call --system org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1 \
	org.freedesktop.DBus.Properties Get ss org.freedesktop.RealtimeKit1 MaxRealtimePriority 2>&1)
check_eq "a RealtimeKit1 call after the purge is answered" "v i 20" "$out"
check_eq "by rtkit-daemon" rtkit-daemon "$(owner_of)"
rm -rf /etc/systemd/user/pipewire.service.d /etc/pipewire-vm-system.conf /etc/polkit-1/rules.d/50-vm-system-rtkit.rules
finish
