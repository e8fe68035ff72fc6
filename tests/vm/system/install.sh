#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-install: realtimed installed for real on a systemd-booted guest,
# from its Debian packages (`apt-get install ./realtimed_*.deb
# ./libpam-realtime_*.deb ./librealtime1_*.deb`), with real services only:
# sysusers and tmpfiles applied and the unit enabled and started by the
# packages' scripts, the unit clean under systemd-analyze verify;
# pam_realtime added to the PAM stack (pam-auth-update --package): `su -
# MEMBER` and the member's `systemd --user` (PAM service systemd-user,
# common-session-noninteractive) and a service it runs have the policy's
# rlimits (audio: RLIMIT_RTPRIO 95, RLIMIT_MEMLOCK unlimited), a
# non-member's stay at the defaults; realtimed started by D-Bus activation
# on the first call, inside the unit's sandbox, READY, its watchdog fed; an
# audio member gets FIFO through realtimectl run, a non-member is refused
# with the reason; reload (good and broken edits), restart (live grants
# adopted, then demoted by a reload), CpuDmaLatency= held through the unit's
# sandbox, the journal's MESSAGE_IDs; and `apt-get
# remove`: the service gone, common-session and common-session-noninteractive
# byte for byte as before the install, a running session keeping its grant
# and its limits, a new login working; then the purge.

# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/system-lib.sh
. "$TOP_SRCDIR/tests/vm/system-lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is not systemd (run through run-vm.sh --system)"
add_test_users

id_grant=5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a02
# a refused grant request: one notice line each, paced per user (REFUSALS)
id_refusal=5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a07
id_demotion=5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a04

# rtprio_of PID: soft and hard "Max realtime priority" of PID
rtprio_of()
{
	awk '/^Max realtime priority/ { print $4, $5 }' "/proc/$1/limits"
}

# --- install ---------------------------------------------------------------
saved=$(mktemp -d)
cp /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive "$saved/"
out=$(system_install)
rc=$?
printf '%s\n' "$out" | tail -n 5
check_eq "apt-get install ./realtimed_*.deb ./libpam-realtime_*.deb ./librealtime1_*.deb" 0 "$rc"
for p in realtimed libpam-realtime librealtime1; do
	check "dpkg: $p is installed" system_installed "$p"
done
check "/lib is still the merged-usr symlink after the install" test -L /lib
check "the unit is where systemd finds it" test -f /lib/systemd/system/realtimed.service
check "sysusers: group audio exists" getent group audio
check "tmpfiles: /etc/realtime/realtime.conf.d exists" test -d /etc/realtime/realtime.conf.d
check "tmpfiles: /run/realtime exists" test -d /run/realtime
check "the package enabled realtimed.service" systemctl -q is-enabled realtimed.service
check "and started it" systemctl -q is-active realtimed.service
out=$(systemd-analyze verify realtimed.service 2>&1)
check_eq "systemd-analyze verify realtimed.service says nothing" "" "$out"

# --- pam_realtime: in the PAM stack, limits at login --------------------------
check "the pam-auth-update profile is installed" test -f /usr/share/pam-configs/realtime
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

# An admin who wants every grant and refusal in the journal (realtimed(8),
# --debug): a drop-in, as systemctl edit would write it.
mkdir -p /etc/systemd/system/realtimed.service.d
printf '[Service]\nExecStart=\nExecStart=/usr/libexec/realtimed --debug\n' \
	>/etc/systemd/system/realtimed.service.d/debug.conf
systemctl daemon-reload

# hold_grant PRIO: a member's sleep, run by realtimectl with FIFO PRIO; sets
# held to its pid (setpriv and realtimectl exec into it) once it runs FIFO.
hold_grant()
{
	setpriv --reuid=rtaudio --regid=rtaudio --init-groups --inh-caps=-all -- \
		realtimectl run --fifo "$1" -- sleep 900 &
	held=$!
	wait_until 30 sh -c "[ \"\$(sed 's/^.*) //' /proc/$held/stat | cut -d' ' -f39)\" = 1 ]"
}

# For the activation below: stopped, as after a boot without it enabled.
systemctl stop realtimed.service
check "realtimed is not running before the first call" sh -c '! systemctl -q is-active realtimed.service'

