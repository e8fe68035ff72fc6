#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Starts one guest script of the VM tier in its own cgroup and mount
# namespace (stage-lib.sh's run_guest_script runs it under timeout):
# enters CGROUP, unshares the mount namespace (mounts from outside still
# reach it: systemd's /run/user/UID in the vm-system tier), and in the
# busybox tier gives the script a fresh /run, /tmp, /var/tmp and /dev/shm
# and a layer of its own over /etc, so that what it writes there (test
# users, PAM stacks) is gone for the next script. Then execs the script
# from /tmp.
#
# usage: enter-script.sh CGROUP|"" SCRIPT

cg=$1
script=$2
if [ -z "${RT_VM_IN_NS:-}" ]; then
	if [ -n "$cg" ] && ! echo $$ >"$cg/cgroup.procs"; then
		echo "RT-VM: cannot enter the cgroup $cg"
	fi
	RT_VM_IN_NS=1 exec unshare -m --propagation slave -- /bin/sh "$0" "$@"
	echo "RT-VM: unshare -m failed"
	exit 1
fi
unset RT_VM_IN_NS

if [ "${RT_VM_SYSTEM:-0}" != 1 ]; then
	# shellcheck disable=SC1091
	. "$RT_VM_HERE/stage-lib.sh"
	fresh_tmp_dirs /run /tmp /var/tmp /dev/shm
	mkdir -p /run/lock /run/user /run/rt-vm-etc/upper /run/rt-vm-etc/work
	mount -t overlay -o lowerdir=/etc,upperdir=/run/rt-vm-etc/upper,workdir=/run/rt-vm-etc/work overlay /etc ||
		echo "RT-VM: no layer of its own over /etc: what the script writes there stays for the next"
fi
cd /tmp || exit 1
if [ -x "$script" ]; then
	exec "$script"
fi
exec /bin/sh "$script"
