#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtime.ko's IRQ-thread rules in a real kernel booted with threadirqs:
# /proc/realtime/irq_threads lists every IRQ thread with its full action
# name; a rule written to /proc/realtime/irq_rules reaches the existing
# threads at once and threads created later (loading virtio_rng for QEMU's
# virtio-rng device, then unbinding and rebinding its driver) after the
# kernel's own FIFO 50; bad writes change nothing; removal restores 50;
# unload leaves the threads as they are.
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

ko=${RT_KO:-}	# the build's realtime.ko for this kernel (run-vm.sh)
[ -f "$ko" ] || skip "realtime.ko is not built for $(uname -r) (-Dkmod=disabled or no linux-headers-$(uname -r))"
# (PREEMPT_RT threads IRQs without threadirqs: irq-nothreadirqs.sh)
grep -qw threadirqs /proc/cmdline || uname -v | grep -q PREEMPT_RT ||
	skip "kernel not booted with threadirqs, and not PREEMPT_RT"
lsmod | grep -q '^virtio_rng ' && skip "virtio_rng already loaded: cannot create IRQ threads later"
rules=/proc/realtime/irq_rules
threads=/proc/realtime/irq_threads

check "insmod" insmod "$ko"
echo "# IRQ threads as the module lists them:"
cat $threads

# listed_ok: every line's pid is an irq/ kthread whose comm is irq/IRQ-NAME
# (the kernel keeps kthreads' full names since 6.1; older ones cut it at 15).
listed_ok()
{
	n=0
	while read -r irq pid policy prio name; do
		comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
		want=$(printf 'irq/%s-%s' "$irq" "$name")
		case "$comm" in
		"$want" | "$(echo "$want" | cut -c1-15)") ;;
		irq/"$irq"-s-*) ;;
		*) echo "pid $pid: comm '$comm' does not match irq $irq name '$name'"; return 1 ;;
		esac
		# shellcheck disable=SC2046 # policy and priority
		set -- $(sched_of "$pid")
		pol=other
		[ "$1" = 1 ] && pol=fifo
		[ "$1" = 2 ] && pol=rr
		if [ "$pol $2" != "$policy $prio" ]; then
			echo "pid $pid: listed $policy $prio, /proc says $pol $2"
			return 1
		fi
		n=$((n + 1))
	done <$threads
	[ "$n" -gt 0 ]
}
check "every listed thread matches /proc (irq, full name, policy, priority)" listed_ok
check_eq "listing has every irq/ kthread" "$(ps -e -o comm= | grep -c '^irq/')" "$(wc -l <$threads)"
check "IRQ threads start at the kernel's FIFO 50" sh -c "awk '\$3 != \"fifo\" || \$4 != 50 { exit 1 }' $threads"

# prio_of_matching GLOB: the distinct "policy priority" of threads whose name matches.
prio_of_matching()
{
	while read -r _ _ policy prio name; do
		# shellcheck disable=SC2254
		case "$name" in
		$1) echo "$policy $prio" ;;
		esac
	done <$threads | sort -u | tr '\n' ';'
}

echo "# a rule reaches the existing threads at once"
check "write 'virtio* 61'" sh -c "echo 'virtio* 61' >$rules"
check_eq "rules read back" "virtio* 61" "$(cat $rules)"
check_eq "virtio threads are FIFO 61" "fifo 61;" "$(prio_of_matching 'virtio*')"
nonvirtio=$(awk '$5 !~ /^virtio/' $threads | wc -l)
if [ "$nonvirtio" -gt 0 ]; then
	check "other threads keep FIFO 50" sh -c "awk '\$5 !~ /^virtio/ && (\$3 != \"fifo\" || \$4 != 50) { exit 1 }' $threads"
fi

echo "# bad writes are refused whole and change nothing"
for bad in 'virtio* 0' 'virtio* 100' 'virtio*' 'a b c' 'x 5\ny 0' 'x -5' "$(printf '%0200d' 0) 5"; do
	check "refused: $bad" sh -c "! printf '$bad\n' >$rules 2>/dev/null"
