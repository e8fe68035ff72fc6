#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-pam: pam_realtime through Debian's pam-auth-update, on a
# systemd-booted guest with the meson install tree laid onto it. After
# `pam-auth-update --enable realtime`, `su - MEMBER` and the member's
# `systemd --user` (PAM service systemd-user, common-session-noninteractive)
# and a service it runs have the policy's rlimits (audio: RLIMIT_RTPRIO 95,
# RLIMIT_MEMLOCK unlimited); a non-member's stay at the defaults. After the
# documented removal a session opened before keeps its limits and a new
# login still works.

# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/system-lib.sh
. "$TOP_SRCDIR/tests/vm/system-lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is not systemd (run through run-vm.sh --system)"
command -v pam-auth-update >/dev/null || skip "pam-auth-update is missing (libpam-runtime)"
add_test_users

# rtprio_of PID: soft and hard "Max realtime priority" of PID
rtprio_of()
{
	awk '/^Max realtime priority/ { print $4, $5 }' "/proc/$1/limits"
}

system_install
check "the pam-auth-update profile is installed" test -f /usr/share/pam-configs/realtime
DEBIAN_FRONTEND=noninteractive pam-auth-update --enable realtime
check "common-session has pam_realtime" grep -q 'pam_realtime.so' /etc/pam.d/common-session
check "common-session-noninteractive has pam_realtime" \
	grep -q 'pam_realtime.so' /etc/pam.d/common-session-noninteractive

check_eq "su - member: RLIMIT_RTPRIO soft/hard" "95 95" "$(su - rtaudio -c 'echo "$(ulimit -r) $(ulimit -Hr)"' 2>&1)"
check_eq "su - member: RLIMIT_MEMLOCK" "unlimited" "$(su - rtaudio -c 'ulimit -l' 2>&1)"
check_eq "su - non-member: RLIMIT_RTPRIO unchanged" "0 0" "$(su - rtplain -c 'echo "$(ulimit -r) $(ulimit -Hr)"' 2>&1)"

for u in rtaudio rtplain; do
	uid=$(id -u "$u")
	# su's session has ended, and logind stops the user manager it started
	# UserStopDelaySec (10 s) later: on a slow guest that lands in the middle
	# of what follows. Lingering keeps one manager up (started through PAM's
	# systemd-user service, as a login's is) until the test is done.
	loginctl enable-linger "$u"
	wait_until 120 sh -c "systemctl -q is-active user@$uid.service && test -S /run/user/$uid/bus"
	# shellcheck disable=SC2034 # read through eval below
	mgr=$(systemctl show -p MainPID --value "user@$uid.service")
	as "$u" env XDG_RUNTIME_DIR="/run/user/$uid" \
		systemd-run --user --quiet --unit=rt-limits sleep 600
	# shellcheck disable=SC2034
	svc=$(as "$u" env XDG_RUNTIME_DIR="/run/user/$uid" \
		systemctl --user show -p MainPID --value rt-limits.service)
	eval "mgr_$u=\$(rtprio_of \"\$mgr\")"
	eval "svc_$u=\$(rtprio_of \"\$svc\")"
	loginctl disable-linger "$u"
done
# shellcheck disable=SC2154
check_eq "the member's systemd --user: RLIMIT_RTPRIO" "95 95" "$mgr_rtaudio"
# shellcheck disable=SC2154
check_eq "a service of the member's systemd --user: RLIMIT_RTPRIO" "95 95" "$svc_rtaudio"
# shellcheck disable=SC2154
check_eq "the non-member's systemd --user: RLIMIT_RTPRIO unchanged" "0 0" "$mgr_rtplain"
# shellcheck disable=SC2154
check_eq "a service of the non-member's systemd --user: unchanged" "0 0" "$svc_rtplain"

# --- removal: the session opened before keeps working ----------------------
su - rtaudio -c 'exec sleep 600' &
# by its whole command line: another sleep of rtaudio's (a user service's)
# may come and go meanwhile
wait_until 120 pgrep -u rtaudio -xf 'sleep 600' >/dev/null
session=$(pgrep -u rtaudio -xf 'sleep 600' | head -n 1)
check "the session's program runs ($session)" test -n "$session"
system_uninstall
check "pam-auth-update --remove took pam_realtime out of common-session" \
	sh -c '! grep -q pam_realtime.so /etc/pam.d/common-session'
check_eq "removal leaves none of the installed files" "" "$(system_leftovers)"
check_eq "a session opened before the removal keeps its limits" "95 95" "$(rtprio_of "$session")"
check_eq "a new login still works, without the limits" "0" "$(su - rtaudio -c 'ulimit -r' 2>&1)"
kill "$session" 2>/dev/null
finish
