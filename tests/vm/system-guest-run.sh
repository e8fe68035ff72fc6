#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ExecStart of rt-vm-guest.service in the vm-system tier (init-system.sh
# writes the unit): runs the guest scripts as root under systemd, one after
# another (stage-lib.sh, run_guest_scripts: each in its own cgroup below the
# service's, which delegates them, and its own mount namespace), with the run
# directory's env, and powers the guest off. A script that passed and asked
# for another boot (system_reboot, system-lib.sh) gets a real reboot instead:
# run-vm.sh boots the guest again with the same disk, and the script runs
# again, then the ones after it.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
# shellcheck disable=SC1091
. /rt-run/env

echo "RT-VM-GUEST-START (kernel $(uname -r), $(nproc) cpus, systemd $(systemctl --version | head -n 1), boot took $(cut -d' ' -f1 /proc/uptime)s)"
# shellcheck disable=SC1091
. "$RT_VM_HERE/stage-lib.sh"
if run_guest_scripts; then
	echo "RT-VM-GUEST-REBOOT"
	# A clean shutdown, as an admin's reboot: --no-block, since this
	# service is one of the units the shutdown stops.
	systemctl --no-block reboot
	exit 0
fi
# At once: nothing of the test is left to save, and a clean shutdown of
# systemd under TCG takes long.
systemctl poweroff -ff
