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
# xhci_threads: "pid policy priority" of each irq/N-xhci* thread
xhci_threads()
{
	for d in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$d/comm" || continue
		case "$comm" in
		irq/*-xhci*) echo "${d#/proc/} $(sed 's/^.*) //' "$d/stat" | awk '{ print $39, $38 }')" ;;
		esac
	done
}
all_at_prio()
{
	out=$(xhci_threads)
	[ -n "$out" ] && ! echo "$out" | awk -v p="$PRIO" '$2 != 1 || $3 != p { bad = 1 } END { exit !bad }'
}
if wait_for 10 all_at_prio; then
	ok "the hot-plugged USB controller's IRQ threads got the rule's FIFO $PRIO from realtimed ($(xhci_threads | wc -l) threads)"
else
	fail "the hot-plugged USB controller's IRQ threads are not FIFO $PRIO"
fi
xhci_threads | sed 's/^/#   pid policy prio: /'
audio_mark "the USB interface plugged in"
grep 'xhci' "$WORK/realtimed.log" | tail -n 3 | sed 's/^/#   /'

# 256 frames, 3 periods (16 ms): QEMU's usb-audio plays it without xruns
# of its own when the guest is idle (AUDIO.md)
PERIOD=${AUDIO_USB_PERIOD:-256}
NPERIODS=${AUDIO_USB_NPERIODS:-3}
mkdir -p "$WORK/jack/home"
chown rtaudio "$WORK/jack/home"
JACK_ENV="HOME=$WORK/jack/home JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 REALTIME_PRELOAD_DEBUG=1"
# shellcheck disable=SC2086
as_bg rtaudio env $JACK_ENV "$REALTIMECTL" run --threads -- \
	jackd -R -P 70 -d alsa -d "$AUDIO_CARD" -r 48000 -p "$PERIOD" -n "$NPERIODS" -P \
	>"$WORK/jackd.log" 2>&1
JACK_PID=$!
integ_track "$JACK_PID"
wait_for 30 grep -q "use $NPERIODS periods for playback" "$WORK/jackd.log" ||
	{ fail "jackd did not open the USB interface: $(tail -n 5 "$WORK/jackd.log")"; finish; }
# shellcheck disable=SC2086
as_bg rtaudio env $JACK_ENV "$REALTIMECTL" run --threads -- \
	"$AUDIO_TOOLS/jack-sine" --freq "$AUDIO_FREQ" >"$WORK/sine.log" 2>&1
SINE_PID=$!
integ_track "$SINE_PID"
wait_for 30 grep -q '^thread ' "$WORK/sine.log" ||
	{ fail "jack-sine did not play: $(tail -n 5 "$WORK/sine.log")"; finish; }
grep -q 'SCHED_FIFO 70, realtimed granted' "$WORK/jackd.log" &&
	ok "realtimed granted jackd's FIFO 70 on the USB interface" ||
	fail "jackd's grant: $(grep librealtime-preload "$WORK/jackd.log" | tail -n 3)"
audio_mark "jackd and jack-sine started"
audio_play_segments "$WORK/sine.log" card=usb server=jackd buffer="${PERIOD}x$NPERIODS" who=granted round=1
audio_sine_reached "the USB interface"
audio_stop "$SINE_PID"
audio_stop "$JACK_PID"
audio_mark "jackd stopped"
audio_card_usb_remove
audio_mark "the USB interface unplugged"
finish
