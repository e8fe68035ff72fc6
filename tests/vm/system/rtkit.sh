#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-rtkit: realtimed and Debian's rtkit installed side by side, both
# D-Bus-activatable for org.freedesktop.RealtimeKit1 (rtkit's activation file
# names SystemdService=rtkit-daemon.service). `systemctl enable realtimed`
# makes rtkit-daemon.service an alias of realtimed.service ([Install]
# Alias=), so whatever activates that name starts realtimed. Proved with the
# member's own PipeWire, a `systemd --user` service asking module-rt for 88:
#   - before the install, rtkit-daemon is running and owns the name, as on a
#     desktop: PipeWire gets RR 20;
#   - installed, then README's steps (stop rtkit-daemon, enable --now
#     realtimed): the data thread runs FIFO 88, from realtimed;
#   - realtimed enabled but stopped: the RealtimeKit1 call activates
#     realtimed (not rtkit-daemon), again FIFO 88;
#   - realtimed removed (the documented removal): the name goes back to
#     rtkit-daemon, which clamps PipeWire to RR 20;
#   - installed again and enabled while rtkit-daemon runs (the stop
#     forgotten): realtimed.service counts rtkit-daemon as its process and
#     starts nothing; `systemctl restart realtimed.service`, as README says,
#     ends rtkit-daemon and starts realtimed: FIFO 88.

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

# pw_data_thread: restarts the member's pipewire.service and prints
# "POLICY PRIO" of its realtime data thread (1 fifo, 2 rr), or "none".
pw_data_thread()
{
	user_ctl restart pipewire.service
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

# --- before: the desktop's rtkit-daemon runs and owns the name -----------------
check_eq "rtkit alone: rtkit-daemon clamps the member's PipeWire to RR 20" "2 20" "$(pw_data_thread)"
rtkit_pid=$(pgrep -x rtkit-daemon)
owner=$(busctl status --system org.freedesktop.RealtimeKit1 2>/dev/null | sed -n 's/^PID=//p')
check_eq "rtkit-daemon runs and owns org.freedesktop.RealtimeKit1" "${rtkit_pid:-none}" "$owner"

# --- installed and enabled as README says, rtkit-daemon running -------------------
system_install
systemctl stop rtkit-daemon.service
check "systemctl stop rtkit-daemon.service stopped rtkit's daemon" sh -c '! pgrep -x rtkit-daemon'
systemctl enable --now realtimed.service
check "enable made rtkit-daemon.service an alias of realtimed.service" \
	sh -c '[ "$(readlink /etc/systemd/system/rtkit-daemon.service)" = /lib/systemd/system/realtimed.service ]'
check_eq "systemd resolves rtkit-daemon.service to realtimed.service" realtimed.service \
	"$(systemctl show -p Id --value rtkit-daemon.service)"
check_eq "realtimed, enabled: the member's PipeWire data thread runs FIFO 88" "1 88" "$(pw_data_thread)"
owner=$(busctl status --system org.freedesktop.RealtimeKit1 2>/dev/null | sed -n 's/^PID=//p')
check_eq "org.freedesktop.RealtimeKit1 is realtimed's" \
	"$(systemctl show -p MainPID --value realtimed.service)" "$owner"

# --- enabled, not running: the RealtimeKit1 call activates realtimed ------------
systemctl stop realtimed.service
check "no RealtimeKit1 owner while realtimed is stopped" \
	sh -c '! busctl status --system org.freedesktop.RealtimeKit1 >/dev/null 2>&1'
check_eq "activated by PipeWire's RealtimeKit1 call: FIFO 88 again" "1 88" "$(pw_data_thread)"
check "the call started realtimed" systemctl -q is-active realtimed.service
check "and no rtkit-daemon" sh -c '! pgrep -x rtkit-daemon'

# --- removed: the name goes back to rtkit ----------------------------------------
user_ctl stop pipewire.service
system_uninstall
check "disable removed the alias" sh -c '! test -L /etc/systemd/system/rtkit-daemon.service'
check_eq "rtkit-daemon.service is rtkit's own unit again" /lib/systemd/system/rtkit-daemon.service \
	"$(systemctl show -p FragmentPath --value rtkit-daemon.service)"
check_eq "realtimed removed: rtkit-daemon clamps the member's PipeWire to RR 20" "2 20" "$(pw_data_thread)"
rtkit_pid=$(pgrep -x rtkit-daemon)
check "rtkit-daemon was activated for it" test -n "$rtkit_pid"
owner=$(busctl status --system org.freedesktop.RealtimeKit1 2>/dev/null | sed -n 's/^PID=//p')
check_eq "org.freedesktop.RealtimeKit1 is rtkit-daemon's again" "$rtkit_pid" "$owner"

# --- installed again, enabled without stopping the running rtkit-daemon --------
# daemon-reload makes the running rtkit-daemon.service a name of
# realtimed.service: systemd then counts rtkit-daemon's process as
# realtimed.service's, so --now starts nothing. README: restart it.
system_install
systemctl enable --now realtimed.service
check_eq "enabled while rtkit-daemon ran: realtimed.service's main process is rtkit-daemon" \
	"$rtkit_pid" "$(systemctl show -p MainPID --value realtimed.service)"
check "and no realtimed started" sh -c '! pgrep -x realtimed'
systemctl restart realtimed.service
check "systemctl restart realtimed.service ended rtkit-daemon" sh -c '! pgrep -x rtkit-daemon'
check "and started realtimed" sh -c 'pgrep -x realtimed >/dev/null'
check_eq "after the restart, the member's PipeWire runs FIFO 88 again" "1 88" "$(pw_data_thread)"
owner=$(busctl status --system org.freedesktop.RealtimeKit1 2>/dev/null | sed -n 's/^PID=//p')
check_eq "org.freedesktop.RealtimeKit1 is realtimed's" \
	"$(systemctl show -p MainPID --value realtimed.service)" "$owner"
user_ctl stop pipewire.service
system_uninstall
check_eq "the removal leaves none of the installed files" "" "$(system_leftovers)"
finish
