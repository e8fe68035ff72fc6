#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The audio tier with JACK (tests/vm/AUDIO.md): QEMU's Intel HD Audio card
# through snd_hda_intel, jackd2 on it as the audio member rtaudio, with no
# rlimits of its own (`realtimectl run --threads`: realtime comes from
# realtimed, as on a desktop), and jack-sine playing a 997 Hz sine to the
# card's playback ports. The same playback by rtplain, whose FIFO 70 policy
# refuses, in alternating rounds (AUDIO_ROUNDS), each AUDIO_SECONDS idle
# and as long under stress-ng --cpu on every CPU and 9p reads: the xruns
# jackd reported and the dropouts in the card's WAV file, one audio-result
# line each. Asserted: the grant and the refusal as /proc shows them, and
# the sine reaching the card in every stretch; the counts are reported,
# not compared (under TCG they follow the host as much as the guest:
# AUDIO.md). Then realtimectl latency --duration 10s on the CPUs the
# card's IRQ goes to, and realtimectl check's irq-sharing and
# irq-below-audio on the real card while the granted jackd plays.
#
#   VM_ONLY=audio-jack meson test -C build vm-6.1 -v
#
# vm-sound

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
# shellcheck source=tests/vm/audio-lib.sh
. "$TOP_SRCDIR/tests/vm/audio-lib.sh"

audio_require
integ_require_daemon
integ_enter "$@"
integ_require_cmd jackd
integ_require_preload
integ_setup
mount -t tmpfs -o mode=1777 tmpfs /dev/shm || skip "cannot mount a private /dev/shm"
integ_start_daemon
audio_card_hda
audio_mark "realtimed and the card ready"

# 512 frames, 3 periods (32 ms): the smallest buffer QEMU's HDA model plays
# without xruns of its own when the guest is idle (AUDIO.md)
PERIOD=${AUDIO_JACK_PERIOD:-512}
NPERIODS=${AUDIO_JACK_NPERIODS:-3}
BUFFER=${PERIOD}x$NPERIODS

# side_conf WHO: the [Daemon] settings of a side the bench may add
# (AUDIO_JACK_SIDES), none for granted and refused. granted-nocanary:
# granted by a realtimed with Canary=no, to tell the canary watchdog's
# share; granted-shield: with the shield held while jackd plays
# (realtimed(8) SHIELD: CPU 1's movable IRQs and the unbound workqueues
# go to CPU 0, jackd's granted threads are pinned to CPU 1; the card's IRQ
# stays where it is, its [IRQ] rule keeps it).
side_conf()
{
	case "$1" in
	granted-nocanary) printf '[Daemon]\nCanary=no\n' ;;
	granted-shield) printf '[Daemon]\nShield=auto\nShieldPin=yes\n' ;;
	esac
}

# jack_round WHO ROUND: one stretch of playback, granted (rtaudio) or
# refused (rtplain), with the checks of what /proc says of its threads.
jack_round()
{
	conf=$(side_conf "$1")
	if [ -n "$conf" ]; then
		integ_stop_daemon
		printf '%s\n' "$conf" | integ_admin_conf
		integ_start_daemon
	fi
	if [ "$1" != refused ]; then
		audio_jack_start rtaudio "$PERIOD" "$NPERIODS"
		rt=$(rt_threads "$JACK_PID" | awk '$3 == 70' | head -n 1)
		if [ -n "$rt" ] && grep -q 'SCHED_FIFO 70, realtimed granted' "$WORK/jackd.log"; then
			ok "round $2: realtimed granted jackd's thread FIFO 70 ($rt)"
		else
			fail "round $2: jackd as rtaudio has no FIFO 70 thread: $(grep librealtime-preload "$WORK/jackd.log" | tail -n 3)"
		fi
		check_eq "round $2: jack-sine's process thread, as libjack asked realtimed" \
			"fifo 65" "$(sed -n 's/^thread [0-9]* //p' "$WORK/sine.log")"
	else
		audio_jack_start rtplain "$PERIOD" "$NPERIODS"
		check_eq "round $2: policy refused rtplain: jackd runs no realtime thread" "" \
			"$(rt_threads "$JACK_PID")"
		check_eq "round $2: jack-sine's process thread, refused" \
			"other 0" "$(sed -n 's/^thread [0-9]* //p' "$WORK/sine.log")"
	fi
	if [ "$1" = granted-shield ]; then
		"$REALTIMECTL" status >"$WORK/status" 2>&1
		grep -q '^Shield (Shield=): held' "$WORK/status" && ok "round $2: the shield holds while jackd plays" ||
			fail "round $2: no shield held: $(grep -A3 '^Shield' "$WORK/status")"
		grep -A3 '^Shield' "$WORK/status" | sed 's/^/#   /'
	fi
	audio_mark "round $2, $1: playing"
	audio_play_segments "$WORK/sine.log" card=hda server=jackd buffer="$BUFFER" who="$1" round="$2"
	audio_mark "round $2, $1: played and analysed"
	audio_sine_reached "round $2, $1"
	if [ -n "$conf" ]; then
		audio_jack_stop
		integ_stop_daemon
		: | integ_admin_conf
		integ_start_daemon
		JACK_PID='' SINE_PID=''
	fi
}

