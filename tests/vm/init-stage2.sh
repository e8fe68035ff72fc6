#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# PID 1 inside the VM, on the host's userspace (read-only 9p + tmpfs overlay).
# Mounts the API filesystems afresh, mounts the run directory that the host
# shares read-write (tag rtrun: env, the list of scripts, their logs and
# exit codes), runs the guest scripts one after another as real root with
# every capability (stage-lib.sh, run_guest_scripts), and powers off.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

mount -t proc -o nosuid,nodev,noexec proc /proc
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
mount -t devtmpfs -o mode=0755,nosuid devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /dev/pts
mount -t tmpfs -o nosuid,nodev tmpfs /dev/shm
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hostname rt-vm
ip link set lo up 2>/dev/null

# reboot(2) at once (busybox -f); sysrq as the fallback. Nothing after
# this may need the 9p root, which goes away with the VM.
poweroff_now()
{
	sync
	busybox poweroff -f 2>/dev/null
	echo o >/proc/sysrq-trigger
	while :; do :; done
}

mkdir -p /rt-run
if ! mount -t 9p -o trans=virtio,version=9p2000.L,rw rtrun /rt-run; then
	echo "RT-VM-STAGE2-FAILED: cannot mount the run directory (tag rtrun)"
	poweroff_now
fi
# The host boots the VM again if the kernel crashed before this mark.
: >/rt-run/started
# shellcheck disable=SC1091
. /rt-run/env

# /run, /tmp and /var/tmp are fresh, with the source and build trees kept
# visible at their paths.
# shellcheck disable=SC1091
. "${0%/*}/stage-lib.sh"
fresh_tmp_dirs /run /tmp /var/tmp
mkdir -p /run/lock /run/user

echo "RT-VM-GUEST-START (kernel $(uname -r), $(nproc) cpus, booted in $(cut -d' ' -f1 /proc/uptime)s)"
run_guest_scripts
umount /rt-run
poweroff_now
