#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Guest side of bench/shield-bench.sh (runs inside the VM as real root,
# booted without threadirqs, as a stock kernel runs): what the shield
# ([Daemon] Shield=auto: CPU 1 of 2) buys a realtime thread on the shielded
# CPU under a disturbance that raises interrupts: disk reads (O_DIRECT, an
# AHCI disk whose reads QEMU answers with zeroes) and UDP traffic between
# two virtio-net NICs on one QEMU hub (one of them in a network namespace).
# Each round: realtimectl latency on CPU 1 for DURATION as rtaudio,
# granted SCHED_FIFO 95 by realtimed, with Shield=auto or Shield=none (a
# reload between), the order alternating round by round; the disturbance
# runs on CPU 0 only ("io on cpu0": CPU 1 then sees only what interrupts
# bring it) or anywhere ("io anywhere"). Prints one "round" line each and
# the device interrupts CPU 1 took meanwhile (/proc/interrupts, numbered
# IRQs only: the timer tick and IPIs are no device's). The disk's and the
# NICs' IRQs start on CPU 1, where irqbalance may put them (the shield
# moves them off it, and gives that back).
# vm-no-threadirqs
# vm-qemu-args: -blockdev driver=null-co,node-name=benchdisk,size=1073741824,read-zeroes=on -device ide-hd,drive=benchdisk,bus=ide.0 -netdev hubport,id=bna,hubid=7 -device virtio-net-pci,netdev=bna,mac=52:54:00:5e:00:01 -netdev hubport,id=bnb,hubid=7 -device virtio-net-pci,netdev=bnb,mac=52:54:00:5e:00:02
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

ROUNDS=${SHIELD_ROUNDS:-4}
DURATION=${SHIELD_DURATION:-10}
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] || skip "needs 2 CPUs (VM_SMP=2)"
integ_require_daemon
integ_require_cmd python3 ip taskset dd
integ_enter "$@"
integ_setup

