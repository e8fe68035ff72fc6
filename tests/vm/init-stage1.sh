#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# /init of the VM tier's initramfs (busybox sh, PID 1). Loads the virtio, 9p
# and overlay modules, mounts the host's / read-only over 9p (tag hostroot)
# under a tmpfs overlay, and switch_roots into tests/vm/init-stage2.sh of the
# source tree, whose path the host passes as rt.stage2= on the command line.
# With rt.upper=vda (run-vm.sh, "# vm-persistent-root:") the overlay's upper
# layer is the ext4 filesystem of that virtio disk instead, which the host
# keeps across the guest's reboots.

/bin/busybox --install -s /bin
export PATH=/bin

die()
{
	echo "RT-VM-STAGE1-FAILED: $*"
	echo o >/proc/sysrq-trigger
	sleep 10
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

stage2=
upper=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	rt.stage2=*) stage2=${arg#rt.stage2=} ;;
	rt.upper=*) upper=${arg#rt.upper=} ;;
	esac
done

orders=/modules/order
[ -n "$upper" ] && orders="$orders /modules/order-disk"
for order in $orders; do
	while read -r _ mod; do
		insmod "/modules/$mod" || die "insmod $mod"
	done <"$order"
done

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower ||
	die "mount of the host root over 9p"
if [ -n "$upper" ]; then
	n=0
	while [ ! -b "/dev/$upper" ] && [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	mount -t ext4 "/dev/$upper" /upper || die "mount of the upper layer's disk /dev/$upper"
else
	mount -t tmpfs -o mode=0755,size=50% tmpfs /upper || die "tmpfs"
fi
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /newroot ||
	die "overlay mount"
[ -f "/newroot$stage2" ] || die "no stage 2 script at '$stage2'"
# The overlay's two layers stay visible at /rt-layers/lower (the host's root)
# and /rt-layers/upper (data/: what the guest changed since the first boot),
# where the vm-system tier compares the guest's files before an install and
# after the purge (system-lib.sh, system_files) without reading the whole
# root over 9p.
mkdir -p /newroot/rt-layers/lower /newroot/rt-layers/upper &&
	mount -o move /lower /newroot/rt-layers/lower &&
	mount -o move /upper /newroot/rt-layers/upper || die "cannot move the overlay's layers"

umount /proc /sys
umount /dev
exec switch_root /newroot /bin/sh "$stage2"
