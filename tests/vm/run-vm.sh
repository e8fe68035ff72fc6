#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The VM tier's runner: boots Debian's kernel in QEMU with the host's own /
# mounted read-only over 9p plus a tmpfs overlay, and runs the guest scripts
# given, one after another in the same boot, as real root (every
# capability). Prints TAP (meson's protocol 'tap'): one line per script,
# "ok 3 - canary (6.12-rt)", a skip (exit 77) as "# SKIP reason" (from the
# script's "SKIP: reason" line), the script's own output before it as "# "
# comment lines. Exits 0 when it could report every script, else 1.
#
# usage: run-vm.sh [--kernel VMLINUZ] [--initramfs CPIO] [--kver KVER]
#                  [--kernel-package PACKAGE] [--timeout SEC] [--label LABEL]
#                  [--system] GUEST_SCRIPT...
#
# The kernel: --kernel, else /boot/vmlinuz-KVER, else the one the Debian
# meta-package PACKAGE depends on (default linux-image-amd64; see
# kernel-of.sh), never merely the newest one installed. Where it is not
# installed, every script is skipped, with the reason ("1..0 # SKIP ...").
# Without --initramfs one is built for it here. --timeout is each script's
# own (default 420 s; a line "# vm-timeout: SEC" in a script overrides it);
# --label names the kernel in the TAP lines (default: its release).
#
# One boot per group: the scripts are grouped by what their boot must give
# them, in the order given. A line "# vm-no-threadirqs" in a script asks for
# a boot without threadirqs (to see which kernels thread their IRQs anyway:
# PREEMPT_RT), "# vm-qemu-args: ARGS" for more QEMU arguments, "# vm-smp:
# host" for as many vCPUs as the host has CPUs (at most 8) unless VM_SMP
# says otherwise. A line "# vm-sound" gives the boot of the script's group
# the audio tier's devices (tests/vm/AUDIO.md) without making a boot of its
# own: QEMU's Intel HD Audio controller with an output codec, whose sound
# goes to the WAV file sound-hda.wav in the run directory (the guest reads
# it as it grows: RT_VM_SOUND_HDA), a PCI bridge (ACPI hot-plug, no IRQ of
# its own) for a USB controller (qemu-xhci) and a usb-audio device plugged
# in later, whose sound goes to
# sound-usb.wav (RT_VM_SOUND_USB), and QEMU's monitor, which the guest
# reaches through the run directory (vm_monitor in lib.sh) to plug them
# in, and a virtio-blk disk of 2 queues on QEMU's null driver (reads give
# zeros), whose queues' IRQs are managed: shield.sh loads virtio_blk while
# its shield holds. The devices cost a boot nothing until a driver is loaded
# (nothing loads one in the busybox tier but a script). With VM_NET=N (1 or 2) a
# "# vm-sound" boot also gets N virtio NICs on QEMU's user network (slirp),
# the Nth on 10.0.(N+1).0/24, gateway .2, for audio-lib.sh's network
# disturbance (AUDIO_DISTURB=...+net; RT_VM_NET tells the guest N); boots
# without "# vm-sound", and every boot without VM_NET, are as before. Inside a boot, the guest side (stage-lib.sh) runs each
# script in its own cgroup and mount namespace with its own timeout, checks
# the kernel's taint between scripts and puts back what the script changed
# (modules, sched_* and realtime.ko sysctls, leftover processes; the busybox
# tier also gives each a fresh /run, /tmp, /var/tmp, /dev/shm and its own
# layer over /etc).
#
# A kernel crash, or a hang past a script's timeout, fails the script that
# was running; the remaining scripts of the group get a fresh boot. So does
# the rest after a script tainted the kernel (a warning or oops fails that
# script) or left state that could not be put back. A guest kernel that
# crashes while it boots (seen under TCG with 6.12: "int3" in
# sched_clock_cpu), before the first script began, is the emulator's fault,
# not a test's: booted again, at most three times in a row.
#
# Environment: TOP_SRCDIR, TOP_BUILDDIR (the same paths inside the guest,
# read-only there; the guest also gets RT_KO, the build's realtime.ko for
# the booted kernel, see below); VM_ONLY (names of scripts, without .sh,
# separated by spaces or commas: run only these, e.g. VM_ONLY=canary);
# VM_ACCEL (tcg by default: KVM hangs on some hosts; "kvm" to try it),
# VM_MEM (MiB, default 1024), VM_SMP (default 2), VM_QEMU_ARGS (more QEMU
# arguments, e.g. "-icount shift=0" for timing), VM_NET (NICs for a
# "# vm-sound" boot, above), VM_PASS_ENV (names of more
# variables to hand to the guest scripts), VM_KEEP=1 (keep the run directory
# with the console logs and each script's log), RT_DEBS_DIR (--system: the
# packages to test, see below).
#
# --system (the vm-system tier): systemd is PID 1 instead (init-system.sh),
# and the scripts run from a service once multi-user.target is reached
# (system-guest-run.sh). Before the boot, the Debian packages are put in the
# run directory, which the guest sees as /rt-run/debs (RT_DEBS), with the
# same packages at a higher version in its upgrade/: those of RT_DEBS_DIR and
# RT_DEBS_DIR/upgrade (scripts/check builds them), else built here from the
# source tree by scripts/build-debs, without their unit tests. With a line
# "# vm-persistent-root: MIB" in a script the guest gets a writable layer
# that survives a reboot: an ext4 disk image of MIB MiB (the largest asked),
# the overlay's upper layer instead of a tmpfs. A script that ends with
# system_reboot (system-lib.sh) reboots the guest for real (systemctl
# reboot), QEMU ends (-no-reboot), and the same kernel boots again here with
# the same disk; the script runs again from its start, RT_VM_BOOT (1, 2, ...)
# telling it which boot it is in, then the scripts after it.
#
# Inside the guest: PID 1 is a shell (no systemd, no udev: start what you
# need, modprobe what you need); /proc, /sys, /dev, /run, /tmp, /var/tmp are
# fresh (the host's /tmp is not visible, so keep guest scripts and what they
# run in the source or build tree, which are kept visible at their paths even
# under /tmp); /etc and everything else is the host's, writable through the
# overlay, changes lost at power-off. A script's stdin is /dev/null; its
# stdout and stderr go to its log in the run directory, which this runner
# prints. tests/vm/lib.sh has check helpers and the test users.
#
# A VM never outlives its runner: QEMU stays in the runner's process group
# (meson kills that group on a timeout or an interrupt) and dies with the
# runner (PR_SET_PDEATHSIG through setpriv); TERM, INT and HUP kill QEMU and
# remove the run directory at once; and a runner whose parent went away
# (meson killed) does the same within a second.
set -u