modprobe ahci && modprobe sd_mod && modprobe virtio_net || skip "cannot load ahci, sd_mod, virtio_net"
# iface_of MAC: the interface with that address
iface_of()
{
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$1" ] && echo "${d##*/}"
	done
}
wait_for 10 sh -c '[ -b /dev/sda ]' || skip "no /dev/sda (the bench's disk)"
wait_for 10 sh -c "[ -n \"\$(ls /sys/class/net | grep -v lo)\" ]"
IFA=$(iface_of 52:54:00:5e:00:01)
IFB=$(iface_of 52:54:00:5e:00:02)
[ -n "$IFA" ] && [ -n "$IFB" ] || skip "the bench's NICs are missing"
# The devices' IRQs where irqbalance, which Debian runs on many machines,
# may put them: on CPU 1. Left alone, this VM's kernel gives each of them
# CPU 0 (effective affinity), so that without the shield CPU 1 takes no
# device interrupt at all and there is nothing to shield it from.
VIRTA=$(basename "$(readlink -f "/sys/class/net/$IFA/device")")
VIRTB=$(basename "$(readlink -f "/sys/class/net/$IFB/device")")
for n in $(awk -v a="$VIRTA-" -v b="$VIRTB-" '$1 ~ /^[0-9]+:$/ &&
	($NF ~ /ahci/ || index($NF, a) == 1 || index($NF, b) == 1) { sub(":", "", $1); print $1 }' /proc/interrupts); do
	if echo 2 >"/proc/irq/$n/smp_affinity" 2>/dev/null; then
		note "IRQ $n ($(awk -v n="$n:" '$1 == n { print $NF }' /proc/interrupts)) put on CPU 1"
	fi
done
ip netns add shieldb || skip "no network namespaces"
ip link set "$IFB" netns shieldb
ip addr add 10.9.0.1/24 dev "$IFA"
ip link set "$IFA" up
ip -n shieldb addr add 10.9.0.2/24 dev "$IFB"
ip -n shieldb link set "$IFB" up
ip -n shieldb link set lo up

# disturb CPUS: disk reads and UDP both ways, on CPUS, until killed
disturb()
{
	taskset -c "$1" sh -c 'while :; do dd if=/dev/sda of=/dev/null bs=64k count=4096 iflag=direct 2>/dev/null; done' &
	DPIDS="$!"
	taskset -c "$1" ip netns exec shieldb python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.9.0.2", 9000))
while True:
    d, a = s.recvfrom(2048)
    s.sendto(d, a)' &
	DPIDS="$DPIDS $!"
	sleep 0.5
	taskset -c "$1" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setblocking(False)
p = b"x" * 1200
while True:
    try:
        s.sendto(p, ("10.9.0.2", 9000))
        s.recv(2048)
    except BlockingIOError:
        pass' &
	DPIDS="$DPIDS $!"
}
stop_disturb()
{
	# shellcheck disable=SC2086
	kill $DPIDS 2>/dev/null
	for p in $DPIDS; do wait "$p" 2>/dev/null; done
	pkill -f 'dd if=/dev/sda' 2>/dev/null
}
# cpu1_irqs: the device interrupts CPU 1 has taken so far
cpu1_irqs()
{
	awk 'NR > 1 && $1 ~ /^[0-9]+:$/ { n += $3 } END { print n + 0 }' /proc/interrupts
}
# cpu1_by_irq: "N COUNT NAME" of each numbered IRQ, CPU 1's count
cpu1_by_irq()
{
	awk 'NR > 1 && $1 ~ /^[0-9]+:$/ { sub(":", "", $1); print $1, $3, $NF }' /proc/interrupts
}
# cpu1_top BEFORE AFTER SECONDS: the IRQs CPU 1 took most of meanwhile, per s
cpu1_top()
{
	awk -v s="$3" 'NR == FNR { was[$1] = $2; next }
		$2 - was[$1] > 0 { printf "%d %s %.0f/s\n", $1, $3, ($2 - was[$1]) / s }' "$1" "$2" |
		sort -t' ' -k3 -rn | head -n 3 | tr '\n' ' '
}
shield()
{
	printf '[Daemon]\nShield=%s\n' "$1" >"$WORK/admin.conf"
	out=$(native Reload)
	expect_success "Shield=$1" "$out" >/dev/null
}

integ_start_daemon
round()
{
	load=$1 mode=$2 n=$3
	if [ "$mode" = on ]; then shield auto; else shield none; fi
	before=$(cpu1_irqs)
	cpu1_by_irq >"$WORK/irqs.before"
	run_as rtaudio "$REALTIMECTL" latency --cpu 1 --duration "${DURATION}s" --json \
		>"$WORK/l.json" 2>"$WORK/l.err"
	after=$(cpu1_irqs)
	cpu1_by_irq >"$WORK/irqs.after"
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = [c for c in j["cpus"] if c["cpu"] == 1][0]
print("round %s load=%s shield=%s policy=%s p99=%.1f p999=%.1f max=%.1f irqs_cpu1_per_s=%.0f" % (
    sys.argv[2], sys.argv[3], sys.argv[4], c["policy"], c["p99_us"], c["p999_us"], c["max_us"],
    (int(sys.argv[5]) - int(sys.argv[6])) / float(j["duration_s"])))' \
		"$WORK/l.json" "$n" "$load" "$mode" "$after" "$before" ||
		{ cat "$WORK/l.err"; fail "round $n: no figures"; }
	[ "$mode" != on ] ||
		note "round $n, shielded: CPU 1 took most from IRQ $(cpu1_top "$WORK/irqs.before" "$WORK/irqs.after" "$DURATION")"
	# the shield's 3 s of lingering end before the next round
	sleep 4
}
for load in cpu0 anywhere; do
	if [ "$load" = cpu0 ]; then disturb 0; else disturb 0-1; fi
	sleep 2
	i=1
	while [ "$i" -le "$ROUNDS" ]; do
		if [ $((i % 2)) = 1 ]; then
			round "$load" on "$i"
			round "$load" off "$i"
		else
			round "$load" off "$i"
			round "$load" on "$i"
		fi
		i=$((i + 1))
	done
	stop_disturb
done
grep -E 'Shielding CPUs|given back|Not shielding' "$WORK/realtimed.log" | tail -n 4 | sed 's/^/# /'
finish
