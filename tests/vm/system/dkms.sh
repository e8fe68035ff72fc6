#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-dkms: realtime.ko through DKMS on a systemd-booted guest, from the
# sources `meson install` put in /usr/src/realtime-VERSION, over two boots of
# a root that persists (README, "Install for real"):
#   boot 1: dkms add, build and install for the guest's kernel, modprobe, the
#     sysctls with the module's defaults; then the settings realtime.ko(4)
#     documents for every boot (/etc/modules-load.d, /etc/modprobe.d), and a
#     reboot;
#   boot 2: systemd-modules-load loaded dkms's realtime.ko at boot with
#     /etc/modprobe.d's options, and it grants what they say; then the
#     documented removal (dkms remove, the files) leaves nothing behind.
# Each dkms step says how long it took: under TCG they are most of the run.
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
	system_install
	src=$(ls -d /usr/src/realtime-* 2>/dev/null | head -n 1)
	check "meson install put the dkms sources in /usr/src/realtime-VERSION" test -f "$src/dkms.conf"
	ver=${src##*/realtime-}

	timed "dkms add realtime/$ver" dkms add "realtime/$ver"
	timed "dkms build realtime/$ver -k $kver" dkms build "realtime/$ver" -k "$kver"
	timed "dkms install realtime/$ver -k $kver" dkms install "realtime/$ver" -k "$kver"
	check_eq "dkms status" "realtime/$ver, $kver, x86_64: installed" "$(dkms status realtime | head -n 1)"
	check_dkms_ko

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

# --- the documented removal: a member's program keeps its capabilities -----------
# the program says its own pid: $! would be the shell that runs as()
piddir=$(mktemp -d)
chown rtaudio "$piddir"
# shellcheck disable=SC2016 # $$ and $0 are the inner shell's
as rtaudio sh -c 'echo $$ >"$0"; exec sleep 600' "$piddir/pid" &
wait_until 120 test -s "$piddir/pid"
held=$(cat "$piddir/pid" 2>/dev/null)
wait_until 120 sh -c "grep -q '^CapEff:.*804000' /proc/$held/status"
check_eq "a member's program has CAP_SYS_NICE and CAP_IPC_LOCK before the removal" 0000000000804000 \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$held/status")"
timed "the documented removal (rmmod, dkms remove, the files)" system_uninstall
check "realtime is unloaded" sh -c '! test -d /sys/module/realtime'
check "/etc/modules-load.d and /etc/modprobe.d have no realtime.conf" \
	sh -c '! test -e /etc/modules-load.d/realtime.conf && ! test -e /etc/modprobe.d/realtime.conf'
check_eq "a member's program started before keeps CAP_SYS_NICE and CAP_IPC_LOCK" 0000000000804000 \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/$held/status")"
kill "$held" 2>/dev/null
check "dkms status knows no realtime" sh -c '[ -z "$(dkms status realtime)" ]'
check_eq "no realtime.ko is left under /lib/modules/*/{updates,extra}" "" \
	"$(find /lib/modules/*/updates /lib/modules/*/extra -name 'realtime.ko*' 2>/dev/null)"
check "no /var/lib/dkms/realtime" sh -c '! test -e /var/lib/dkms/realtime'
check "modinfo realtime finds nothing" sh -c '! modinfo realtime >/dev/null 2>&1'
check_eq "the removal leaves none of the installed files" "" "$(system_leftovers)"
check "nor the dkms source tree" sh -c "! test -e '$src'"
finish