here=$(cd "$(dirname "$0")" && pwd)
kernel=
initramfs=
kver=
kpkg=
label=
timeout=420
system=0

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel) kernel=$2; shift 2 ;;
	--initramfs) initramfs=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--kernel-package) kpkg=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--label) label=$2; shift 2 ;;
	--system) system=1; shift ;;
	--) shift; break ;;
	-*) echo "run-vm.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 1 ]; then
	echo "usage: $0 [--kernel VMLINUZ] [--initramfs CPIO] [--kver KVER] [--kernel-package PACKAGE] [--timeout SEC] [--label LABEL] [--system] GUEST_SCRIPT..." >&2
	exit 2
fi
: "${TOP_SRCDIR:=$(realpath "$here/../..")}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
TOP_SRCDIR=$(realpath "$TOP_SRCDIR")
TOP_BUILDDIR=$(realpath "$TOP_BUILDDIR")

# skip_all REASON: the whole group is skipped, as TAP says it.
skip_all()
{
	echo "1..0 # SKIP $*"
	exit 0
}

# The scripts, VM_ONLY applied: one "PATH" a line in $scripts.
scripts=
only=$(printf '%s' "${VM_ONLY:-}" | tr ',' ' ')
for s in "$@"; do
	[ -f "$s" ] || { echo "run-vm.sh: no guest script $s" >&2; exit 2; }
	if [ -n "$only" ]; then
		name=$(basename "$s" .sh)
		case " $only " in
		*" $name "*) ;;
		*) continue ;;
		esac
	fi
	scripts="$scripts$(realpath "$s")
"
done
[ -n "$scripts" ] || skip_all "VM_ONLY='${VM_ONLY:-}' names no script of this group"

