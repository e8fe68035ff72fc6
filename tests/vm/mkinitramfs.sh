#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the VM tier's initramfs: a static busybox, the virtio/9p/overlay
# modules of kernel KVER (and those of a virtio ext4 disk, loaded only when
# run-vm.sh gives the guest one), and init-stage1.sh as /init. The initramfs
# only mounts the host's / (read-only 9p) under a tmpfs (or disk) overlay and
# switch_roots into it; everything else runs from the host's own userspace.
#
# usage: mkinitramfs.sh KVER INIT_SCRIPT OUTPUT
set -eu

kver=$1
init=$2
out=$3
moddir=/lib/modules/$kver

# insmod order: each module after what it depends on.
modules="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
netfs fscache 9pnet 9pnet_virtio 9p overlay"
# The overlay's upper layer on a virtio disk (run-vm.sh, "# vm-persistent-root:"):
# ext4 asks the crypto API for crc32c at mount time, and there is no modprobe
# here to load it on demand.
disk_modules="virtio_blk crc16 mbcache jbd2 crc32c_generic ext4"

busybox=$(command -v busybox || true)
if [ -z "$busybox" ] || ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
	for b in /bin/busybox /usr/bin/busybox; do
		[ -x "$b" ] && busybox=$b && break
	done
fi
if [ -z "$busybox" ]; then
	echo "mkinitramfs: no busybox found: install busybox-static" >&2
	exit 1
fi
if [ ! -d "$moddir" ]; then
	echo "mkinitramfs: $moddir missing: install linux-image-$kver" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rt-initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/bin" "$tmp/modules" "$tmp/dev" "$tmp/proc" "$tmp/sys" \
	"$tmp/lower" "$tmp/upper" "$tmp/newroot"
cp "$busybox" "$tmp/bin/busybox"
ln -s busybox "$tmp/bin/sh"
cp "$init" "$tmp/init"
chmod 0755 "$tmp/init"

# add_module LIST M: copies module M into the initramfs and appends it to
# modules/LIST, the insmod order.
n=0
add_module()
{
	m=$2
	path=$(awk -v m="$m" -F: '{ f = $1; sub(".*/", "", f); sub("\\.ko.*$", "", f);
		gsub("-", "_", f); if (f == m) { print $1; exit } }' "$moddir/modules.dep")
	if [ -z "$path" ]; then
		# Built into this kernel (6.12 builds in virtio), or merged into
		# another module (6.12's netfs holds fscache): nothing to load.
		grep -q "/$m\.ko" "$moddir/modules.builtin" 2>/dev/null ||
			echo "mkinitramfs: $kver has no module $m; going on without it" >&2
		return 0
	fi
	case "$path" in
	*.ko) cp "$moddir/$path" "$tmp/modules/" ;;
	*.ko.xz) xz -dc "$moddir/$path" >"$tmp/modules/$m.ko" ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$tmp/modules/$m.ko" ;;
	*.ko.gz) gzip -dc "$moddir/$path" >"$tmp/modules/$m.ko" ;;
	esac
	n=$((n + 1))
	printf '%02d %s\n' "$n" "$(basename "${path%%.ko*}").ko" >>"$tmp/modules/$1"
}
for m in $modules; do
	add_module order "$m"
done
: >"$tmp/modules/order-disk"
for m in $disk_modules; do
	add_module order-disk "$m"
done

(cd "$tmp" && find . | LC_ALL=C sort | "$busybox" cpio -o -H newc 2>/dev/null) >"$out.tmp"
mv "$out.tmp" "$out"
