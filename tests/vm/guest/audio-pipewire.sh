#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The audio tier with PipeWire (tests/vm/AUDIO.md): the audio member
# rtaudio's own pipewire with an ALSA sink on QEMU's Intel HD Audio card
# (tests/vm/audio/pipewire.conf, no session manager), its data thread
# made realtime by module-rt through RealtimeKit1, and jack-sine (through
# pw-jack) playing a 997 Hz sine to the sink. The comparison a user makes
# before switching, side by side in one boot, alternating round by round
# (AUDIO_ROUNDS): the same playback served by Debian's rtkit-daemon (RR 20
# for everyone) and by realtimed (FIFO 88, as PipeWire asks, for an audio
# member), each AUDIO_SECONDS idle and as long under stress-ng --cpu on
# every CPU and 9p reads, with threadirqs' IRQ threads at FIFO 50 between
# the two (the sound card's own thread put back to 50 for rtkit's rounds:
# realtimed's shipped [IRQ] snd*=90 raises it). The xruns PipeWire's driver
# counted (the xrun callback of its JACK layer) and the dropouts in the
# card's WAV file, one audio-result line each. Asserted: each server's
# grant as /proc shows it and the sine reaching the card; the counts are
# reported, not compared (AUDIO.md). Also realtimectl check's
# irq-below-audio on the real card: ok with the card's thread above
# PipeWire's 88, a warning once it is put back to 50.
# AUDIO_PW_CARD_IRQ=50 (the bench's CARD_IRQ) puts the card's thread back
# to 50 in realtimed's rounds too, so that PipeWire's priority is all that
# differs between the sides (and the check, which needs it at 90, is left
# out).
# AUDIO_PW_SIDES (the bench's PW_SIDES; default "rtkit realtimed") may add
# refused: the same playback by rtplain, a non-member whose RealtimeKit1
# call realtimed refuses ([Default] RealtimePriority=0 for those rounds),
# so that PipeWire's data thread runs SCHED_OTHER (the grant against
# none, beside the two servers).
#
#   VM_ONLY=audio-pipewire meson test -C build vm-6.1 -v
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
integ_require_cmd pipewire pw-jack chrt
[ -x "$RTKIT_DAEMON" ] || skip "rtkit-daemon is not installed ($RTKIT_DAEMON; Debian package rtkit)"
INTEG_BUS_EXTRA=$INTEG_BUS_RTKIT
integ_setup
audio_card_hda

# 1024 frames (21 ms): PipeWire's own floor in a VM (its vm.overrides
# raise default.clock.min-quantum to 1024)
QUANTUM=${AUDIO_PW_QUANTUM:-1024}
sed "s/@QUANTUM@/$QUANTUM/g; s/@DEVICE@/$AUDIO_CARD/" "$TOP_SRCDIR/tests/vm/audio/pipewire.conf" \
	>"$WORK/pipewire.conf"
chmod 644 "$WORK/pipewire.conf"
SND_IRQ_PID=$(audio_irq_thread "$AUDIO_IRQ")
[ -n "$SND_IRQ_PID" ] || skip "no IRQ thread for the card (threadirqs?)"
audio_mark "the card ready"

# pw_start USER: USER's pipewire and jack-sine through pw-jack; sets PW_PID,
# SINE_PID, PW_RT (its data thread's "TID POLICY PRIO").
pw_start()
{
	rm -rf "$WORK/pw"
	mkdir -p "$WORK/pw/run" "$WORK/pw/home"
	chown -R "$1" "$WORK/pw"
	chmod 700 "$WORK/pw/run"
	PW_ENV="HOME=$WORK/pw/home XDG_RUNTIME_DIR=$WORK/pw/run"
	# shellcheck disable=SC2086
	as_bg "$1" env -u DBUS_SESSION_BUS_ADDRESS $PW_ENV pipewire -c "$WORK/pipewire.conf" \
		>"$WORK/pw.log" 2>&1
	PW_PID=$!
	integ_track "$PW_PID"
	wait_for 20 test -S "$WORK/pw/run/pipewire-0" || { fail "pipewire did not start: $(tail -n 5 "$WORK/pw.log")"; finish; }
	# shellcheck disable=SC2086
	as_bg "$1" env -u DBUS_SESSION_BUS_ADDRESS $PW_ENV pw-jack \
		"$AUDIO_TOOLS/jack-sine" --freq "$AUDIO_FREQ" >"$WORK/sine.log" 2>&1
	SINE_PID=$!
	integ_track "$SINE_PID"
	wait_for 30 grep -q '^thread ' "$WORK/sine.log" || { fail "jack-sine did not play through pw-jack: $(tail -n 5 "$WORK/sine.log")"; finish; }
	PW_RT=$(rt_threads "$PW_PID" | head -n 1)
}

pw_stop()
{
	audio_stop "$SINE_PID"
	audio_stop "$PW_PID"
}

