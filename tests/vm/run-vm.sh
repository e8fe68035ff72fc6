#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The VM tier's runner: boots Debian's kernel in QEMU with the host's own /
# mounted read-only over 9p plus a tmpfs overlay, runs one guest script there
# as real root (every capability), and exits with the script's exit code
# (0 pass, 77 skip). A kernel panic, a kernel warning or oops during the
# script, or a timeout is a failure, reported with the console's tail.
#
# usage: run-vm.sh [--kernel VMLINUZ] [--initramfs CPIO] [--kver KVER]
#                  [--kernel-package PACKAGE] [--timeout SEC] [--system]
#                  GUEST_SCRIPT
#
# The kernel: --kernel, else /boot/vmlinuz-KVER, else the one the Debian
# meta-package PACKAGE depends on (default linux-image-amd64; see
# kernel-of.sh), never merely the newest one installed. Without --initramfs
# one is built for it here.
#
# Environment: TOP_SRCDIR, TOP_BUILDDIR (the same paths inside the guest,
# read-only there; the guest also gets RT_KO, the build's realtime.ko for
# the booted kernel, see below); VM_ACCEL (tcg by default: KVM hangs on
# some hosts; "kvm" to try it), VM_MEM (MiB, default 1024), VM_SMP (default 2), VM_QEMU_ARGS
# (more QEMU arguments, e.g. "-icount shift=0" for timing), VM_PASS_ENV
# (names of more variables to hand to the guest script), VM_KEEP=1 (keep
# the run directory with console.log).
#
# A guest script may ask for more QEMU arguments with a comment line
# "# vm-qemu-args: ARGS", for a boot without threadirqs (to see which
# kernels thread their IRQs anyway: PREEMPT_RT) with a line
# "# vm-no-threadirqs", and with "# vm-smp: host" for as many vCPUs as
# the host has CPUs (at most 8) unless VM_SMP says otherwise: work that
# parallelizes in the guest (dkms's make -j) then goes faster on a larger
# host.
#
# A --system guest script with a line "# vm-persistent-root: MIB" gets a
# writable layer that survives a reboot: an ext4 disk image of MIB MiB made
# here, the overlay's upper layer instead of a tmpfs. When the script ends
# with system_reboot (system-lib.sh), the guest reboots for real (systemctl
# reboot), QEMU ends (-no-reboot), and the same kernel boots again here with
# the same disk; RT_VM_BOOT (1, 2, ...) tells the script which boot it is in.
# The script's --timeout is for all its boots together.
#
# --system (the vm-system tier): systemd is PID 1 instead (init-system.sh),
# and the guest script runs from a service once multi-user.target is
# reached (system-guest-run.sh). Before the boot, the build is installed
# here with `meson install --destdir` into the run directory, which the
# guest sees as /rt-run/destdir (RT_DESTDIR) to lay onto its root.
#
# Inside the guest: PID 1 is a shell (no systemd, no udev: start what you
# need, modprobe what you need); /proc, /sys, /dev, /run, /tmp, /var/tmp are
# fresh (the host's /tmp is not visible, so keep guest scripts and what they
# run in the source or build tree, which are kept visible at their paths even
# under /tmp); /etc and everything else is the host's,
# writable through the overlay, changes lost at power-off. The guest's
# stdin is /dev/null; its stdout and stderr go to the console, which this
# script prints. tests/vm/lib.sh has check helpers and the test users.
set -u

here=$(cd "$(dirname "$0")" && pwd)
kernel=
initramfs=
kver=
kpkg=
timeout=300
system=0

while [ $# -gt 1 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initramfs) initramfs=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--kernel-package) kpkg=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--system) system=1; shift ;;
	*) break ;;
	esac