qemu=$(command -v qemu-system-x86_64) || skip_all "qemu-system-x86_64 not found: install qemu-system-x86"
[ "$(uname -m)" = x86_64 ] || skip_all "the VM tier boots an x86_64 kernel; this is $(uname -m)"

if [ -z "$kernel" ]; then
	if [ -z "$kver" ]; then
		kver=$("$here/kernel-of.sh" "${kpkg:-linux-image-amd64}")
		[ -n "$kver" ] || skip_all "${kpkg:-linux-image-amd64} is not installed: apt-get install ${kpkg:-linux-image-amd64}"
	fi
	kernel=/boot/vmlinuz-$kver
fi
[ -f "$kernel" ] || skip_all "no kernel image $kernel: install linux-image-amd64"
[ -r "$kernel" ] || skip_all "$kernel is not readable (run the vm tier as root)"
[ -n "$kver" ] || kver=${kernel##*/vmlinuz-}
[ -d "/lib/modules/$kver" ] || skip_all "/lib/modules/$kver missing: the kernel's modules must be installed"
: "${label:=$kver}"
if [ "$system" = 1 ]; then
	[ -x /lib/systemd/systemd ] || skip_all "systemd is not installed: apt-get install systemd"
	if [ -z "${RT_DEBS_DIR:-}" ]; then
		command -v dpkg-buildpackage >/dev/null && [ -x /usr/bin/dh ] && [ -x /usr/bin/dh_dkms ] ||
			skip_all "the Debian packages cannot be built here: apt-get install dpkg-dev debhelper dh-dkms (scripts/deps.sh, RT_PKG_PACKAGES)"
	fi
fi

# --- the run directory, and never a VM without its runner ------------------
run=$(mktemp -d "${TMPDIR:-/tmp}/rt-vm.XXXXXX") || exit 1
qpid=
mon_pid=
stop_vm()
{
	if [ -n "$qpid" ]; then
		kill -KILL "$qpid" 2>/dev/null
		wait "$qpid" 2>/dev/null
		qpid=
	fi
	if [ -n "$mon_pid" ]; then
		kill "$mon_pid" 2>/dev/null
		wait "$mon_pid" 2>/dev/null
		mon_pid=
	fi
}
cleanup()
{
	stop_vm
	if [ "${VM_KEEP:-0}" = 1 ]; then
		echo "# run directory kept: $run"
	else
		rm -rf "$run"
	fi
}
trap cleanup EXIT
# meson sends TERM to the test's process group and KILL half a second later:
# QEMU goes first, then the run directory.
trap 'trap - EXIT; cleanup; exit 143' TERM
trap 'trap - EXIT; cleanup; exit 130' INT
trap 'trap - EXIT; cleanup; exit 129' HUP
parent=$PPID
# orphaned: true when the process that started this runner is gone.
orphaned()
{
	read -r stat <"/proc/$$/stat" || return 1
	stat=${stat##*) }
	stat=${stat#* }
	[ "${stat%% *}" != "$parent" ]
}

mkdir "$run/out" || exit 1
if [ -z "$initramfs" ]; then
	"$here/mkinitramfs.sh" "$kver" "$here/init-stage1.sh" "$run/initramfs.cpio" 2>"$run/mkinitramfs.log" || {
		sed 's/^/# /' "$run/mkinitramfs.log"
		echo "Bail out! cannot build an initramfs for $kver"
		exit 1
	}
	initramfs=$run/initramfs.cpio
fi

# --- the plan: one line "ID BOOTKEY TIMEOUT PATH" per script -----------------
# The boot key groups the scripts whose boots are alike.
# header PATH KEY: the value of the script's "# KEY: VALUE" line.
header()
{
	sed -n "s/^# $2: *//p" "$1" | head -n 1
}
n=0
printf '%s' "$scripts" | while read -r path; do
	n=$((n + 1))
	if [ "$system" = 1 ]; then
		key=system
	else
		key=threadirqs
		grep -q '^# vm-no-threadirqs$' "$path" && key=nothreadirqs
		[ "$(header "$path" vm-smp)" = host ] && key="$key,smp-host"
		extra=$(header "$path" vm-qemu-args | tr -c 'A-Za-z0-9=,.-' _)
		[ -z "$extra" ] || key="$key,$extra"
	fi
	tmo=$(header "$path" vm-timeout)
	printf '%s %s %s %s\n' "$n-$(basename "$path" .sh)" "$key" "${tmo:-$timeout}" "$path"
done >"$run/plan"

# --- the guest's environment -------------------------------------------------
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
# VM_NET: the number of NICs a "# vm-sound" boot gets (0-2)
net=${VM_NET:-0}
case "$net" in
0 | 1 | 2) ;;
*) echo "run-vm.sh: VM_NET=$net: 0, 1 or 2 NICs" >&2; exit 2 ;;
esac
if [ -f "$TOP_BUILDDIR/kmod/realtime-$kver.ko" ]; then
	rt_ko=$TOP_BUILDDIR/kmod/realtime-$kver.ko
elif [ "$(modinfo -F vermagic "$TOP_BUILDDIR/kmod/realtime.ko" 2>/dev/null | cut -d' ' -f1)" = "$kver" ]; then
	rt_ko=$TOP_BUILDDIR/kmod/realtime.ko
fi
{
	echo "export TOP_SRCDIR=$(quote "$TOP_SRCDIR")"
	echo "export TOP_BUILDDIR=$(quote "$TOP_BUILDDIR")"
	echo "export RT_VM_HERE=$(quote "$here")"
	echo "export RT_VM_SYSTEM=$system"
	echo "export RT_DEBS=/rt-run/debs"
	echo "export RT_KO=$(quote "$rt_ko")"
	echo "export RT_VM_SOUND_HDA=/rt-run/sound-hda.wav RT_VM_SOUND_USB=/rt-run/sound-usb.wav"
	[ "$net" = 0 ] || echo "export RT_VM_NET=$net"
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
if [ "$accel" = kvm ] && [ ! -w /dev/kvm ]; then
	echo "# VM_ACCEL=kvm but /dev/kvm is not usable; using tcg"
	accel=tcg
fi
cpu=max
[ "$accel" = kvm ] && cpu=host

systemd_args=
disk_args=
# The longest a boot may go without a script starting or ending: a bare boot
# takes about 10 s under TCG; a systemd boot minutes on a loaded host (4 seen
# with the load at 15 on 2 CPUs).
allowance=120
if [ "$system" = 1 ]; then
	# The Debian packages the guest installs with apt-get (RT_DEBS), and
	# the same packages at a higher version for the upgrade (RT_DEBS/upgrade):
	# RT_DEBS_DIR's (scripts/check builds and lints them), else built here
	# from the source tree without their unit tests.
	mkdir -p "$run/debs/upgrade"
	if [ -n "${RT_DEBS_DIR:-}" ]; then
		cp "$RT_DEBS_DIR"/*.deb "$run/debs/" && cp "$RT_DEBS_DIR"/upgrade/*.deb "$run/debs/upgrade/" || {
			echo "Bail out! RT_DEBS_DIR=$RT_DEBS_DIR has no .deb files, or no upgrade/ with them"
			exit 1
		}
	else
		t0=$(date +%s)
		version=$(dpkg-parsechangelog -l "$TOP_SRCDIR/debian/changelog" -S Version)
		if ! { DEB_BUILD_OPTIONS=nocheck "$TOP_SRCDIR/scripts/build-debs" "$run/debs" &&
			DEB_BUILD_OPTIONS=nocheck "$TOP_SRCDIR/scripts/build-debs" --version "$version+1" \
				"$run/debs/upgrade"; } >"$run/debs.log" 2>&1; then
			sed 's/^/# /' "$run/debs.log"
			echo "Bail out! scripts/build-debs failed"
			exit 1
		fi
		debs_note="# built the packages $version and $version+1 in $(($(date +%s) - t0))s"
	fi
	rm -f "$run"/debs/*-dbgsym_*.deb "$run"/debs/upgrade/*-dbgsym_*.deb
	# quiet keeps systemd's status lines to errors; the guest service's
	# output still reaches the console.
	systemd_args="systemd.unit=multi-user.target systemd.show_status=false"
	allowance=300
	persist=$(cut -d' ' -f4- "$run/plan" | while read -r path; do header "$path" vm-persistent-root; done | sort -n | tail -n 1)
	if [ -n "$persist" ]; then
		command -v mkfs.ext4 >/dev/null || skip_all "mkfs.ext4 not found: install e2fsprogs"
		truncate -s "${persist}M" "$run/upper.img" &&
			mkfs.ext4 -q -F -L rt-upper "$run/upper.img" || exit 1
		disk_args="-drive file=$run/upper.img,format=raw,if=none,id=upper,cache=unsafe -device virtio-blk-pci,drive=upper"
		systemd_args="$systemd_args rt.upper=vda"
	fi
fi

# --- reporting ---------------------------------------------------------------
tap_n=0
# report ID RC [WHY]: the script's log as comments, then its TAP line.
report()
{
	tap_n=$((tap_n + 1))
	name=${1#*-}
	if [ -f "$run/out/$1.log" ]; then
		tr -d '\r' <"$run/out/$1.log" | sed 's/^/# /'
	fi
	case "$2" in
	0) echo "ok $tap_n - $name ($label)" ;;
	77)
		why=$(tr -d '\r' <"$run/out/$1.log" 2>/dev/null | sed -n 's/^SKIP: *//p' | tail -n 1)
		echo "ok $tap_n - $name ($label) # SKIP ${why:-exit 77}"
		;;
	*)
		echo "# $name: ${3:-exit $2}"
		echo "not ok $tap_n - $name ($label)"
		;;
	esac
}