# --- D-Bus activation, sandbox, READY, watchdog ---------------------------
# The first call: an audio member asks for FIFO 50 for a command.
out=$(as rtaudio realtimectl run --fifo 50 -- sh -c 'sed "s/^.*) //" /proc/$$/stat | cut -d" " -f38,39' 2>&1)
check_eq "an audio member gets FIFO 50 through realtimectl run (priority policy)" "50 1" "$out"
check "realtimed is active now" systemctl -q is-active realtimed.service
check "dbus-daemon started it through systemd (activation of org.realtimed.Realtime1)" \
	sh -c "journalctl -b -u dbus.service --no-pager | grep -q \"Activating via systemd: service name='org.realtimed.Realtime1' unit='realtimed.service'\""
pid=$(systemctl show -p MainPID --value realtimed.service)
check "realtimed has a main pid" test "${pid:-0}" -gt 0
status=$(systemctl show -p StatusText --value realtimed.service)
case "$status" in
Supervising*) echo "ok - READY=1 and its status reached systemd ($status)" ;;
*)
	echo "FAIL - no READY status from realtimed: '$status'"
	rt_failures=$((rt_failures + 1))
	;;
esac
# CapBnd: CAP_DAC_READ_SEARCH(2) CAP_SYS_PTRACE(19) CAP_SYS_NICE(23) CAP_SYS_RESOURCE(24),
# and CAP_SETGID(6) CAP_SETUID(7) CAP_SETPCAP(8) for the NSS helper's drop
check_eq "the sandbox's capability bounding set" "00000000018801c4" \
	"$(awk '/^CapBnd:/ { print $2 }' "/proc/$pid/status")"
check_eq "no new privileges" "1" "$(awk '/^NoNewPrivs:/ { print $2 }' "/proc/$pid/status")"
# the three for the NSS helper are permitted only; the helper, forked at
# start, dropped to nobody with every set empty under the unit's sandbox
# (its seccomp filter lets setgroups and setresuid through)
check_eq "realtimed's effective capabilities (not the NSS helper's three)" "0000000001880004" \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$pid/status")"
helper=$(cat "/proc/$pid/task/"*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .)
check "realtimed runs its NSS helper" test -n "$helper"
check_eq "the NSS helper runs as nobody" "65534" "$(awk '/^Uid:/ { print $2 }' "/proc/${helper:-0}/status")"
for c in CapEff CapPrm CapBnd; do
	check_eq "the NSS helper's $c is empty" "0000000000000000" \
		"$(awk -v k="$c:" '$1 == k { print $2 }' "/proc/${helper:-0}/status")"
done
check_eq "a seccomp filter" "2" "$(awk '/^Seccomp:/ { print $2 }' "/proc/$pid/status")"
check "its own mount namespace (ProtectSystem=, PrivateTmp=)" \
	test "$(readlink "/proc/$pid/ns/mnt")" != "$(readlink /proc/1/ns/mnt)"
check "its own network namespace (PrivateNetwork=)" \
	test "$(readlink "/proc/$pid/ns/net")" != "$(readlink /proc/1/ns/net)"
check_eq "the unit's watchdog" "30s" "$(systemctl show -p WatchdogUSec --value realtimed.service)"

# --- a non-member ----------------------------------------------------------
out=$(as rtplain realtimectl run --fifo 50 -- true 2>&1)
rc=$?
check_eq "a non-member's FIFO request fails with exit 1" 1 "$rc"
case "$out" in
*fifo*rtplain*realtime.conf:*) echo "ok - the refusal gives the reason and file:line ($out)" ;;
*)
	echo "FAIL - the refusal does not say why: '$out'"
	rt_failures=$((rt_failures + 1))
	;;
esac

# --- a live grant, reload, restart, demotion --------------------------------
hold_grant 40
check_eq "a held grant: sleep runs FIFO 40" "1 40" "$(sched_of "$held")"

# CpuDmaLatency= through the unit's sandbox: its private /dev has the device
# (BindPaths=, DeviceAllow=), held at 0 while the grant runs, let go by a
# reload without the key.
if [ -c /dev/cpu_dma_latency ]; then
	dma=/etc/realtime/realtime.conf.d/40-vm-cpu-dma.conf
	dma_before=$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')
	printf '[Daemon]\nCpuDmaLatency=0\n' >"$dma"
	systemctl reload realtimed.service
	wait_until 10 sh -c "[ \"\$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')\" = 0 ]"
	check_eq "CpuDmaLatency=0 under the unit: /dev/cpu_dma_latency held at 0 while a grant runs" \
		0 "$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')"
	rm -f "$dma"
	systemctl reload realtimed.service
	wait_until 10 sh -c "[ \"\$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')\" = $dma_before ]"
	check_eq "a reload without it lets go" "$dma_before" \
		"$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')"
