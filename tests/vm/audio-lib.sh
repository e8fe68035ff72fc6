# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # AUDIO_* are for the scripts that source it
#
# The audio tier's helpers (tests/vm/AUDIO.md), sourced by the guest
# scripts tests/vm/guest/audio-*.sh after tests/integration/lib.sh and
# tests/vm/lib.sh: the sound cards run-vm.sh gives a "# vm-sound" boot,
# the disturbance, the WAV file read back by wav-dropouts, and one result
# line per measured stretch of playback:
#
#   audio-result kernel=K card=C server=S buffer=B who=W load=L round=R seconds=T xruns=X dropouts=D
#
# (bench/audio-bench.sh gathers these into bench/RESULTS.md's tables).
# AUDIO_ROUNDS and AUDIO_SECONDS (the bench passes them in through
# VM_PASS_ENV) say how many alternating rounds to play and for how long;
# AUDIO_DISTURB which parts the disturbance has (audio_load_start).

AUDIO_TOOLS=$TOP_BUILDDIR/tests/audio
AUDIO_T0=$(cut -d' ' -f1 /proc/uptime)
AUDIO_FREQ=997
AUDIO_ROUNDS=${AUDIO_ROUNDS:-1}
AUDIO_SECONDS=${AUDIO_SECONDS:-5}
AUDIO_DISTURB=${AUDIO_DISTURB:-cpu+io}

# audio_mark TEXT: a comment with the seconds since the script began, to
# see where a run's time goes.
audio_mark()
{
	note "$(awk -v t0="$AUDIO_T0" '{ printf "%.1f", $1 - t0 }' /proc/uptime) s: $*"
}

# audio_order ROUND SIDES: the order the sides play in round ROUND, turned
# round on every even round (alternating rounds, as AUDIO.md asks)
audio_order()
{
	if [ $(($1 % 2)) = 1 ]; then
		echo "$2"
	else
		echo "$2" | tr ' ' '\n' | sed '1!G;h;$!d' | tr '\n' ' '
	fi
}

# audio_stop PID: ends a server or client (TERM, then KILL after 5 s: a
# driver that hangs in close must not hang the script).
audio_stop()
{
	kill "$1" 2>/dev/null
	wait_for 5 sh -c "! kill -0 $1" || kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	integ_untrack "$1"
}

# audio_require: skips unless this is the VM tier with the sound cards
# (a "# vm-sound" boot), the tools are built, and the disturbance can run.
audio_require()
{
	if [ "$(hostname)" != rt-vm ] || ! grep -q ' /rt-run ' /proc/mounts; then
		skip "the audio tier runs only inside the project's VM (tests/vm/run-vm.sh)"
	fi
	[ -f "${RT_VM_SOUND_HDA:-}" ] || skip "this boot has no sound card (the script needs '# vm-sound')"
	[ -x "$AUDIO_TOOLS/wav-dropouts" ] && [ -x "$AUDIO_TOOLS/jack-sine" ] ||
		skip "the audio tools are not built ($AUDIO_TOOLS)"
	integ_require_cmd stress-ng
	if audio_disturb_has net; then
		[ "${RT_VM_NET:-0}" -gt 0 ] ||
			skip "AUDIO_DISTURB=$AUDIO_DISTURB: this boot has no NIC (run-vm.sh's VM_NET=1 or 2)"
		integ_require_cmd busybox taskset ip
	fi
}

# audio_disturb_has PART: true when the disturbance has PART (cpu, io,
# net).
audio_disturb_has()
{
	case "+$AUDIO_DISTURB+" in
	*"+$1+"*) return 0 ;;
	esac
	return 1
}

