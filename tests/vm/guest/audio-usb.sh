#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The audio tier through a USB audio interface (tests/vm/AUDIO.md), how
# most people who care about latency connect audio: realtimed runs with an
# [IRQ] rule for the xHCI controller (xhci_hcd), then the USB controller's driver is loaded (its
# IRQ threads appear after realtimed started, as with a dock or a driver
# loaded later) and QEMU's usb-audio interface is plugged into it through
# QEMU's monitor (device_add), as a user plugs one in. The controller's
# IRQ threads must get the rule's priority from realtimed's uevent
# listener (no realtime.ko here: that is the daemon's own hot-plug path,
# with a real device). Then jackd (granted through
# `realtimectl run --threads`, as audio-jack.sh) plays jack-sine's sine
# through the interface, AUDIO_SECONDS idle and as long under the
# disturbance; xruns and the dropouts in the interface's WAV file are
# reported, the sine reaching it asserted. The devices are unplugged at
# the end.
#
#   VM_ONLY=audio-usb meson test -C build vm-6.1 -v
#
# vm-sound

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/audio-lib.sh
. "$TOP_SRCDIR/tests/vm/audio-lib.sh"

audio_require
grep -qw threadirqs /proc/cmdline || uname -v | grep -q PREEMPT_RT ||
	skip "the kernel was not booted with threadirqs, and is not PREEMPT_RT: no IRQ threads"
lsmod | grep -q '^realtime ' && skip "realtime.ko is loaded: it, not the daemon, would hold the rules"
lsmod | grep -q '^xhci_pci ' && skip "xhci_pci is loaded already"
integ_require_daemon
integ_enter "$@"
integ_require_cmd jackd
integ_require_preload
integ_setup
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || skip "cannot mount a private /dev/shm"
# above the shipped policy's xhci_hcd=85, which it overrides
PRIO=87
integ_admin_conf <<-EOF
	[IRQ]
	xhci_hcd=$PRIO
EOF
integ_start_daemon
audio_mark "realtimed started"

audio_card_usb
if wait_for 10 irq_threads_at "xhci*" "$PRIO"; then
	ok "the USB controller's new IRQ threads got the rule's FIFO $PRIO from realtimed ($(irq_threads "xhci*" | wc -l) threads)"
else
	fail "the USB controller's new IRQ threads are not FIFO $PRIO"
fi
irq_threads "xhci*" | sed 's/^/#   pid policy prio: /'
audio_mark "the USB interface plugged in"
grep 'xhci' "$WORK/realtimed.log" | tail -n 3 | sed 's/^/#   /'

# 256 frames, 3 periods (16 ms): QEMU's usb-audio plays it without xruns
# of its own when the guest is idle (AUDIO.md)
PERIOD=${AUDIO_USB_PERIOD:-256}
NPERIODS=${AUDIO_USB_NPERIODS:-3}
audio_jack_start rtaudio "$PERIOD" "$NPERIODS"
grep -q 'SCHED_FIFO 70, realtimed granted' "$WORK/jackd.log" &&
	ok "realtimed granted jackd's FIFO 70 on the USB interface" ||
	fail "jackd's grant: $(grep librealtime-preload "$WORK/jackd.log" | tail -n 3)"
audio_mark "jackd and jack-sine started"
audio_play_segments "$WORK/sine.log" card=usb server=jackd buffer="${PERIOD}x$NPERIODS" who=granted round=1
audio_sine_reached "the USB interface"
audio_jack_stop
audio_mark "jackd stopped"
audio_card_usb_remove
audio_mark "the USB interface unplugged"
finish