fi

# Shield= through the unit's sandbox (ReadWritePaths= for /proc/irq and the
# workqueues' cpumask, under ReadOnlyPaths=/sys and /proc/sys): with the
# grant held, the default affinity of new IRQs and the unbound workqueues
# leave CPU 1, realtimectl status has nothing it could not do, and a reload
# without the key gives both back.
wq=/sys/devices/virtual/workqueue/cpumask
if [ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] && [ -w "$wq" ]; then
	shield_conf=/etc/realtime/realtime.conf.d/40-vm-shield.conf
	def_before=$(cat /proc/irq/default_smp_affinity)
	wq_before=$(cat "$wq")
	printf '[Daemon]\nShield=auto\n' >"$shield_conf"
	systemctl reload realtimed.service
	wait_until 10 sh -c "[ \"\$(cat /proc/irq/default_smp_affinity)\" = 1 ] && [ \"\$(cat $wq)\" = 1 ]"
	check_eq "Shield=auto under the unit: new IRQs' default affinity is CPU 0 while a grant runs" \
		1 "$(cat /proc/irq/default_smp_affinity)"
	check_eq "and the unbound workqueues' cpumask" 1 "$(cat "$wq")"
	realtimectl status >"$saved/shield-status" 2>&1
	sed -n '/^Shield/,$p' "$saved/shield-status" | sed 's/^/# /'
	check "realtimectl status: the shield is held on CPU 1" grep -q '^Shield (Shield=): held on CPUs 1 ' "$saved/shield-status"
	check "and it says of nothing that it could not be done" sh -c "! grep -q 'Not done:' '$saved/shield-status'"
	rm -f "$shield_conf"
	systemctl reload realtimed.service
	wait_until 10 sh -c "[ \"\$(cat /proc/irq/default_smp_affinity)\" = $def_before ] && [ \"\$(cat $wq)\" = $wq_before ]"
	check_eq "a reload without it gives the default affinity back" "$def_before" "$(cat /proc/irq/default_smp_affinity)"
	check_eq "and the workqueues' cpumask" "$wq_before" "$(cat "$wq")"
fi

conf=/etc/realtime/realtime.conf.d/50-vm-system.conf
printf '[Group audio]\nRealtimePriority=70\n' >"$conf"
systemctl reload realtimed.service
check "after a reload to 70, FIFO 80 is refused to a member" \
	sh -c '! setpriv --reuid=rtaudio --regid=rtaudio --init-groups realtimectl run --fifo 80 -- true 2>/dev/null'
check "after a reload to 70, FIFO 70 is granted" as rtaudio realtimectl run --fifo 70 -- true
printf '[Group audio]\nRealtimePriority=70\nNoSuchKey=1\n' >"$conf"
systemctl reload realtimed.service
sleep 2
check "a broken edit: the journal names the file and line" \
	sh -c "journalctl -b -u realtimed.service --no-pager | grep -q '50-vm-system.conf:3'"
check "a broken edit keeps the last good policy (FIFO 80 still refused)" \
	sh -c '! setpriv --reuid=rtaudio --regid=rtaudio --init-groups realtimectl run --fifo 80 -- true 2>/dev/null'
check "a broken edit keeps the last good policy (FIFO 70 still granted)" as rtaudio realtimectl run --fifo 70 -- true
check "the service survives a broken edit" systemctl -q is-active realtimed.service

old_pid=$pid
systemctl restart realtimed.service
pid=$(systemctl show -p MainPID --value realtimed.service)
check "restart: a new realtimed" test "$pid" != "$old_pid"
check_eq "restart: the held grant is untouched" "1 40" "$(sched_of "$held")"
check "restart: the new realtimed lists the held grant (adopted)" \
	sh -c "realtimectl status --all --no-legend | grep -qw $held"

# A reload that no longer allows 40 demotes the adopted grant: it is still
# supervised after the restart.
printf '[Group audio]\nRealtimePriority=30\n' >"$conf"
systemctl reload realtimed.service
wait_until 10 sh -c "[ \"\$(sed 's/^.*) //' /proc/$held/stat | cut -d' ' -f39)\" = 0 ]"
check_eq "a reload to 30 demotes the adopted FIFO 40 grant to SCHED_OTHER" "0 0" "$(sched_of "$held")"
kill "$held" 2>/dev/null
rm -f "$conf"
systemctl reload realtimed.service

