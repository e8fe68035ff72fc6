#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-system-dkms: realtime.ko through DKMS on a systemd-booted guest, from the
# sources `meson install` put in /usr/src/realtime-VERSION: dkms add, build
# and install for the guest's kernel, modprobe, the sysctls with the module's
# defaults, and the settings realtime.ko(4) documents for every boot
# (/etc/modules-load.d, /etc/modprobe.d) applied by systemd's own boot unit,
# systemd-modules-load.service: restarted with the module unloaded, it does
# what it does at boot (no second boot: -no-reboot ends the VM, and the
# overlay is a tmpfs). Then dkms remove leaves nothing behind.

. "$TOP_SRCDIR/tests/vm/lib.sh"
. "$TOP_SRCDIR/tests/vm/system-lib.sh"

[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is not systemd (run through run-vm.sh --system)"
command -v dkms >/dev/null || skip "dkms is not installed: apt-get install dkms"
kver=$(uname -r)
[ -f "/lib/modules/$kver/build/Makefile" ] || skip "no headers for $kver: apt-get install linux-headers-$kver"
grep -q '^CONFIG_KPROBES=y' "/boot/config-$kver" 2>/dev/null || skip "$kver has no kprobes"
add_test_users

system_install
src=$(ls -d /usr/src/realtime-* 2>/dev/null | head -n 1)
check "meson install put the dkms sources in /usr/src/realtime-VERSION" test -f "$src/dkms.conf"
ver=${src##*/realtime-}

check "dkms add realtime/$ver" dkms add "realtime/$ver"
check "dkms build realtime/$ver -k $kver" dkms build "realtime/$ver" -k "$kver"
check "dkms install realtime/$ver -k $kver" dkms install "realtime/$ver" -k "$kver"
check_eq "dkms status" "realtime/$ver, $kver, x86_64: installed" "$(dkms status realtime | head -n 1)"
ko=$(modinfo -n realtime 2>/dev/null)
case "$ko" in
"/lib/modules/$kver/updates/dkms/realtime.ko"*) echo "ok - modinfo finds dkms's realtime.ko ($ko)" ;;
*)
	echo "FAIL - modinfo realtime: '$ko'"
	rt_failures=$((rt_failures + 1))
	;;
esac

check "modprobe realtime" modprobe realtime
for s in any gid mlock; do
	check "sysctl security.realtime.$s exists" test -f "/proc/sys/security/realtime/$s"
done
check_eq "the seed's defaults any gid mlock" "0 -1 1" \
	"$(cat /proc/sys/security/realtime/any /proc/sys/security/realtime/gid /proc/sys/security/realtime/mlock | tr '\n' ' ' | sed 's/ $//')"

# The boot-time settings of realtime.ko(4), EXAMPLES.
echo realtime >/etc/modules-load.d/realtime.conf
echo "options realtime gid=29 mlock=2" >/etc/modprobe.d/realtime.conf
check "rmmod realtime" rmmod realtime
systemctl restart systemd-modules-load.service
check "systemd-modules-load loaded realtime from /etc/modules-load.d" test -d /sys/module/realtime
check_eq "with /etc/modprobe.d's options: gid mlock" "29 2" \
	"$(cat /proc/sys/security/realtime/gid /proc/sys/security/realtime/mlock | tr '\n' ' ' | sed 's/ $//')"
check_eq "an audio member's exec gets CAP_SYS_NICE and CAP_IPC_LOCK" 0000000000804000 \
	"$(as rtaudio grep CapEff /proc/self/status | awk '{ print $2 }')"
check_eq "a non-member's exec gets nothing" 0000000000000000 \
	"$(as rtplain grep CapEff /proc/self/status | awk '{ print $2 }')"

# --- dkms remove --------------------------------------------------------------
rm -f /etc/modules-load.d/realtime.conf /etc/modprobe.d/realtime.conf
check "rmmod realtime before the removal" rmmod realtime
check "dkms remove realtime/$ver --all" dkms remove "realtime/$ver" --all
check "dkms status knows no realtime" sh -c '[ -z "$(dkms status realtime)" ]'
check_eq "no realtime.ko is left under /lib/modules/*/{updates,extra}" "" \
	"$(find /lib/modules/*/updates /lib/modules/*/extra -name 'realtime.ko*' 2>/dev/null)"
check "no /var/lib/dkms/realtime" sh -c '! test -e /var/lib/dkms/realtime'
check "modinfo realtime finds nothing" sh -c '! modinfo realtime >/dev/null 2>&1'
system_uninstall
check_eq "the removal leaves none of the installed files" "" "$(system_leftovers)"
check "nor the dkms source tree" sh -c "! test -e '$src'"
finish