done
check_eq "rules unchanged" "virtio* 61" "$(cat $rules)"
check "a user without CAP_SYS_NICE cannot write rules" \
	sh -c "! setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all sh -c 'echo \"* 1\" >$rules' 2>/dev/null"

echo "# a thread created later gets the rule after the kernel's FIFO 50"
before=$(awk '{ print $2 }' $threads | sort)
check "modprobe virtio_rng" modprobe virtio_rng
# wait_for_new: until new threads exist and all new ones are at FIFO 61 (3 s).
wait_for_new()
{
	i=0
	while [ $i -lt 30 ]; do
		new=$(awk '{ print $2 }' $threads | sort | comm -23 - "$1")
		if [ -n "$new" ]; then
			bad=0
			for p in $new; do
				[ "$(sched_of "$p")" = "1 61" ] || bad=1
			done
			[ $bad = 0 ] && return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "new threads: $new"
	for p in $new; do echo "$p $(cat /proc/$p/comm) $(sched_of "$p")"; done
	return 1
}
echo "$before" >/tmp/irq-before
check "new IRQ threads of virtio_rng are FIFO 61" wait_for_new /tmp/irq-before
grep virtio $threads

dev=""
for d in /sys/bus/virtio/drivers/virtio_rng/virtio*; do
	[ -e "$d" ] && dev=${d##*/} && break
done
if [ -n "$dev" ]; then
	awk '{ print $2 }' $threads | sort >/tmp/irq-before
	check "unbind $dev from virtio_rng" sh -c "echo $dev >/sys/bus/virtio/drivers/virtio_rng/unbind"
	check "bind $dev again" sh -c "echo $dev >/sys/bus/virtio/drivers/virtio_rng/bind"
	check "rebound device's new IRQ threads are FIFO 61" wait_for_new /tmp/irq-before
else
	check "virtio_rng bound to a device" false
fi

echo "# first matching rule wins; removal goes back to 50"
printf -- '-\nvirtio*-config 72\nvirtio* 62\n' >$rules
check_eq "rules after clear + two" "virtio*-config 72;virtio* 62;" "$(tr '\n' ';' <$rules)"
check_eq "config threads are FIFO 72" "fifo 72;" "$(prio_of_matching 'virtio*-config')"
check_eq "other virtio threads are FIFO 62" "fifo 62;" "$(prio_of_matching 'virtio*[!g]')"
check "remove 'virtio*-config'" sh -c "echo 'virtio*-config -' >$rules"
check_eq "config threads now follow 'virtio*': FIFO 62" "fifo 62;" "$(prio_of_matching 'virtio*-config')"
check "remove 'virtio*'" sh -c "echo 'virtio* -' >$rules"
check_eq "virtio threads back at FIFO 50" "fifo 50;" "$(prio_of_matching 'virtio*')"
check_eq "no rules left" "" "$(cat $rules)"

echo "# at most 128 rules"
gen()
{
	i=0
	echo -
	while [ $i -lt "$1" ]; do
		echo "limit$i 10"
		i=$((i + 1))
	done
}
gen 128 >/tmp/rules128
gen 129 >/tmp/rules129
check "128 rules in one write are taken" sh -c "cat /tmp/rules128 >$rules"
check_eq "128 rules listed" 128 "$(wc -l <$rules)"
check "a 129th rule is refused" sh -c "! echo 'one-more 10' >$rules 2>/dev/null"
check "129 rules in one write are refused" sh -c "! cat /tmp/rules129 >$rules 2>/dev/null"
check_eq "still 128 rules" 128 "$(wc -l <$rules)"
echo - >$rules

echo "# unload leaves the threads' priorities"
echo 'virtio* 63' >$rules
pid=$(awk '$5 ~ /^virtio/ { print $2; exit }' $threads)
check "rmmod realtime" rmmod realtime
check_eq "thread $pid keeps FIFO 63 after unload" "1 63" "$(sched_of "$pid")"
check "/proc/realtime gone" test ! -e /proc/realtime
finish
