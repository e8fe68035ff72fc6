#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/audio-bench.sh: xruns and dropouts, the measure users live by, as
# the audio tier takes them (tests/vm/AUDIO.md), with more rounds than the
# test suite can afford. As root, under the shared lock (it boots QEMU):
#
#	flock /tmp/rt-heavy.lock bench/audio-bench.sh [BUILD_DIR]   (default: build)
#
# For each kernel of KERNELS (default "6.1 6.12-rt": the vm tier's
# labels), one boot of its own runs tests/vm/guest/audio-jack.sh (jackd
# granted by realtimed against the same jackd refused, a non-member) and
# audio-pipewire.sh (PipeWire served by realtimed against rtkit-daemon),
# and SIDES (default "granted granted-nocanary refused": the third is
# jackd granted by a realtimed with Canary=no; "granted-shield" is jackd
# granted while realtimed's shield holds, Shield=auto and ShieldPin=yes),
# and PW_SIDES (default
# "rtkit realtimed"; "rtkit realtimed refused" adds PipeWire as a
# non-member, refused)
# with ROUNDS alternating rounds (default 6) of AUDIO_SECONDS (default 5) idle
# and as long under the disturbance, JACK at PERIOD x NPERIODS frames
# (default 512 x 3) and PipeWire at QUANTUM (default 1024).
# VM_QEMU_ARGS reaches QEMU (e.g. "-icount shift=1,sleep=off": the guest's
# clock counts its instructions, so that the host's load no longer
# reaches the guest's timing). DISTURB (default cpu+io) is the
# disturbance (audio-lib.sh's AUDIO_DISTURB: parts joined by "+": cpu,
# stress-ng; io, 9p reads; net, ping floods over virtio NICs, whose IRQ
# threads run at FIFO 50); with net the boots get VM_NET NICs (default 2,
# one per vCPU's RX interrupt). CARD_IRQ=50 puts the sound card's IRQ
# thread back to 50 in realtimed's PipeWire rounds too (AUDIO_PW_CARD_IRQ in
# audio-pipewire.sh), so that PipeWire's priority is all that differs
# from rtkit's rounds. Prints the audio-result lines and, per
# kernel, a table of the sums; with RESULTS=1 writes them into the
# "## Audio: xruns and dropouts" section of bench/RESULTS.md (with another
# DISTURB, "## Audio: xruns and dropouts, disturbance DISTURB"), with the
# command, the host's load and the date. Exits 1 when a boot failed.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
export TOP_SRCDIR
BUILD=$(cd "${1:-$TOP_SRCDIR/build}" && pwd) || exit 1
KERNELS=${KERNELS:-6.1 6.12-rt}
ROUNDS=${ROUNDS:-6}
SECONDS_EACH=${AUDIO_SECONDS:-5}
PERIOD=${PERIOD:-512}
NPERIODS=${NPERIODS:-3}
QUANTUM=${QUANTUM:-1024}
# jackd granted, granted by a realtimed without its canary watchdog, and
# refused (tests/vm/guest/audio-jack.sh)
SIDES=${SIDES:-granted granted-nocanary refused}
# PipeWire served by rtkit-daemon, by realtimed, and refused by realtimed
# (tests/vm/guest/audio-pipewire.sh)
PW_SIDES=${PW_SIDES:-rtkit realtimed}
# the guest scripts to run (names in tests/vm/guest)
SCRIPTS=${SCRIPTS:-audio-jack audio-pipewire}
DISTURB=${DISTURB:-cpu+io}
case "+$DISTURB+" in
*+net+*) export VM_NET="${VM_NET:-2}" ;;
esac

[ "$(id -u)" = 0 ] || { echo "run as root (the VM tier needs it)" >&2; exit 77; }
[ -x "$BUILD/tests/audio/wav-dropouts" ] || { echo "the audio tools are not built in $BUILD" >&2; exit 77; }
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT

load0=$(cut -d' ' -f1-3 /proc/loadavg)
status=0
for k in $KERNELS; do
	case "$k" in
	6.12-rt) pkg=linux-image-6.12-rt-amd64 ;;
	6.12) pkg=linux-image-6.12-amd64 ;;
	*) pkg=linux-image-amd64 ;;
	esac
	echo "=== $k: $ROUNDS round(s) of ${SECONDS_EACH}s, jackd ${PERIOD}x$NPERIODS, PipeWire $QUANTUM, disturbance $DISTURB"
	paths=
	for s in $SCRIPTS; do
		paths="$paths $TOP_SRCDIR/tests/vm/guest/$s.sh"
	done
	t0=$(date +%s)
	TOP_BUILDDIR=$BUILD \
		AUDIO_ROUNDS=$ROUNDS AUDIO_SECONDS=$SECONDS_EACH AUDIO_JACK_PERIOD=$PERIOD \
		AUDIO_JACK_NPERIODS=$NPERIODS AUDIO_PW_QUANTUM=$QUANTUM AUDIO_JACK_SIDES=$SIDES \
		AUDIO_PW_SIDES=$PW_SIDES AUDIO_DISTURB=$DISTURB AUDIO_PW_CARD_IRQ=${CARD_IRQ:-} \
		VM_PASS_ENV="AUDIO_ROUNDS AUDIO_SECONDS AUDIO_JACK_PERIOD AUDIO_JACK_NPERIODS AUDIO_PW_QUANTUM AUDIO_JACK_SIDES AUDIO_PW_SIDES AUDIO_DISTURB AUDIO_PW_CARD_IRQ" \
		"$TOP_SRCDIR/tests/vm/run-vm.sh" --kernel-package "$pkg" --label "$k" --timeout 3000 \
		$paths >"$work/$k.tap" 2>&1 || status=1
	grep -q '^not ok' "$work/$k.tap" && status=1
	grep '^ok\|^not ok\|SKIP' "$work/$k.tap"
	sed -n 's/^# audio-result //p' "$work/$k.tap" | tee "$work/$k.results"
	echo "($(($(date +%s) - t0)) s)"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