# console_tail N: the last N lines of this boot's console.
console_tail()
{
	echo "---- guest console (last $1 lines) ----"
	tail -n "$1" "$console" 2>/dev/null | tr -d '\r'
}

# --- the audio tier's devices and QEMU's monitor ---------------------------------
# sound_args: the QEMU arguments of a "# vm-sound" boot (see the top of this
# file and tests/vm/AUDIO.md). Each sound card writes 48 kHz stereo 16-bit,
# the format the guest plays, so that QEMU passes the frames on as they
# are; mixer=off: the codec has no volume controls, so no mixer in the
# guest has to be turned up (ALSA starts an HDA codec's muted) and what the
# card is given is what the file gets.
sound_args()
{
	wav=out.frequency=48000,out.channels=2,out.format=s16
	echo "-audiodev wav,id=rt-hda,path=$run/sound-hda.wav,$wav" \
		"-device ich9-intel-hda,id=rt-hda-ctl -device hda-output,audiodev=rt-hda,mixer=off" \
		"-audiodev wav,id=rt-usb,path=$run/sound-usb.wav,$wav" \
		"-device qemu-xhci,id=rt-xhci" \
		"-chardev pipe,id=rt-mon,path=$run/monitor -mon chardev=rt-mon,mode=readline" \
		"-blockdev driver=null-co,node-name=rt-null,size=67108864,read-zeroes=on" \
		"-device virtio-blk-pci,drive=rt-null,num-queues=2"
	# VM_NET's NICs: QEMU's user network has one queue pair (it takes
	# no "queues="), so a second NIC, not mq, is what gives the guest a
	# second RX interrupt to place on its other CPU
	i=1
	while [ "$i" -le "$net" ]; do
		echo "-netdev user,id=rt-net$i,net=10.0.$((i + 1)).0/24" \
			"-device virtio-net-pci,netdev=rt-net$i,mac=52:54:00:12:0$i:56"
		i=$((i + 1))
	done
}