done
if [ $# -ne 1 ]; then
	echo "usage: $0 [--kernel VMLINUZ] [--initramfs CPIO] [--kver KVER] [--kernel-package PACKAGE] [--timeout SEC] [--system] GUEST_SCRIPT" >&2
	exit 2
fi
guest=$(realpath "$1")
: "${TOP_SRCDIR:=$(realpath "$here/../..")}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
TOP_SRCDIR=$(realpath "$TOP_SRCDIR")
TOP_BUILDDIR=$(realpath "$TOP_BUILDDIR")

skip()
{
	echo "SKIP: $*"
	exit 77
}

qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 not found: install qemu-system-x86"
[ "$(uname -m)" = x86_64 ] || skip "the VM tier boots an x86_64 kernel; this is $(uname -m)"

if [ -z "$kernel" ]; then
	if [ -z "$kver" ]; then
		kver=$("$here/kernel-of.sh" "${kpkg:-linux-image-amd64}")
		[ -n "$kver" ] || skip "${kpkg:-linux-image-amd64} is not installed: apt-get install ${kpkg:-linux-image-amd64}"
	fi
	kernel=/boot/vmlinuz-$kver
fi
[ -n "$kernel" ] && [ -f "$kernel" ] || skip "no kernel image $kernel: install linux-image-amd64"
[ -r "$kernel" ] || skip "$kernel is not readable (run the vm tier as root)"
[ -n "$kver" ] || kver=${kernel##*/vmlinuz-}
[ -d "/lib/modules/$kver" ] || skip "/lib/modules/$kver missing: the kernel's modules must be installed"

run=$(mktemp -d "${TMPDIR:-/tmp}/rt-vm.XXXXXX") || exit 1
cleanup()
{
	if [ "${VM_KEEP:-0}" = 1 ]; then
		echo "run directory kept: $run"
	else
		rm -rf "$run"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -z "$initramfs" ]; then
	"$here/mkinitramfs.sh" "$kver" "$here/init-stage1.sh" "$run/initramfs.cpio" || exit 1
	initramfs=$run/initramfs.cpio
fi

stage2=$here/init-stage2.sh
systemd_args=
if [ "$system" = 1 ]; then
	[ -x /lib/systemd/systemd ] || skip "systemd is not installed: apt-get install systemd"
	command -v meson >/dev/null || skip "meson is not installed"
	[ -f "$TOP_BUILDDIR/meson-private/install.dat" ] || skip "$TOP_BUILDDIR is not a meson build tree"
	# What a package would ship: the build's own install, in a staging tree.
	if ! meson install -C "$TOP_BUILDDIR" --no-rebuild --quiet --destdir "$run/destdir" >"$run/install.log" 2>&1; then
		echo "FAIL: meson install --destdir failed:"
		cat "$run/install.log"
		exit 1
	fi
	stage2=$here/init-system.sh
	# quiet keeps systemd's status lines to errors; the guest service's
	# output still reaches the console.
	systemd_args="systemd.unit=multi-user.target systemd.show_status=false"
	# A systemd boot under TCG takes minutes on a loaded host (4 seen with
	# the load at 15 on 2 CPUs): more time for it, none taken from the
	# script's --timeout.
	boot_allowance=300
	persist=$(sed -n 's/^# vm-persistent-root: *//p' "$guest")
fi
disk_args=
if [ -n "${persist:-}" ]; then
	command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 not found: install e2fsprogs"
	truncate -s "${persist}M" "$run/upper.img" &&
		mkfs.ext4 -q -F -L rt-upper "$run/upper.img" || exit 1
	disk_args="-drive file=$run/upper.img,format=raw,if=none,id=upper,cache=unsafe -device virtio-blk-pci,drive=upper"
	systemd_args="$systemd_args rt.upper=vda"
fi

# Values reach the guest through a shell file on the shared run directory:
# quote each one for sh.
quote()
{
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# RT_KO: realtime.ko for the kernel that boots, realtime-KVER.ko where the
# build made one for it (kmod/meson.build), else realtime.ko when that was
# built for KVER; empty when none was, and the guest scripts say so.
rt_ko=
if [ -f "$TOP_BUILDDIR/kmod/realtime-$kver.ko" ]; then
	rt_ko=$TOP_BUILDDIR/kmod/realtime-$kver.ko
elif [ "$(modinfo -F vermagic "$TOP_BUILDDIR/kmod/realtime.ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ]; then
	rt_ko=$TOP_BUILDDIR/kmod/realtime.ko
fi
{
	echo "export TOP_SRCDIR=$(quote "$TOP_SRCDIR")"
	echo "export TOP_BUILDDIR=$(quote "$TOP_BUILDDIR")"
	echo "export GUEST_SCRIPT=$(quote "$guest")"
	echo "export GUEST_TIMEOUT=$(quote "$timeout")"
	echo "export RT_VM_HERE=$(quote "$here")"
	echo "export RT_DESTDIR=/rt-run/destdir"
	echo "export RT_VM_BOOT=1"
	echo "export RT_KO=$(quote "$rt_ko")"
	for name in ${VM_PASS_ENV:-}; do
		eval "isset=\${$name+x}"
		# shellcheck disable=SC2154
		[ -n "$isset" ] || continue
		eval "value=\$$name"
		# shellcheck disable=SC2154
		echo "export $name=$(quote "$value")"
	done
} >"$run/env"

accel=${VM_ACCEL:-tcg}
case "$accel" in
kvm)
	if [ ! -w /dev/kvm ]; then
		echo "VM_ACCEL=kvm but /dev/kvm is not usable; using tcg"
		accel=tcg
	fi
	;;
esac
cpu=max
[ "$accel" = kvm ] && cpu=host

extra="$(sed -n 's/^# vm-qemu-args: *//p' "$guest" | tr '\n' ' ') ${VM_QEMU_ARGS:-}"
threadirqs=threadirqs
grep -q '^# vm-no-threadirqs$' "$guest" && threadirqs=""
smp=${VM_SMP:-2}
if [ -z "${VM_SMP:-}" ] && grep -q '^# vm-smp: host' "$guest"; then
	smp=$(nproc)
	[ "$smp" -le 8 ] || smp=8
fi

# A guest kernel sometimes oopses while it boots under TCG (seen with 6.12:
# "int3" in sched_clock_cpu while PID 0 patches its own code), long before
# anything of this project runs. Stage 2 marks its start in the run
# directory; a crash before that mark is the emulator's, not the test's, so
# the VM boots again, at most twice, and says so. A crash after the mark
# stays a failure.
boot_vm()
{
	echo "booting $kernel ($accel) for $guest"
	# no_timer_check: under TCG on a loaded host the IO-APIC timer check
	# can miss its ticks and panic at boot; nowatchdog: nor are slow vCPUs
	# lockups. The host side gives the guest its own timeout plus time to
	# boot and halt.
	# shellcheck disable=SC2086
	timeout -k 10 $((boot_timeout + ${boot_allowance:-120})) "$qemu" \
		-name rt-vm -machine q35 -accel "$accel" -cpu "$cpu" \
		-smp "$smp" -m "${VM_MEM:-1024}" \
		-nodefaults -no-user-config -display none -no-reboot \
		-chardev file,id=con,path="$run/console.log" -serial chardev:con \
		-kernel "$kernel" -initrd "$initramfs" \
		-append "console=ttyS0 quiet loglevel=4 $threadirqs panic=-1 no_timer_check nowatchdog rt.stage2=$stage2 $systemd_args" \
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
		-fsdev local,id=run,path="$run",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=run,mount_tag=rtrun \
		-device virtio-rng-pci \
		$disk_args $extra </dev/null
}

start=$(date +%s)
attempt=1
boot=1
boot_timeout=$timeout
while :; do
	rm -f "$run/started"
	boot_vm
	qrc=$?
	# The guest asked for another boot (system_reboot): the same disk, the
	# rest of the script's time.
	if [ ! -f "$run/rc" ] && [ -f "$run/reboot" ] && [ -n "$disk_args" ] && [ "$boot" -lt 3 ]; then
		rm -f "$run/reboot"
		mv "$run/console.log" "$run/console.reboot$boot.log"
		boot=$((boot + 1))
		boot_timeout=$((timeout - ($(date +%s) - start)))
		[ "$boot_timeout" -gt 60 ] || boot_timeout=60
		printf 'export RT_VM_BOOT=%s\nexport GUEST_TIMEOUT=%s\n' "$boot" "$boot_timeout" >>"$run/env"
		echo "the guest rebooted after $(($(date +%s) - start))s; boot $boot of the same disk:"
		continue
	fi
	if [ -f "$run/rc" ] || [ -f "$run/started" ] || [ "$attempt" -ge 3 ] ||
		! grep -q -e 'Kernel panic' -e 'Oops' "$run/console.log" 2>/dev/null; then
		break
	fi
	echo "the guest kernel crashed while booting, before the test began (boot $attempt of 3); booting again:"
	grep -m 3 -e 'Oops' -e 'RIP:' -e 'Kernel panic' "$run/console.log" | tr -d '\r'
	mv "$run/console.log" "$run/console.boot$attempt.log"
	attempt=$((attempt + 1))
done
elapsed=$(($(date +%s) - start))

if [ ! -f "$run/rc" ]; then
	echo "FAIL: the VM ended without a result after ${elapsed}s (qemu exit $qrc; 124/137 = host timeout)."
	if grep -q 'Kernel panic' "$run/console.log" 2>/dev/null; then
		echo "The guest kernel panicked."
	fi
	echo "---- guest console (last 80 lines) ----"
	tail -n 80 "$run/console.log" 2>/dev/null | tr -d '\r'
	exit 1
fi
rc=$(cat "$run/rc")
# The serial console ends lines with CR LF. Earlier boots first.
for log in "$run"/console.reboot*.log "$run/console.log"; do
	[ -f "$log" ] && tr -d '\r' <"$log"
done
echo "VM run took ${elapsed}s; guest script exit code $rc"
case "$rc" in
0 | 77) exit "$rc" ;;
*) exit 1 ;;
esac