journal=$(journal_of realtimed.service)
for id in grant:$id_grant refusal:$id_refusal demotion:$id_demotion; do
	check "journalctl -u realtimed -o verbose has MESSAGE_ID of a ${id%%:*}" \
		sh -c "printf '%s\n' \"\$1\" | grep -q 'MESSAGE_ID=${id#*:}'" sh "$journal"
done
# as realtimed(8) tells an admin to look: the non-member's refusal above,
# with its fields
plain_uid=$(id -u rtplain)
refused=$(journalctl -b -o verbose --no-pager MESSAGE_ID=$id_refusal REALTIMED_UID="$plain_uid")
check "journalctl MESSAGE_ID=$id_refusal REALTIMED_UID=$plain_uid: the non-member's refusal, FIFO 50, with the policy file:line" \
	sh -c "printf '%s\n' \"\$1\" | grep -q 'REALTIMED_ASKED=FIFO 50' &&
		printf '%s\n' \"\$1\" | grep -q 'REALTIMED_POLICY_SOURCE=.*realtime.conf:[0-9]'" sh "$refused"

# --- the watchdog is fed ----------------------------------------------------
# An unfed watchdog gets realtimed killed (SIGABRT) WatchdogSec=30 after its
# start or its last ping, and Restart=on-failure starts another. So: the
# realtimed of the restart above lives on past 40 s, with pings that systemd
# saw after its start, and systemd never had to restart it.
mono_us()
{
	awk '{ printf "%d\n", $1 * 1000000 }' /proc/uptime
}
started=$(systemctl show -p ExecMainStartTimestampMonotonic --value realtimed.service)
left=$((40 - ($(mono_us) - started) / 1000000))
[ "$left" -gt 0 ] && sleep "$left"
check_eq "the same realtimed runs 40 s after its start (watchdog 30 s)" "$pid" \
	"$(systemctl show -p MainPID --value realtimed.service)"
check "and it is active" systemctl -q is-active realtimed.service
check_eq "systemd never restarted it on its own (NRestarts)" 0 "$(systemctl show -p NRestarts --value realtimed.service)"
wd=$(systemctl show -p WatchdogTimestampMonotonic --value realtimed.service)
check "systemd saw a watchdog ping after its start (${started}us -> ${wd}us)" test "$wd" -gt $((started + 1000000))
check "no watchdog timeout in the journal" \
	sh -c "! journalctl -b -u realtimed.service --no-pager | grep -qi 'watchdog timeout'"

# --- removal: a running session keeps working --------------------------------
hold_grant 40
su - rtaudio -c 'exec sleep 600' &
# by its whole command line: another sleep of rtaudio's (a user service's)
# may come and go meanwhile
wait_until 120 pgrep -u rtaudio -xf 'sleep 600' >/dev/null
session=$(pgrep -u rtaudio -xf 'sleep 600' | head -n 1)
check "a login session's program runs ($session)" test -n "$session"
out=$(system_apt remove realtimed libpam-realtime librealtime1)
check_eq "apt-get remove realtimed libpam-realtime librealtime1" 0 "$?"
printf '%s\n' "$out" | tail -n 3
for f in common-session common-session-noninteractive; do
	check "the removal left /etc/pam.d/$f as it was before the install" cmp "$saved/$f" "/etc/pam.d/$f"
done
check_eq "a session opened before the removal keeps its limits" "95 95" "$(rtprio_of "$session")"
check_eq "a new login still works, without the limits" "0" "$(su - rtaudio -c 'ulimit -r' 2>&1)"
kill "$session" 2>/dev/null
check "no realtimed runs" sh -c '! pgrep -x realtimed'
check "systemd no longer knows realtimed.service" \
	sh -c '[ "$(systemctl show -p LoadState --value realtimed.service)" = not-found ]'
check "nor masks it any longer (prerm's runtime mask is lifted)" sh -c '! test -e /run/systemd/system/realtimed.service'
check_eq "the running session keeps its FIFO 40 thread" "1 40" "$(sched_of "$held")"
check "and it keeps running" kill -0 "$held"
check "realtimectl is gone too" sh -c '! command -v realtimectl'
kill "$held" 2>/dev/null
rm -rf /etc/systemd/system/realtimed.service.d
out=$(system_purge)
check_eq "apt-get purge of the removed packages" 0 "$?"
check "the purge removed /run/realtime" sh -c '! test -e /run/realtime'
check "and the admin policy file" sh -c '! test -e /etc/realtime/realtime.conf'
finish
