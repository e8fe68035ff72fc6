#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-upgrade: an upgrade and a purge of realtimed's Debian packages on
# a systemd-booted guest with rtkit installed, checked as piuparts checks a
# package:
#   - the guest's changes to its root so far (system_files) and its PAM
#     stack are saved;
#   - the packages are installed (realtimed, libpam-realtime, librealtime1,
#     librealtime-dev), the admin edits /etc/realtime/realtime.conf, a member
#     holds a FIFO 40 grant;
#   - the upgrade to the same packages built at a higher version
#     ($RT_DEBS/upgrade), while a RealtimeKit client asks
#     org.freedesktop.RealtimeKit1 in a loop: no call fails, realtimed is
#     restarted, the grant is kept and still supervised (adopted), the
#     admin's edit is kept and in force;
#   - `apt-get purge`: no path of the root was added, removed or changed in
#     type since the install (system_files_diff), common-session and common-session-noninteractive byte for byte
#     as they were, and rtkit answers RealtimeKit1 again.

# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/system-lib.sh
. "$TOP_SRCDIR/tests/vm/system-lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is not systemd (run through run-vm.sh --system)"
[ -d "${RT_DEBS:-}/upgrade" ] || skip "no packages for the upgrade at RT_DEBS/upgrade (run through run-vm.sh --system)"
add_test_users
packages="realtimed libpam-realtime librealtime1 librealtime-dev"

# --- before -------------------------------------------------------------------
saved=$(mktemp -d)
system_files >"$saved/files.before"
cp /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive "$saved/"

# shellcheck disable=SC2086 # the package names
check "apt-get install of $packages" system_install $packages
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
for f in common-session common-session-noninteractive; do
	check "/etc/pam.d/$f is as it was before the install" cmp "$saved/$f" "/etc/pam.d/$f"
done
system_files >"$saved/files.after"
check_eq "the purge leaves every path of the root as it was before the install" "" \
	"$(system_files_diff "$saved/files.before" "$saved/files.after")"
out=$(busctl call --system org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1 \
	org.freedesktop.DBus.Properties Get ss org.freedesktop.RealtimeKit1 MaxRealtimePriority 2>&1)
check_eq "RealtimeKit1 is answered after the purge" "v i 20" "$out"
pid=$(busctl status --system org.freedesktop.RealtimeKit1 2>/dev/null | sed -n 's/^PID=//p')
check_eq "by rtkit-daemon" rtkit-daemon "$(cat "/proc/${pid:-0}/comm" 2>/dev/null)"
finish