# monitor_start: QEMU's human monitor on two FIFOs (QEMU opens them
# read-write, so neither side blocks), its output copied to monitor.log.
monitor_start()
{
	rm -f "$run/monitor.in" "$run/monitor.out"
	mkfifo "$run/monitor.in" "$run/monitor.out" || return 1
	mkdir -p "$run/monitor.d"
	: >"$run/monitor.log"
	cat "$run/monitor.out" >>"$run/monitor.log" &
	mon_pid=$!
}

# serve_monitor: passes each command a guest script left in the run
# directory (monitor.d/ID.cmd, one line: lib.sh's vm_monitor) to QEMU's
# monitor, and what the monitor answered back (monitor.d/ID.out), once
# its next prompt came (10 s at most).
serve_monitor()
{
	for cmd in "$run"/monitor.d/*.cmd; do
		[ -f "$cmd" ] || continue
		line=$(head -n 1 "$cmd")
		rm -f "$cmd"
		before=$(wc -c <"$run/monitor.log")
		echo "# monitor: $line"
		timeout 5 sh -c 'printf "%s\n" "$1" >"$2"' sh "$line" "$run/monitor.in"
		n=0
		while [ $n -lt 100 ]; do
			tail -c "+$((before + 1))" "$run/monitor.log" | tr -d '\r' | grep -q '^(qemu) ' && break
			sleep 0.1
			n=$((n + 1))
		done
		# without the monitor's echo of the command (its first line, redrawn
		# with escape sequences a character at a time) and its next prompt
		tail -c "+$((before + 1))" "$run/monitor.log" | tr -d '\r' |
			sed '1d; /^(qemu) *$/d' >"${cmd%.cmd}.tmp"
		mv "${cmd%.cmd}.tmp" "${cmd%.cmd}.out"
	done
}

# --- the boots -----------------------------------------------------------------
# boot_vm THREADIRQS SMP EXTRA: starts QEMU in the background (qpid) on this
# group's todo list. no_timer_check: under TCG on a loaded host the IO-APIC
# timer check can miss its ticks and panic at boot; nowatchdog: nor are slow
# vCPUs lockups.
boot_vm()
{
	console=$run/console.$boots.log
	echo "# booting $kernel ($accel, $2 vCPUs${1:+, $1}) for $(wc -l <"$run/todo") script(s); console $console"
	# shellcheck disable=SC2086
	setpriv --pdeathsig KILL -- "$qemu" \
		-name rt-vm -machine q35 -accel "$accel" -cpu "$cpu" \
		-smp "$2" -m "${VM_MEM:-1024}" \
		-nodefaults -no-user-config -display none -no-reboot \
		-chardev file,id=con,path="$console" -serial chardev:con \
		-kernel "$kernel" -initrd "$initramfs" \
		-append "console=ttyS0 quiet loglevel=4 $1 panic=-1 no_timer_check nowatchdog rt.stage2=$stage2 $systemd_args" \
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
		-fsdev local,id=run,path="$run",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=run,mount_tag=rtrun \
		-device virtio-rng-pci \
		$disk_args $3 </dev/null >"$run/qemu.log" 2>&1 &
	qpid=$!
	sound=0
	case " $3 " in
	*" -mon chardev=rt-mon,"*) sound=1 ;;
	esac
}

# next_todo: sets id, tmo and path to the first script of the group's todo
# list not reported yet; false when there is none.
next_todo()
{
	while read -r id _ tmo path; do
		[ -f "$run/out/$id.rc" ] || return 0
	done <"$run/todo"
	return 1
}

# drain: reports, in order, each script whose result the guest wrote
# (ID.done); ID.rc marks it reported.
drain()
{
	while next_todo && [ -f "$run/out/$id.done" ]; do
		rc=$(cat "$run/out/$id.done")
		echo "$rc" >"$run/out/$id.rc"
		report "$id" "$rc"
		last=$(date +%s)
	done
}

# watch: until QEMU ends, reports each script as its result comes, and stops
# a guest that hangs: a script past its timeout (plus the guest's own kill
# margin and a minute), or no script starting or ending for $allowance s.
watch()
{
	last=$(date +%s)
	hung=
	seen=
	while kill -0 "$qpid" 2>/dev/null; do
		if orphaned; then
			trap - EXIT
			cleanup
			exit 1
		fi
		drain
		[ "$sound" = 0 ] || serve_monitor
		now=$(date +%s)
		if next_todo; then
			if [ -f "$run/out/$id.start" ]; then
				[ "$seen" = "$id" ] || { seen=$id; seen_at=$now; }
				if [ $((now - seen_at)) -gt $((tmo + 70)) ]; then
					hung="the guest hung: $id ran past its ${tmo}s timeout and the guest did not end it"
					stop_vm
					break
				fi
			elif [ $((now - last)) -gt "$allowance" ]; then
				hung="the guest hung: no script began for ${allowance}s"
				stop_vm
				break
			fi
		elif [ $((now - last)) -gt 60 ]; then
			# every script reported, and the guest does not power off
			stop_vm
			break
		fi
		sleep 0.5 &
		wait $!
	done
	wait "$qpid" 2>/dev/null
	qrc=$?
	qpid=
	drain
}

# fail_rest WHY: reports every script left as failed.
fail_rest()
{
	while next_todo; do
		echo 1 >"$run/out/$id.rc"
		report "$id" 1 "$1"
	done
}

total=$(wc -l <"$run/plan")
echo "TAP version 13"
echo "1..$total"
[ -z "${debs_note:-}" ] || echo "$debs_note"
start=$(date +%s)
boots=0
stage2=$here/init-stage2.sh
[ "$system" = 1 ] && stage2=$here/init-system.sh
cut -d' ' -f2 "$run/plan" | awk '!seen[$0]++' >"$run/keys"
while read -r key <&3; do
	awk -v k="$key" '$2 == k' "$run/plan" >"$run/todo"
	# what the group's boot gives: its scripts agree on threadirqs and
	# QEMU's arguments (the key); one asking for the host's CPUs gets them
	first=$(head -n 1 "$run/todo" | cut -d' ' -f4-)
	threadirqs=threadirqs
	grep -q '^# vm-no-threadirqs$' "$first" && [ "$system" != 1 ] && threadirqs=
	extra=$(header "$first" vm-qemu-args)
	# sound for the whole group when one of its scripts asks (no boot key:
	# no boot of its own)
	cut -d' ' -f4- "$run/todo" | while read -r path; do
		grep -qx '# vm-sound' "$path" && echo sound
	done | grep -q sound && extra="$extra $(sound_args)"
	smp=${VM_SMP:-2}
	if [ -z "${VM_SMP:-}" ]; then
		cut -d' ' -f4- "$run/todo" | while read -r path; do
			[ "$(header "$path" vm-smp)" != host ] || echo host
		done | grep -q host && smp=$(nproc)
		[ "$smp" -le 8 ] || smp=8
	fi
	failed_boots=0
	while next_todo; do
		boots=$((boots + 1))
		reported=$tap_n
		rm -f "$run/reboot"
		case " $extra " in
		*" -mon chardev=rt-mon,"*) monitor_start || exit 1 ;;
		esac
		boot_vm "$threadirqs" "$smp" "$extra ${VM_QEMU_ARGS:-}"
		watch
		stop_vm
		next_todo || break
		if [ -f "$run/out/$id.reboot" ]; then
			# the script asked for another boot (system_reboot): the same
			# disk, and it runs again from its start
			rm -f "$run/out/$id.reboot" "$run/out/$id.start"
			b=$(($(cat "$run/out/$id.boot" 2>/dev/null || echo 1) + 1))
			if [ -n "$disk_args" ] && [ "$b" -le 3 ]; then
				echo "$b" >"$run/out/$id.boot"
				echo "# $id rebooted the guest after $(($(date +%s) - start))s; boot $b of the same disk"
				failed_boots=0
				continue
			fi
			echo 1 >"$run/out/$id.rc"
			report "$id" 1 "it asked for reboot $b, without a persistent root or once too often"
			continue
		fi
		if [ -f "$run/out/$id.start" ]; then
			# the kernel crashed or hung while the script ran
			why=${hung:-the guest kernel crashed while $id ran (qemu exit $qrc)}
			grep -q 'Kernel panic' "$console" 2>/dev/null && why="$why; the kernel panicked"
			{
				echo "RT-VM: $why"
				console_tail 60
			} >>"$run/out/$id.log"
			echo 1 >"$run/out/$id.rc"
			report "$id" 1 "$why"
			continue
		fi
		# a guest that stopped after a script (it tainted the kernel, or
		# left state that could not be put back) leaves the rest to a
		# fresh boot; a boot that reported nothing failed
		[ "$tap_n" -gt "$reported" ] && { failed_boots=0; continue; }
		failed_boots=$((failed_boots + 1))
		echo "# boot $boots ended before $id began (qemu exit $qrc${hung:+; $hung}):"
		{
			cat "$run/qemu.log"
			console_tail 40
		} | sed 's/^/# /'
		if [ "$failed_boots" -ge 3 ]; then
			fail_rest "the guest did not boot three times in a row"
			break
		fi
		echo "# booting again ($failed_boots of 3)"
	done
done 3<"$run/keys"
echo "# $tap_n script(s) reported in $(($(date +%s) - start))s, $boots boot(s) of $kver"
[ "$tap_n" = "$total" ] || exit 1
exit 0
