#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-no-threadirqs
#
# Which kernels have IRQ threads without threadirqs: this guest boots
# without it (the other IRQ tests boot with it). On PREEMPT_RT (6.12-rt)
# forced IRQ threading is always on: the virtio devices' interrupts have
# their irq/ threads all the same, realtime.ko lists them and its rules
# reach them, also those created later (loading virtio_rng). On 6.1 and
# 6.12 without PREEMPT_RT the same interrupts have no thread, so threadirqs
# is what makes them there and the rules have nothing to act on; the test
# checks that and says so. The check runs it on the default kernel only
# (tests/vm/meson.build says why); on PREEMPT_RT by hand:
#   tests/vm/run-vm.sh --kernel-package linux-image-6.12-rt-amd64 tests/vm/guest/irq-nothreadirqs.sh
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

ko=${RT_KO:-}	# the build's realtime.ko for this kernel (run-vm.sh)
[ -f "$ko" ] || skip "realtime.ko is not built for $(uname -r) (-Dkmod=disabled or no linux-headers-$(uname -r))"
lsmod | grep -q '^virtio_rng ' && skip "virtio_rng already loaded: cannot create IRQ threads later"
rules=/proc/realtime/irq_rules
threads=/proc/realtime/irq_threads
rt=0
case "$(uname -v)" in
*PREEMPT_RT*) rt=1 ;;
esac
echo "# kernel $(uname -r): $(uname -v)"

check "booted without threadirqs" sh -c '! grep -qw threadirqs /proc/cmdline'
check "the kernel has virtio interrupts" grep -q virtio /proc/interrupts
check "insmod" insmod "$ko"
echo "# IRQ threads as the module lists them:"
cat $threads
nvirtio()
{
	awk '$5 ~ /^virtio/' $threads | wc -l
}
check_eq "listing has every irq/ kthread" "$(ps -e -o comm= | grep -c '^irq/')" "$(wc -l <$threads)"

if [ $rt = 1 ]; then
	check_eq "PREEMPT_RT: /sys/kernel/realtime" 1 "$(cat /sys/kernel/realtime 2>/dev/null)"
	check "PREEMPT_RT: the virtio interrupts have IRQ threads without threadirqs" test "$(nvirtio)" -gt 0
	check "write 'virtio* 61'" sh -c "echo 'virtio* 61' >$rules"
	check_eq "virtio threads are FIFO 61" "fifo 61" \
		"$(awk '$5 ~ /^virtio/ { print $3, $4 }' $threads | sort -u | tr '\n' ';' | sed 's/;$//')"
	before=$(nvirtio)
	check "modprobe virtio_rng" modprobe virtio_rng
	# new threads of virtio_rng, all at FIFO 61 after the kernel's 50 (3 s)
	new_at_61()
	{
		i=0
		while [ $i -lt 30 ]; do
			if [ "$(nvirtio)" -gt "$before" ] &&
				[ "$(awk '$5 ~ /^virtio/ && ($3 != "fifo" || $4 != 61)' $threads | wc -l)" = 0 ]; then
				return 0
			fi
			sleep 0.1
			i=$((i + 1))
		done
		cat $threads
		return 1
	}
	check "virtio_rng's new IRQ threads are FIFO 61" new_at_61
	echo 'virtio* -' >$rules
	check_eq "virtio threads back at FIFO 50" "fifo 50" \
		"$(awk '$5 ~ /^virtio/ { print $3, $4 }' $threads | sort -u | tr '\n' ';' | sed 's/;$//')"
else
	check_eq "not PREEMPT_RT: /sys/kernel/realtime absent or 0" "" \
		"$(grep -vx 0 /sys/kernel/realtime 2>/dev/null)"
	check_eq "no IRQ thread for the virtio interrupts (not on this kernel without threadirqs: it is not PREEMPT_RT)" \
		0 "$(nvirtio)"
	check "modprobe virtio_rng" modprobe virtio_rng
	sleep 1
	check_eq "nor for virtio_rng's, loaded later" 0 "$(nvirtio)"
	check "a rule is still taken (it waits for threads to exist)" sh -c "echo 'virtio* 61' >$rules"
	check_eq "rules read back" "virtio* 61" "$(cat $rules)"
fi
check_eq "no probe hit was missed" 0 "$(cat /proc/sys/security/realtime/missed)"
check "rmmod realtime" rmmod realtime
finish