# audio_card_wait TEST: waits (10 s) for a sound card for which the shell
# test TEST on its /proc/asound/cardN directory ($d) holds; sets
# AUDIO_CARD (hw:N) and opens its devices to the test users (a desktop's
# logind gives the seat's user an ACL).
audio_card_wait()
{
	_i=0
	while [ "$_i" -lt 100 ]; do
		for d in /proc/asound/card[0-9]*; do
			[ -d "$d" ] || continue
			if eval "$1"; then
				AUDIO_CARD=hw:${d#/proc/asound/card}
				chmod 666 /dev/snd/* 2>/dev/null
				return 0
			fi
		done
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# audio_card_hda: QEMU's Intel HD Audio card (snd_hda_intel); its sound
# goes to RT_VM_SOUND_HDA. Sets AUDIO_CARD, AUDIO_WAV, AUDIO_IRQ.
audio_card_hda()
{
	modprobe snd_hda_intel || fail "modprobe snd_hda_intel failed"
	# shellcheck disable=SC2016 # expanded in audio_card_wait
	audio_card_wait '[ "$(cat "$d/id" 2>/dev/null)" = Intel ] && [ -e "/dev/snd/pcmC${d#/proc/asound/card}D0p" ]' ||
		{ fail "no HDA sound card appeared"; finish; }
	AUDIO_WAV=$RT_VM_SOUND_HDA
	AUDIO_NAME=hda
	AUDIO_IRQ=$(awk -F: '/snd_hda_intel/ { gsub(/ /, "", $1); print $1; exit }' /proc/interrupts)
	ok "the HDA card is $AUDIO_CARD, IRQ ${AUDIO_IRQ:-?}: $(grep -A1 '\[Intel' /proc/asound/cards | tail -n 1 | sed 's/^ *//')"
}

# audio_irq_thread IRQ: the pid of IRQ's (first) kernel thread, irq/IRQ-*.
audio_irq_thread()
{
	for _d in /proc/[0-9]*; do
		read -r _c 2>/dev/null <"$_d/comm" || continue
		case "$_c" in
		"irq/$1-"*)
			echo "${_d#/proc/}"
			return 0
			;;
		esac
	done
	return 1
}

# audio_card_usb: QEMU's USB audio interface, plugged in now through QEMU's
# monitor, as a user plugs one in, on the USB controller (qemu-xhci) the
# boot has, whose driver is loaded first: the controller's IRQ threads
# appear now, as they do when a driver is loaded or a dock attached after
# realtimed started. Its sound goes to RT_VM_SOUND_USB. Sets AUDIO_CARD,
# AUDIO_WAV.
audio_card_usb()
{
	modprobe xhci_pci && modprobe snd_usb_audio || fail "modprobe xhci_pci snd_usb_audio failed"
	_out=$(vm_monitor device_add usb-audio,id=rt-usb-audio,bus=rt-xhci.0,audiodev=rt-usb) && [ -z "$_out" ] ||
		{ fail "device_add usb-audio: ${_out:-the monitor did not answer}"; finish; }
	# shellcheck disable=SC2016 # expanded in audio_card_wait
	audio_card_wait '[ -e "$d/usbid" ] && [ -e "/dev/snd/pcmC${d#/proc/asound/card}D0p" ]' ||
		{ fail "no USB sound card appeared"; finish; }
	AUDIO_WAV=$RT_VM_SOUND_USB
	AUDIO_NAME=usb
	ok "the USB audio interface is $AUDIO_CARD: $(grep -A1 'USB-Audio' /proc/asound/cards | tail -n 1 | sed 's/^ *//')"
}

# audio_card_usb_remove: unplugs the USB interface.
audio_card_usb_remove()
{
	vm_monitor device_del rt-usb-audio >/dev/null
}

# audio_jack_start USER PERIOD NPERIODS: jackd on AUDIO_CARD and jack-sine,
# each as USER under realtimectl run --threads (realtime from realtimed,
# no rlimits of their own), jackd asking FIFO 70; sets JACK_PID and
# SINE_PID, their output in $WORK/jackd.log and $WORK/sine.log.
audio_jack_start()
{
	rm -rf "$WORK/jack"
	mkdir -p "$WORK/jack"
	chown "$1" "$WORK/jack"
	_env="HOME=$WORK/jack JACK_NO_AUDIO_RESERVATION=1 JACK_NO_START_SERVER=1 REALTIME_PRELOAD_DEBUG=1"
	# shellcheck disable=SC2086
	as_bg "$1" env $_env "$REALTIMECTL" run --threads -- \
		jackd -R -P 70 -d alsa -d "$AUDIO_CARD" -r 48000 -p "$2" -n "$3" -P >"$WORK/jackd.log" 2>&1
	JACK_PID=$!
	integ_track "$JACK_PID"
	if ! wait_for 30 grep -q "use $3 periods for playback" "$WORK/jackd.log"; then
		fail "jackd as $1 did not open $AUDIO_CARD: $(tail -n 5 "$WORK/jackd.log")"
		finish
	fi
	# shellcheck disable=SC2086
	as_bg "$1" env $_env "$REALTIMECTL" run --threads -- \
		"$AUDIO_TOOLS/jack-sine" --freq "$AUDIO_FREQ" >"$WORK/sine.log" 2>&1
	SINE_PID=$!
	integ_track "$SINE_PID"
	if ! wait_for 30 grep -q '^thread ' "$WORK/sine.log"; then
		fail "jack-sine as $1 did not play: $(tail -n 5 "$WORK/sine.log")"
		finish
	fi
}