granted_idle=0 granted_loaded=0 refused_idle=0 refused_loaded=0
SIDES=${AUDIO_JACK_SIDES:-granted refused}
round=1
while [ "$round" -le "$AUDIO_ROUNDS" ]; do
	order=$(audio_order "$round" "$SIDES")
	for who in $order; do
		jack_round "$who" "$round"
		if [ "$who" = granted ] && [ "$round" = "$AUDIO_ROUNDS" ]; then
			# the real card while the granted jackd plays
			"$REALTIMECTL" check >"$WORK/check" 2>&1
			sed -n 's/^\([a-z]*  *irq-[a-z-]*\) */\1 /p' "$WORK/check" | sed 's/^/#   /'
			awk '$2 == "irq-sharing" { print $1 }' "$WORK/check" | grep -qx ok &&
				ok "check: the HDA card's IRQ (MSI) is shared with no device" ||
				fail "check irq-sharing: $(grep irq-sharing "$WORK/check")"
			# realtimed's shipped [IRQ] snd*=90 reached the card's thread,
			# created after it started, above jackd's 70
			awk '$2 == "irq-below-audio" { print $1 }' "$WORK/check" | grep -qx ok &&
				ok "check: the card's IRQ thread runs above jackd's FIFO 70" ||
				fail "check irq-below-audio: $(grep irq-below-audio "$WORK/check")"
		fi
		[ -z "$JACK_PID" ] || audio_jack_stop
		case "$who" in granted | refused) ;; *) continue ;; esac
		[ "$AUDIO_DROPS_IDLE" = - ] && AUDIO_DROPS_IDLE=0
		[ "$AUDIO_DROPS_LOADED" = - ] && AUDIO_DROPS_LOADED=0
		eval "${who}_idle=\$((${who}_idle + AUDIO_DROPS_IDLE))"
		eval "${who}_loaded=\$((${who}_loaded + AUDIO_DROPS_LOADED))"
	done
	round=$((round + 1))
done
# shellcheck disable=SC2154 # set by the eval above
note "jackd $BUFFER on the HDA card, dropouts over $AUDIO_ROUNDS round(s) of ${AUDIO_SECONDS}s:" \
	"granted $granted_idle idle, $granted_loaded loaded; refused $refused_idle idle, $refused_loaded loaded"

audio_mark "the rounds done"
# what the driver and the canary watchdog said meanwhile
dmesg | grep -i 'snd\|hda' | tail -n 5 | sed 's/^/#   dmesg: /'
grep -i 'canary\|demot' "$WORK/realtimed.log" | tail -n 5 | sed 's/^/#   realtimed: /'
# the wakeup figures of the card's CPUs, beside the dropouts: rtaudio's,
# at jackd's FIFO 70, granted by realtimed as jackd's was
cpus=$(cat "/proc/irq/$AUDIO_IRQ/effective_affinity_list" 2>/dev/null)
run_as rtaudio "$REALTIMECTL" latency --duration 10s --priority 70 --cpu "${cpus:-0}" \
	>"$WORK/latency" 2>&1
check_eq "realtimectl latency --duration 10s --priority 70 --cpu ${cpus:-0} (the card's IRQ's CPUs): exit status" 0 $?
sed 's/^/#   /' "$WORK/latency"
audio_mark "latency measured"
finish
