#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# realtimed applies the policy's [IRQ] section in a real kernel booted with
# threadirqs, with and without realtime.ko:
#   - without the module: existing IRQ threads get their priority at start,
#     and threads created later (loading virtio_rng for QEMU's virtio-rng
#     device, then unbinding and rebinding its driver) get it after the
#     kernel's own FIFO 50, through the daemon's uevent listener;
#   - with the module: a reload hands the rules to /proc/realtime/irq_rules.
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

if [ "$(hostname)" != rt-vm ] || ! grep -q ' /rt-run ' /proc/mounts; then
	skip "daemon-irq.sh runs only inside the project's VM (tests/vm/run-vm.sh)"
fi
grep -qw threadirqs /proc/cmdline || uname -v | grep -q PREEMPT_RT ||
	skip "kernel not booted with threadirqs, and not PREEMPT_RT: no IRQ threads"
lsmod | grep -q '^virtio_rng ' && skip "virtio_rng already loaded: cannot create IRQ threads later"
lsmod | grep -q '^realtime ' && skip "realtime.ko already loaded: the daemon would hand it the rules"
integ_require_daemon
integ_enter "$@"
integ_setup
PRIO=63
integ_admin_conf <<-EOF
	[IRQ]
	virtio*=$PRIO
EOF

# virtio_threads: "pid policy priority" of every irq/N-virtio* thread.
virtio_threads()
{
	irq_threads 'virtio*'
}
# all_at_prio: every virtio IRQ thread is SCHED_FIFO (1) at $PRIO, and there is one.
all_at_prio()
{
	irq_threads_at 'virtio*' "$PRIO"
}
# wait_new_at_prio BEFORE: new virtio IRQ threads exist and all are at $PRIO (5 s).
wait_new_at_prio()
{
	i=0
	while [ $i -lt 50 ]; do
		new=$(virtio_threads | awk '{ print $1 }' | sort | comm -23 - "$1")
		if [ -n "$new" ] && all_at_prio; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "# new threads: $new"
	virtio_threads | sed 's/^/#   /'
	return 1
}

virtio_threads | sed 's/^/# before start: /'
integ_start_daemon
if wait_for 5 all_at_prio; then
	ok "existing virtio IRQ threads are FIFO $PRIO once realtimed started"
else
	fail "existing virtio IRQ threads are not FIFO $PRIO after start"
	virtio_threads | sed 's/^/#   /'
fi

virtio_threads | awk '{ print $1 }' | sort >"$WORK/before"
if modprobe virtio_rng; then
	if wait_new_at_prio "$WORK/before"; then
		ok "IRQ threads created later (virtio_rng loaded) get FIFO $PRIO from realtimed"
	else
		fail "IRQ threads created later did not get FIFO $PRIO"
	fi
else
	fail "modprobe virtio_rng"
fi

dev=""
for d in /sys/bus/virtio/drivers/virtio_rng/virtio*; do
	[ -e "$d" ] && dev=${d##*/} && break
done
if [ -n "$dev" ]; then
	virtio_threads | awk '{ print $1 }' | sort >"$WORK/before"
	echo "$dev" >/sys/bus/virtio/drivers/virtio_rng/unbind
	echo "$dev" >/sys/bus/virtio/drivers/virtio_rng/bind
	if wait_new_at_prio "$WORK/before"; then
		ok "a rebound driver's new IRQ threads get FIFO $PRIO"
	else
		fail "a rebound driver's new IRQ threads did not get FIFO $PRIO"
	fi
else
	fail "virtio_rng is bound to no device"
fi
grep -i 'IRQ' "$WORK/realtimed.log" | tail -n 4 | sed 's/^/#   /'

ko=${RT_KO:-}	# the build's realtime.ko for this kernel (run-vm.sh)
if [ ! -f "$ko" ]; then
	note "realtime.ko is not built for $(uname -r): the hand-over is not checked"
elif ! insmod "$ko"; then
	fail "insmod $ko"
else
	kill -HUP "$DAEMON_PID"
	if wait_for 5 grep -qx "virtio\\* $PRIO" /proc/realtime/irq_rules; then
		ok "on reload realtimed hands the [IRQ] rules to realtime.ko"
	else
		fail "realtime.ko did not get the [IRQ] rules: $(tr '\n' ';' </proc/realtime/irq_rules)"
	fi
	if grep -q 'realtime.ko' "$WORK/realtimed.log"; then
		ok "the log says the module holds the rules"
	else
		fail "no log line about handing the rules to realtime.ko"
	fi
	integ_stop_daemon
	rmmod realtime
fi
finish