audio_jack_stop()
{
	audio_stop "$SINE_PID"
	audio_stop "$JACK_PID"
}

# audio_irq_virtio: the interrupts of the guest's virtio devices so far
# (the 9p transport's: the IO load raises them).
audio_irq_virtio()
{
	awk '/virtio/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts
}

# audio_net_up: brings up the NICs of a boot with VM_NET (run-vm.sh) once:
# virtio_net loaded, the Nth NIC (its MAC's fifth byte N) at 10.0.(N+1).15
# on QEMU's user network, whose gateway .2 answers ICMP echo. Sets
# AUDIO_NET_GWS (the gateways), AUDIO_NET_DEVS (the NICs' virtio devices,
# whose IRQs are named virtioK-input.0, -output.0, -config) and
# AUDIO_NET_TPIDS (the IRQ threads of those IRQs), and says each thread's
# policy.
audio_net_up()
{
	[ -z "${AUDIO_NET_DEVS:-}" ] || return 0
	modprobe virtio_net || { fail "modprobe virtio_net failed"; finish; }
	wait_for 10 sh -c '[ "$(ls -d /sys/bus/virtio/drivers/virtio_net/virtio* | wc -l)" -ge "$1" ]' \
		sh "$RT_VM_NET" 2>/dev/null || { fail "$RT_VM_NET NIC(s) asked, not all appeared"; finish; }
	AUDIO_NET_GWS='' AUDIO_NET_DEVS='' AUDIO_NET_TPIDS=''
	for _e in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$_e/device/driver")")" = virtio_net ] || continue
		_n=$(cut -d: -f5 "$_e/address")
		_sub=10.0.$((_n + 1))
		ip link set "${_e##*/}" up && ip addr add "$_sub.15/24" dev "${_e##*/}" ||
			{ fail "cannot bring ${_e##*/} up at $_sub.15"; finish; }
		AUDIO_NET_GWS="$AUDIO_NET_GWS $_sub.2"
		AUDIO_NET_DEVS="$AUDIO_NET_DEVS $(basename "$(readlink -f "$_e/device")")"
	done
	for _irq in $(awk -v devs="$AUDIO_NET_DEVS" 'BEGIN { n = split(devs, d, " ") }
		{ for (i = 1; i <= n; i++) if (index($NF, d[i] "-") == 1) { sub(/:/, "", $1); print $1 } }' /proc/interrupts); do
		_t=$(audio_irq_thread "$_irq") || continue
		AUDIO_NET_TPIDS="$AUDIO_NET_TPIDS $_t"
		note "NIC IRQ $_irq: thread $(cat "/proc/$_t/comm") $(sched_name_of "$_t"), CPU $(cat "/proc/irq/$_irq/effective_affinity_list" 2>/dev/null)"
	done
	for _gw in $AUDIO_NET_GWS; do
		wait_for 10 busybox ping -c 1 -W 1 "$_gw" >/dev/null ||
			{ fail "the user network's gateway $_gw does not answer ping"; finish; }
	done
}

# audio_irq_net: the interrupts of the NICs so far.
audio_irq_net()
{
	awk -v devs="$AUDIO_NET_DEVS" 'BEGIN { n = split(devs, d, " ") }
	{
		for (k = 1; k <= n; k++)
			if (index($NF, d[k] "-") == 1)
				for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i
	}
	END { print s + 0 }' /proc/interrupts
}

# audio_net_thread_us: the CPU time (us) the NICs' IRQ threads used so far
# (their schedstat).
audio_net_thread_us()
{
	_us=0
	for _t in $AUDIO_NET_TPIDS; do
		_ns=$(cut -d' ' -f1 "/proc/$_t/schedstat" 2>/dev/null) || continue
		_us=$((_us + _ns / 1000))
	done
	echo "$_us"
}

