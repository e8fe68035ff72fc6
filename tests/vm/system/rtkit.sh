#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-rtkit: realtimed's package takes RealtimeKit's name over from
# Debian's rtkit, which stays installed (README.Debian): `apt-get install`
# alone, nothing stopped, enabled or masked by hand; then an upgrade and a
# purge, checked as piuparts checks a package. Proved with the member's own
# PipeWire, a `systemd --user` service asking module-rt for 88:
#   - before the install, rtkit-daemon runs and owns the name, as on a
#     desktop: PipeWire gets RR 20; the guest's changes to its root so far
#     (system_files) and its PAM stack are saved;
#   - installed while rtkit-daemon and that PipeWire run: rtkit-daemon is
#     stopped, PipeWire keeps the RR 20 thread rtkit gave it (rtkit does not
#     demote on exit), realtimed owns org.freedesktop.RealtimeKit1, and
#     PipeWire's next request (a restart) gets FIFO 88 from realtimed;
#   - realtimed stopped: PipeWire's RealtimeKit1 call activates realtimed,
#     not rtkit-daemon (rtkit's activation file is diverted), again FIFO 88;
#     rtkit-daemon.service is an alias of realtimed.service;
#   - `apt-get remove realtimed`: rtkit's activation file and unit are back,
#     and rtkit-daemon, activated by PipeWire's call, clamps it to RR 20;
#   - installed again (over the removed packages' conffiles, with
#     librealtime-dev) while rtkit-daemon runs: realtimed again; the admin
#     edits /etc/realtime/realtime.conf, a member holds a FIFO 40 grant;
#   - the upgrade to the same packages built at a higher version
#     ($RT_DEBS/upgrade), while a RealtimeKit client asks
#     org.freedesktop.RealtimeKit1 in a loop: no call fails, realtimed is
#     restarted, the grant is kept and still supervised (adopted), the
#     admin's edit is kept and in force;
#   - `apt-get purge`: no diversion or alias left, no path of the root
#     added, removed or changed in type since before the first install
#     (system_files_diff), common-session and common-session-noninteractive
#     byte for byte as they were, and rtkit answers RealtimeKit1 again.
# One script, so that the packages are installed three times, not four
# (each apt-get run takes half a minute under TCG).

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
[ -d "${RT_DEBS:-}/upgrade" ] || skip "no packages for the upgrade at RT_DEBS/upgrade (run through run-vm.sh --system)"
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
# what the purge at the end is compared with: taken with the member's
# session and PipeWire already run once, so that what they leave is in both
saved=$(mktemp -d)
system_files >"$saved/files.before"
cp /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive "$saved/"

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

# --- installed again while rtkit-daemon runs, over the removed packages' conffiles
packages="realtimed libpam-realtime librealtime1 librealtime-dev"
# shellcheck disable=SC2086 # the package names
out=$(system_install $packages)
check_eq "installed again while rtkit-daemon runs, with librealtime-dev" 0 "$?"
check_eq "realtimed owns the name again" realtimed "$(owner_of)"
check_eq "and PipeWire's next request gets FIFO 88" "1 88" "$(pw_data_thread)"
user_ctl stop pipewire.service
# The lists see what the install added: they could see a leftover too.
system_files >"$saved/files.installed"
system_files_diff "$saved/files.before" "$saved/files.installed" >"$saved/installed"
for p in /usr/libexec/realtimed /etc/realtime/realtime.conf /usr/include/librealtime.h; do
	check "the file lists see $p added by the install" grep -qx "$p: - -> f" "$saved/installed"
done
old_version=$(dpkg-query -W -f='${Version}' realtimed)
new_version=$(dpkg-deb -f "$(system_debs "$RT_DEBS/upgrade" realtimed)" Version)
check "the upgrade's version $new_version is higher than $old_version" \
	dpkg --compare-versions "$new_version" gt "$old_version"

# The admin's edit, in the file the package ships for it (a conffile).
printf '\n[Group audio]\nRealtimePriority=70\n' >>/etc/realtime/realtime.conf
check "systemctl reload realtimed after the admin's edit" systemctl reload realtimed.service
check "the edit is in force: FIFO 80 refused to a member" \
	sh -c '! setpriv --reuid=rtaudio --regid=rtaudio --init-groups realtimectl run --fifo 80 -- true 2>/dev/null'

