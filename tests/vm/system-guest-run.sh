#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ExecStart of rt-vm-guest.service in the vm-system tier (init-system.sh
# writes the unit): runs the guest script as root under systemd, with the
# run directory's env, writes its exit code to /rt-run/rc and powers the
# guest off. A kernel oops or warning during the script is a failure, as in
# the vm tier. A script that passed and asked for another boot
# (system_reboot, system-lib.sh) gets a real reboot instead, and no exit code
# yet: run-vm.sh boots the guest again with the same disk.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
# shellcheck disable=SC1091
. /rt-run/env

echo "RT-VM-GUEST-START $GUEST_SCRIPT (boot ${RT_VM_BOOT:-1}, kernel $(uname -r), $(nproc) cpus, systemd $(systemctl --version | head -n 1), boot took $(cut -d' ' -f1 /proc/uptime)s)"
# shellcheck disable=SC1091
. "$RT_VM_HERE/stage-lib.sh"
run_guest_script
# shellcheck disable=SC2154 # rc: set by run_guest_script
if [ "$rc" = 0 ] && [ -f /rt-run/reboot ]; then
	echo "RT-VM-GUEST-REBOOT after boot ${RT_VM_BOOT:-1}"
	# A clean shutdown, as an admin's reboot: --no-block, since this
	# service is one of the units the shutdown stops.
	systemctl --no-block reboot
	exit 0
fi
if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
	echo "---- journal of the failed run (last 60 lines) ----"
	journalctl -b --no-pager -n 60 -o short-monotonic
fi
write_rc
# At once: nothing of the test is left to save, and a clean shutdown of
# systemd under TCG takes long.
systemctl poweroff -ff