# audio_load_start: the disturbance, the parts AUDIO_DISTURB names
# (default cpu+io): cpu, stress-ng --cpu on every CPU at nice 0; io, an IO
# load that raises interrupts: reads of the host's files through 9p, each
# answered by a virtio interrupt (whose IRQ thread runs at FIFO 50 with
# threadirqs); net, ICMP echo floods (busybox ping -A: the next request
# as soon as the reply came), one per CPU (taskset) and per NIC, at the
# user network's gateway: RX interrupts all the time, whose IRQ threads
# (FIFO 50, the NIC's receive work in them) sit between rtkit's RR 20 and
# realtimed's FIFO 88. audio_load_stop ends it.
audio_load_start()
{
	audio_disturb_has net && audio_net_up
	AUDIO_IRQS0=$(audio_irq_virtio)
	AUDIO_NET_IRQS0=$(audio_irq_net)
	AUDIO_NET_US0=$(audio_net_thread_us)
	AUDIO_LOAD_T0=$(date +%s%N)
	AUDIO_LOAD_PIDS=
	if audio_disturb_has cpu; then
		stress-ng --cpu "$(nproc)" --timeout 600 >/dev/null 2>&1 &
		AUDIO_LOAD_PIDS="$AUDIO_LOAD_PIDS $!"
	fi
	if audio_disturb_has io; then
		_big=$(ls -S /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -n 1)
		sh -c 'while :; do dd if="$1" of=/dev/null bs=4k 2>/dev/null; done' sh "$_big" &
		AUDIO_LOAD_PIDS="$AUDIO_LOAD_PIDS $!"
	fi
	if audio_disturb_has net; then
		for _gw in $AUDIO_NET_GWS; do
			_c=0
			while [ "$_c" -lt "$(nproc)" ]; do
				taskset -c "$_c" busybox ping -A -q "$_gw" >/dev/null 2>&1 &
				AUDIO_LOAD_PIDS="$AUDIO_LOAD_PIDS $!"
				_c=$((_c + 1))
			done
		done
	fi
	for _p in $AUDIO_LOAD_PIDS; do
		integ_track "$_p"
	done
}

# audio_load_stop: ends the disturbance; sets AUDIO_LOAD_IRQ_RATE (the
# virtio interrupts a second, 9p's and the NICs'), and with net
# AUDIO_LOAD_NET_RATE (the NICs' alone) and AUDIO_LOAD_NET_MS (the CPU
# time their IRQ threads used, ms).
audio_load_stop()
{
	for _p in $AUDIO_LOAD_PIDS; do
		# stress-ng's workers end with it; the io part's loop first,
		# then its dd
		kill "$_p" 2>/dev/null
	done
	pkill -x dd 2>/dev/null
	for _p in $AUDIO_LOAD_PIDS; do
		wait "$_p" 2>/dev/null
		integ_untrack "$_p"
	done
	_ms=$((($(date +%s%N) - AUDIO_LOAD_T0) / 1000000))
	AUDIO_LOAD_IRQ_RATE=$((($(audio_irq_virtio) - AUDIO_IRQS0) * 1000 / (_ms + 1)))
	AUDIO_LOAD_NET_RATE=$((($(audio_irq_net) - AUDIO_NET_IRQS0) * 1000 / (_ms + 1)))
	AUDIO_LOAD_NET_MS=$((($(audio_net_thread_us) - AUDIO_NET_US0) / 1000))
}

# audio_wav_size: how far QEMU has written the card's WAV file.
audio_wav_size()
{
	stat -c %s "$AUDIO_WAV"
}

# audio_dropouts FROM TO: the dropouts wav-dropouts finds between those
# sizes of the WAV file ("-" when no sine reached it); its report, with the
# positions, is kept in $WORK/wav.last.
audio_dropouts()
{
	"$AUDIO_TOOLS/wav-dropouts" --freq "$AUDIO_FREQ" --from "$1" --to "$2" "$AUDIO_WAV" \
		>"$WORK/wav.last" 2>&1
	sed -n 's/^dropouts //p' "$WORK/wav.last" | grep . || echo -
}

# audio_xruns FILE: the xruns jack-sine reported so far in its output FILE.
audio_xruns()
{
	grep -c '^xrun ' "$1"
}

# audio_result KEY=VALUE...: one result line (the format above), the
# kernel first.
audio_result()
{
	echo "audio-result kernel=$(uname -r) $*"
}

