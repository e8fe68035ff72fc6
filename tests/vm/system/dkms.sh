#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-dkms: realtime.ko through its Debian package, realtime-dkms, on
# a systemd-booted guest, over two boots of a root that persists:
#   boot 1: `apt-get install ./realtime-dkms_*.deb` has DKMS build and install
#     the module for the guest's kernel; it is not loaded (loading is the
#     admin's choice); modprobe, the sysctls with the module's defaults; then
#     the settings realtime.ko(4) documents for every boot
#     (/etc/modules-load.d, /etc/modprobe.d), and a reboot;
#   boot 2: systemd-modules-load loaded dkms's realtime.ko at boot with
#     /etc/modprobe.d's options, and it grants what they say; then `apt-get
#     purge realtime-dkms` removes the module and its sources, and a
#     member's program started before keeps its capabilities.
# The package's install says how long DKMS took: under TCG it is most of the
# run. DKMS builds for the running kernel and the newest one installed; the
# guest boots the host's root, whose other kernels (6.12, 6.12-rt) would add
# two more builds of the same code: their directories are hidden from this
# script, so the one build timed is the running kernel's.
#
# vm-persistent-root: 2048
# vm-smp: host
# vm-timeout: 1200

# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/system-lib.sh
. "$TOP_SRCDIR/tests/vm/system-lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is not systemd (run through run-vm.sh --system)"
command -v dkms >/dev/null || skip "dkms is not installed: apt-get install dkms"
kver=$(uname -r)
[ -f "/lib/modules/$kver/build/Makefile" ] || skip "no headers for $kver: apt-get install linux-headers-$kver"
grep -q '^CONFIG_KPROBES=y' "/boot/config-$kver" 2>/dev/null || skip "$kver has no kprobes"

# timed DESCRIPTION COMMAND...: check, and print how long COMMAND took.
timed()
{
	t0=$(date +%s.%N)
	check "$@"
	echo "time: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')s for $1"
}

# sysctls NAME...: the values of /proc/sys/security/realtime/NAME..., on one line.
sysctls()
{
	for s in "$@"; do
		cat "/proc/sys/security/realtime/$s"
	done | tr '\n' ' ' | sed 's/ $//'
}

# check_dkms_ko: modprobe's realtime.ko is the one dkms installed.
check_dkms_ko()
{
	ko=$(modinfo -n realtime 2>/dev/null)
	case "$ko" in
	"/lib/modules/$kver/updates/dkms/realtime.ko"*) echo "ok - modprobe's realtime.ko is dkms's ($ko)" ;;
	*)
		echo "FAIL - modinfo -n realtime: '$ko'"
		rt_failures=$((rt_failures + 1))
		;;
	esac
}

if [ "${RT_VM_BOOT:-1}" = 1 ]; then
	add_test_users
	for d in /lib/modules/*; do
		[ "${d##*/}" = "$kver" ] || mount -t tmpfs -o ro,size=4k rt-hidden "$d"
	done
	timed "apt-get install ./realtime-dkms_*.deb (DKMS builds and installs realtime.ko)" \
		system_install realtime-dkms
	src=$(ls -d /usr/src/realtime-* 2>/dev/null | head -n 1)
	check "the package put the dkms sources in /usr/src/realtime-VERSION" test -f "$src/dkms.conf"
	ver=${src##*/realtime-}
	check_eq "dkms status" "realtime/$ver, $kver, x86_64: installed" "$(dkms status realtime | head -n 1)"
	check_dkms_ko
	check "the install did not load it" sh -c '! test -d /sys/module/realtime'

	check "modprobe realtime" modprobe realtime
	for s in any gid mlock; do
		check "sysctl security.realtime.$s exists" test -f "/proc/sys/security/realtime/$s"
	done
	check_eq "the seed's defaults any gid mlock" "0 -1 1" "$(sysctls any gid mlock)"

	# The boot-time settings of realtime.ko(4), EXAMPLES; the next boot
	# must apply them.
	echo realtime >/etc/modules-load.d/realtime.conf
	echo "options realtime gid=29 mlock=2" >/etc/modprobe.d/realtime.conf
	system_reboot
fi

# --- boot 2: what systemd did at boot -------------------------------------------
src=$(ls -d /usr/src/realtime-* 2>/dev/null | head -n 1)
check "the root persisted: dkms's realtime.ko is still installed" \
	sh -c "dkms status realtime | grep -q ': installed'"
check "realtime is loaded after the reboot" test -d /sys/module/realtime
# by its name, not its unit: when systemd-modules-load runs before journald
# is up, its line reaches the journal through the kernel's log, without a unit
check "systemd-modules-load.service loaded it at boot" \
	sh -c "journalctl -b -t systemd-modules-load --no-pager | grep -q \"Inserted module 'realtime'\""
check_dkms_ko
check_eq "/etc/modprobe.d's options at boot: any gid mlock" "0 29 2" "$(sysctls any gid mlock)"
check_eq "an audio member's exec gets CAP_SYS_NICE and CAP_IPC_LOCK" 0000000000804000 \
	"$(as rtaudio grep CapEff /proc/self/status | awk '{ print $2 }')"
check_eq "a non-member's exec gets nothing" 0000000000000000 \
	"$(as rtplain grep CapEff /proc/self/status | awk '{ print $2 }')"

# --- the purge: a member's program keeps its capabilities -----------------------
# the program says its own pid: $! would be the shell that runs as()
piddir=$(mktemp -d)
chown rtaudio "$piddir"
# shellcheck disable=SC2016 # $$ and $0 are the inner shell's
as rtaudio sh -c 'echo $$ >"$0"; exec sleep 600' "$piddir/pid" &
wait_until 120 test -s "$piddir/pid"
held=$(cat "$piddir/pid" 2>/dev/null)
wait_until 120 sh -c "grep -q '^CapEff:.*804000' /proc/$held/status"
check_eq "a member's program has CAP_SYS_NICE and CAP_IPC_LOCK before the purge" 0000000000804000 \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$held/status")"
# README, Install: the admin's own files and the loaded module go by hand
rm -f /etc/modules-load.d/realtime.conf /etc/modprobe.d/realtime.conf
check "rmmod realtime" rmmod realtime
timed "apt-get purge realtime-dkms" system_apt purge realtime-dkms
check_eq "a member's program started before keeps CAP_SYS_NICE and CAP_IPC_LOCK" 0000000000804000 \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$held/status")"
kill "$held" 2>/dev/null
check "dpkg no longer knows realtime-dkms" sh -c '! dpkg-query -W realtime-dkms >/dev/null 2>&1'
check "dkms status knows no realtime" sh -c '[ -z "$(dkms status realtime)" ]'
check_eq "no realtime.ko is left under /lib/modules/*/{updates,extra}" "" \
	"$(find /lib/modules/*/updates /lib/modules/*/extra -name 'realtime.ko*' 2>/dev/null)"
check "no /var/lib/dkms/realtime" sh -c '! test -e /var/lib/dkms/realtime'
check "modinfo realtime finds nothing" sh -c '! modinfo realtime >/dev/null 2>&1'
check "nor the dkms source tree" sh -c "! test -e '$src'"
finish