# table KERNEL: the sums per server and side, idle and loaded, of the
# rounds' xruns and dropouts ("-": no sine reached the file, counted as
# none and said), and the CPU time realtimed and its canary watchdog used
# while loaded (ms, all rounds)
table()
{
	awk '
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		key = f["server"] " " f["buffer"] " " f["who"]
		if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		x[key, f["load"]] += f["xruns"]
		if (f["dropouts"] == "-") nosine[key, f["load"]]++
		else d[key, f["load"]] += f["dropouts"]
		r[key, f["load"]]++
		if (f["load"] == "loaded") {
			cpu[key] += f["realtimed_us"]; wd[key] += f["watchdog_us"]
			irq[key] += f["irqs_per_s"]
			if ("net_irqs_per_s" in f) { net = 1; nirq[key] += f["net_irqs_per_s"]; nms[key] += f["net_irq_thread_ms"] }
		}
		delete f
	}
	END {
		printf "| server | buffer | served by | rounds | idle: xruns | idle: dropouts | loaded: xruns | loaded: dropouts | loaded: realtimed CPU ms (watchdog) | loaded: virtio IRQs/s |"
		print net ? " loaded: NIC IRQs/s, NIC IRQ threads CPU ms/round |" : ""
		print "|---|---|---|---|---|---|---|---|---|---|" (net ? "---|" : "")
		for (i = 1; i <= n; i++) {
			split(order[i], k, " ")
			rl = r[order[i], "loaded"] ? r[order[i], "loaded"] : 1
			printf "| %s | %s | %s | %d | %d | %d%s | %d | %d%s | %.1f (%.1f) | %d |", k[1], k[2], k[3],
				r[order[i], "idle"], x[order[i], "idle"], d[order[i], "idle"],
				nosine[order[i], "idle"] ? " (" nosine[order[i], "idle"] " without sine)" : "",
				x[order[i], "loaded"], d[order[i], "loaded"],
				nosine[order[i], "loaded"] ? " (" nosine[order[i], "loaded"] " without sine)" : "",
				cpu[order[i]] / 1000, wd[order[i]] / 1000, irq[order[i]] / rl
			print net ? sprintf(" %d, %d |", nirq[order[i]] / rl, nms[order[i]] / rl) : ""
		}
	}' "$1"
}

{
	echo "Measured $(date -u +%Y-%m-%d) by"
	echo "\`flock /tmp/rt-heavy.lock env ROUNDS=$ROUNDS AUDIO_SECONDS=$SECONDS_EACH PERIOD=$PERIOD" \
		"NPERIODS=$NPERIODS QUANTUM=$QUANTUM SIDES=\"$SIDES\" PW_SIDES=\"$PW_SIDES\" SCRIPTS=\"$SCRIPTS\" DISTURB=$DISTURB${VM_NET:+ VM_NET=$VM_NET}${CARD_IRQ:+ CARD_IRQ=$CARD_IRQ}${VM_QEMU_ARGS:+ VM_QEMU_ARGS=\"$VM_QEMU_ARGS\"} bench/audio-bench.sh\`"
	echo "(TCG, 2 vCPUs on the host's $(nproc) CPUs; the host's load average $load0 before, $load1 after)."
	what=
	case "+$DISTURB+" in *+cpu+*) what="$what, stress-ng --cpu on every vCPU" ;; esac
	case "+$DISTURB+" in *+io+*) what="$what, 9p reads" ;; esac
	case "+$DISTURB+" in *+net+*) what="$what, ping floods (one per vCPU and NIC) over $VM_NET virtio NIC(s)" ;; esac
	echo "Sums over the rounds, each ${SECONDS_EACH} s idle and ${SECONDS_EACH} s under the disturbance $DISTURB (${what#, });"
	echo "xruns as the server reported them, dropouts as wav-dropouts found them in the"
	echo "card's WAV file; the interrupt rates are the loaded stretches' mean."
	[ -z "${CARD_IRQ:-}" ] || echo "The card's IRQ thread at FIFO $CARD_IRQ in realtimed's PipeWire rounds too (CARD_IRQ)."
	for k in $KERNELS; do
		echo
		echo "Kernel $k ($(sed -n 's/.*kernel=\([^ ]*\).*/\1/p' "$work/$k.results" | head -n 1)):"
		echo
		table "$work/$k.results"
	done
} >"$work/section"
echo
cat "$work/section"
if [ "${RESULTS:-0}" = 1 ]; then
	heading="Audio: xruns and dropouts"
	[ "$DISTURB" = cpu+io ] || heading="$heading, disturbance $DISTURB"
	[ -z "${CARD_IRQ:-}" ] || heading="$heading, card IRQ thread at $CARD_IRQ"
	python3 "$TOP_SRCDIR/bench/results-section.py" "$TOP_SRCDIR/bench/RESULTS.md" \
		"$heading" "$work/section"
fi
exit "$status"
