#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Stage 2 of the vm-system tier (run-vm.sh --system): PID 1 for a moment on
# the host's userspace (read-only 9p + tmpfs overlay), then systemd. Mounts
# the run directory that the host shares read-write (tag rtrun) at /rt-run,
# masks the units that cannot work in the guest or would only slow its boot,
# adds rt-vm-guest.service (which runs the guest scripts as root once
# multi-user.target is reached, each in a cgroup of its own below the
# service's, and powers off), and
# execs systemd as PID 1. Everything written here lives in the overlay and is
# gone at power-off.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

die()
{
	echo "RT-VM-STAGE2-FAILED: $*"
	echo o >/proc/sysrq-trigger
	while :; do :; done
}

mount -t proc -o nosuid,nodev,noexec proc /proc
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
mount -t devtmpfs -o mode=0755,nosuid devtmpfs /dev
mkdir -p /rt-run
mount -t 9p -o trans=virtio,version=9p2000.L,rw rtrun /rt-run ||
	die "cannot mount the run directory (tag rtrun)"
# The host boots the VM again if the kernel crashed before this mark.
: >/rt-run/started
# shellcheck disable=SC1091
. /rt-run/env
# shellcheck disable=SC1091
. "${0%/*}/stage-lib.sh"
fresh_tmp_dirs /run /tmp /var/tmp

# The host's own services and timers have no business here (a database, apt,
# fstrim); nor have gettys on the console the test output goes to, a clock
# sync without a network, or pstore.
for unit in postgresql.service e2scrub_reap.service systemd-timesyncd.service \
	systemd-pstore.service getty@tty1.service serial-getty@ttyS0.service \
	console-getty.service systemd-networkd-wait-online.service \
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
	fstrim.timer man-db.timer systemd-tmpfiles-clean.timer remote-fs.target \
	systemd-firstboot.service systemd-udev-settle.service; do
	ln -sf /dev/null "/etc/systemd/system/$unit"
done
# The host may be a container image: its /usr/sbin/policy-rc.d (exit 101)
# forbids every start, stop and restart a package's scripts ask for, and
# docker-clean keeps apt from caching its package lists (each apt-get run
# then parses them again: a minute under TCG). A booted Debian has neither,
# and the vm-system tier installs packages as on one.
rm -f /usr/sbin/policy-rc.d /etc/apt/apt.conf.d/docker-clean
# Nor does it need man-db's index (mandb rereads every manual page after
# each install of a package with one: minutes under TCG).
rm -f /var/lib/man-db/auto-update
echo rt-vm >/etc/hostname
# A fresh machine id for this boot (systemd writes one into the overlay).
: >/etc/machine-id

cat >/etc/systemd/system/rt-vm-guest.service <<EOF
[Unit]
Description=realtimed vm-system guest script
After=multi-user.target dbus.service systemd-logind.service

[Service]
Type=oneshot
ExecStart=/bin/sh $RT_VM_HERE/system-guest-run.sh
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
Delegate=yes
EOF
mkdir -p /etc/systemd/system/multi-user.target.wants
ln -sf ../rt-vm-guest.service /etc/systemd/system/multi-user.target.wants/rt-vm-guest.service

umount /dev 2>/dev/null
# Every mount shared, as systemd makes them where it mounts the root itself:
# a guest script's own mount namespace (enter-script.sh, a slave) then
# sees what systemd mounts later, a user's /run/user/UID.
mount --make-rshared /
exec /lib/systemd/systemd