# audio_daemon_cpu: sets AUDIO_CPU_ALL and AUDIO_CPU_WATCHDOG to the CPU
# time (us) realtimed's threads used so far, all of them and its canary
# watchdog's (0 without realtimed), from their schedstat: what supervising
# a grant costs the audio beside it.
audio_daemon_cpu()
{
	AUDIO_CPU_ALL=0 AUDIO_CPU_WATCHDOG=0
	for _t in /proc/"${DAEMON_PID:-0}"/task/*; do
		_ns=$(cut -d' ' -f1 "$_t/schedstat" 2>/dev/null) || continue
		AUDIO_CPU_ALL=$((AUDIO_CPU_ALL + _ns / 1000))
		[ "$(cat "$_t/comm" 2>/dev/null)" = rtd-watchdog ] &&
			AUDIO_CPU_WATCHDOG=$((AUDIO_CPU_WATCHDOG + _ns / 1000))
	done
}

# audio_play_segments SINE_LOG LABEL...: with jack-sine playing (its output
# in SINE_LOG), AUDIO_SECONDS idle, then AUDIO_SECONDS under the
# disturbance; an audio_result line for each ("LABEL... load=idle|loaded
# xruns dropouts", and the CPU time realtimed and its watchdog used in
# it), the dropouts' positions as comments. Sets
# AUDIO_DROPS_IDLE, AUDIO_DROPS_LOADED, AUDIO_XRUNS_IDLE,
# AUDIO_XRUNS_LOADED ("-" where no sine reached the file).
audio_play_segments()
{
	_log=$1
	shift
	_s0=$(audio_wav_size)
	_x0=$(audio_xruns "$_log")
	audio_daemon_cpu
	_a0=$AUDIO_CPU_ALL _w0=$AUDIO_CPU_WATCHDOG
	sleep "$AUDIO_SECONDS"
	_s1=$(audio_wav_size)
	_x1=$(audio_xruns "$_log")
	audio_daemon_cpu
	_a1=$AUDIO_CPU_ALL _w1=$AUDIO_CPU_WATCHDOG
	audio_load_start
	sleep "$AUDIO_SECONDS"
	_s2=$(audio_wav_size)
	_x2=$(audio_xruns "$_log")
	audio_daemon_cpu
	audio_load_stop
	AUDIO_XRUNS_IDLE=$((_x1 - _x0))
	AUDIO_DROPS_IDLE=$(audio_dropouts "$_s0" "$_s1")
	grep '^dropout \|^no sine' "$WORK/wav.last" | head -n 5 | sed 's/^/#     idle: /'
	AUDIO_XRUNS_LOADED=$((_x2 - _x1))
	AUDIO_DROPS_LOADED=$(audio_dropouts "$_s1" "$_s2")
	grep '^dropout \|^no sine' "$WORK/wav.last" | head -n 5 | sed 's/^/#     loaded: /'
	audio_result "$@" load=idle seconds="$AUDIO_SECONDS" xruns="$AUDIO_XRUNS_IDLE" dropouts="$AUDIO_DROPS_IDLE" \
		realtimed_us=$((_a1 - _a0)) watchdog_us=$((_w1 - _w0))
	_net=
	audio_disturb_has net &&
		_net="net_irqs_per_s=$AUDIO_LOAD_NET_RATE net_irq_thread_ms=$AUDIO_LOAD_NET_MS"
	# shellcheck disable=SC2086 # _net: words or none
	audio_result "$@" load=loaded seconds="$AUDIO_SECONDS" xruns="$AUDIO_XRUNS_LOADED" \
		dropouts="$AUDIO_DROPS_LOADED" irqs_per_s="$AUDIO_LOAD_IRQ_RATE" \
		realtimed_us=$((AUDIO_CPU_ALL - _a1)) watchdog_us=$((AUDIO_CPU_WATCHDOG - _w1)) \
		disturb="$AUDIO_DISTURB" $_net
}

# audio_sine_reached WHAT: a check that the last segments carried the sine
# to the card's file (wav-dropouts found it), whatever the dropouts.
audio_sine_reached()
{
	if [ "$AUDIO_DROPS_IDLE" != - ] && [ "$AUDIO_DROPS_LOADED" != - ]; then
		ok "$1: the sine reached the card's WAV file, idle and loaded"
	else
		fail "$1: no sine in the card's WAV file (idle: $AUDIO_DROPS_IDLE, loaded: $AUDIO_DROPS_LOADED)"
	fi
}