# irq_check WANT WHAT: realtimectl check's irq-below-audio is WANT.
irq_check()
{
	"$REALTIMECTL" check >"$WORK/check" 2>&1
	line=$(grep '^[a-z]*  *irq-below-audio ' "$WORK/check")
	if [ "$(echo "$line" | awk '{ print $1 }')" = "$1" ]; then
		ok "check irq-below-audio is $1: $2"
	else
		fail "check irq-below-audio, want $1 ($2): $line"
	fi
	note "$line"
}

# pw_round SIDE ROUND: one stretch of playback with rtkit or realtimed
# answering RealtimeKit1, or refused (realtimed, to rtplain).
pw_round()
{
	if [ "$1" = rtkit ]; then
		integ_start_rtkit || { fail "rtkit-daemon did not start"; finish; }
		# as threadirqs left it, before realtimed's [IRQ] rule raised it
		chrt -f -p 50 "$SND_IRQ_PID"
		pw_start rtaudio
		case "$PW_RT" in
		*" rr 20") ok "round $2: rtkit-daemon made PipeWire's data thread RR 20 ($PW_RT)" ;;
		*) fail "round $2: rtkit-daemon: PipeWire's data thread is '${PW_RT:-not realtime}', want rr 20" ;;
		esac
	elif [ "$1" = refused ]; then
		# no realtime for non-members (realtime.conf(5)'s example); the
		# shipped [Default] gives them RR 20 where polkit agrees
		printf '[Default]\nRealtimePriority=0\n' | integ_admin_conf
		integ_start_daemon
		[ -z "${AUDIO_PW_CARD_IRQ:-}" ] || chrt -f -p "$AUDIO_PW_CARD_IRQ" "$SND_IRQ_PID"
		pw_start rtplain
		check_eq "round $2: realtimed refused rtplain: PipeWire runs no realtime thread" "" "$PW_RT"
	else
		integ_start_daemon
		[ -z "${AUDIO_PW_CARD_IRQ:-}" ] || chrt -f -p "$AUDIO_PW_CARD_IRQ" "$SND_IRQ_PID"
		pw_start rtaudio
		case "$PW_RT" in
		*" fifo 88") ok "round $2: realtimed made PipeWire's data thread FIFO 88 ($PW_RT)" ;;
		*) fail "round $2: realtimed: PipeWire's data thread is '${PW_RT:-not realtime}', want fifo 88" ;;
		esac
	fi
	note "round $2, $1: the card's IRQ thread: $(sched_of "$SND_IRQ_PID"); jack-sine's: $(sed -n 's/^thread //p' "$WORK/sine.log")"
	audio_mark "round $2, $1: playing"
	audio_play_segments "$WORK/sine.log" card=hda server=pipewire-"$1" buffer="$QUANTUM" \
		who="$1" round="$2"
	audio_sine_reached "round $2, $1"
	audio_mark "round $2, $1: played and analysed"
	if [ "$1" = realtimed ] && [ "$2" = "$AUDIO_ROUNDS" ] && [ -z "${AUDIO_PW_CARD_IRQ:-}" ]; then
		irq_check ok "the card's thread ($(sched_of "$SND_IRQ_PID")) runs above PipeWire's 88"
		chrt -f -p 50 "$SND_IRQ_PID"
		irq_check warn "the card's thread at FIFO 50 waits behind PipeWire's 88"
	fi
	pw_stop
	if [ "$1" = rtkit ]; then
		integ_stop_rtkit
	else
		integ_stop_daemon
	fi
	[ "$1" != refused ] || : | integ_admin_conf
	audio_mark "round $2, $1: stopped"
}

rtkit_idle=0 rtkit_loaded=0 realtimed_idle=0 realtimed_loaded=0 refused_idle=0 refused_loaded=0
SIDES=${AUDIO_PW_SIDES:-rtkit realtimed}
round=1
while [ "$round" -le "$AUDIO_ROUNDS" ]; do
	order=$(audio_order "$round" "$SIDES")
	for server in $order; do
		pw_round "$server" "$round"
		[ "$AUDIO_DROPS_IDLE" = - ] && AUDIO_DROPS_IDLE=0
		[ "$AUDIO_DROPS_LOADED" = - ] && AUDIO_DROPS_LOADED=0
		eval "${server}_idle=\$((${server}_idle + AUDIO_DROPS_IDLE))"
		eval "${server}_loaded=\$((${server}_loaded + AUDIO_DROPS_LOADED))"
	done
	round=$((round + 1))
done
refused=
case " $SIDES " in *" refused "*) refused="; refused $refused_idle idle, $refused_loaded loaded" ;; esac
# shellcheck disable=SC2154 # set by the eval above
note "PipeWire, quantum $QUANTUM on the HDA card, dropouts over $AUDIO_ROUNDS round(s) of ${AUDIO_SECONDS}s:" \
	"realtimed $realtimed_idle idle, $realtimed_loaded loaded; rtkit $rtkit_idle idle, $rtkit_loaded loaded$refused"
finish