setpriv --reuid=rtaudio --regid=rtaudio --init-groups --inh-caps=-all -- \
	realtimectl run --fifo 40 -- sleep 900 &
held=$!
wait_until 30 sh -c "[ \"\$(sed 's/^.*) //' /proc/$held/stat | cut -d' ' -f39)\" = 1 ]"
check_eq "a member holds a FIFO 40 grant" "1 40" "$(sched_of "$held")"

# --- the upgrade, with a RealtimeKit client asking all along ---------------------
# The client: PipeWire's module-rt first reads MaxRealtimePriority; each
# answer ("v i N") or failure is one line of $saved/client.
client()
{
	while [ ! -e "$saved/stop" ]; do
		if out=$(as rtaudio busctl call --system --timeout=30 org.freedesktop.RealtimeKit1 \
			/org/freedesktop/RealtimeKit1 org.freedesktop.DBus.Properties Get ss \
			org.freedesktop.RealtimeKit1 MaxRealtimePriority 2>&1); then
			echo "ok $out"
		else
			echo "FAILED $out"
		fi
		sleep 0.2
	done >"$saved/client"
}
client &
client_pid=$!
wait_until 30 grep -q '^ok' "$saved/client"
old_pid=$(systemctl show -p MainPID --value realtimed.service)
t0=$(date +%s)
check "apt-get install of the packages at $new_version (the upgrade)" system_upgrade
echo "time: $(($(date +%s) - t0))s for the upgrade"
# a few more calls after the restart
n=$(grep -c . "$saved/client")
wait_until 30 sh -c "[ \$(grep -c . '$saved/client') -ge $((n + 3)) ]"
: >"$saved/stop"
wait "$client_pid"
check_eq "the installed version" "$new_version" "$(dpkg-query -W -f='${Version}' realtimed)"
new_pid=$(systemctl show -p MainPID --value realtimed.service)
check "the upgrade restarted realtimed ($old_pid -> $new_pid)" test "$new_pid" != "$old_pid"
check_eq "the client's calls during the upgrade: none failed" "" "$(grep -v '^ok v i [0-9]*$' "$saved/client")"
echo "the client made $(grep -c '^ok' "$saved/client") calls during the upgrade, each answered"
check_eq "the held grant is untouched" "1 40" "$(sched_of "$held")"
check "the new realtimed supervises it (adopted)" \
	sh -c "realtimectl status --all --no-legend | grep -qw $held"
check "the admin's edit is kept" grep -q '^RealtimePriority=70$' /etc/realtime/realtime.conf
check "and in force: FIFO 80 refused to a member" \
	sh -c '! setpriv --reuid=rtaudio --regid=rtaudio --init-groups realtimectl run --fifo 80 -- true 2>/dev/null'
check "FIFO 70 granted" as rtaudio realtimectl run --fifo 70 -- true
kill "$held" 2>/dev/null

# --- the purge -------------------------------------------------------------------
check "apt-get purge of $packages" system_purge
check_eq "no diversion is left after the purge" "" "$(dpkg-divert --list "$rtkit_file")"
check "no alias of rtkit-daemon.service is left" sh -c '! test -L /etc/systemd/system/rtkit-daemon.service'
for f in common-session common-session-noninteractive; do
	check "/etc/pam.d/$f is as it was before the install" cmp "$saved/$f" "/etc/pam.d/$f"
done
system_files >"$saved/files.after"
check_eq "the purge leaves every path of the root as it was before the first install" "" \
	"$(system_files_diff "$saved/files.before" "$saved/files.after")"
out=$(busctl call --system org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1 \
	org.freedesktop.DBus.Properties Get ss org.freedesktop.RealtimeKit1 MaxRealtimePriority 2>&1)
check_eq "a RealtimeKit1 call after the purge is answered" "v i 20" "$out"
check_eq "by rtkit-daemon" rtkit-daemon "$(owner_of)"
rm -rf /etc/systemd/user/pipewire.service.d /etc/pipewire-vm-system.conf /etc/polkit-1/rules.d/50-vm-system-rtkit.rules
finish
