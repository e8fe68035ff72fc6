#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The whole stack in the VM, where root has every capability (the host's root
# lacks CAP_SYS_RESOURCE): dbus-daemon + real polkitd + realtimed from the
# build dir, set up by the integration harness (tests/integration/lib.sh):
#   1. the canary: one runaway SCHED_FIFO busy loop per vCPU (RT throttling
#      off, so nothing but the daemon's watchdog can stop them) is demoted
#      within CanaryWatchdogSec, with a Demoted(canary) signal; new grants
#      are refused for CanaryRefuseSec, and the VM answers again;
#   2. jackd -R -d dummy, started by an audio member through
#      `realtimectl run --limits`, runs SCHED_FIFO (tests/integration/test-jackd.sh);
#   3. PipeWire's module-rt asking rt.prio 88 gets 88 (test-pipewire.sh).
# Only ever run in the VM: step 1 would freeze a host.

. "$TOP_SRCDIR/tests/integration/lib.sh"

if [ "$(hostname)" != rt-vm ] || ! grep -q ' /rt-run ' /proc/mounts; then
	skip "stack.sh runs only inside the project's VM (tests/vm/run-vm.sh)"
fi
integ_require_daemon
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built"
integ_enter "$@"

echo "# --- 1. the canary watchdog demotes runaway SCHED_FIFO threads"
integ_require_cmd dbus-monitor
integ_setup
WATCHDOG=2
integ_admin_conf <<-EOF
	[Daemon]
	Canary=yes
	CanaryWatchdogSec=$WATCHDOG
	CanaryRefuseSec=30
EOF
integ_start_daemon

RT_RUNTIME=$(cat /proc/sys/kernel/sched_rt_runtime_us)
restore()
{
	echo "$RT_RUNTIME" >/proc/sys/kernel/sched_rt_runtime_us
	integ_cleanup
}
trap restore EXIT
# with the kernel's RT throttling (95%) the canary would still get 5%
echo -1 >/proc/sys/kernel/sched_rt_runtime_us

dbus-monitor --system "type='signal',interface='$NATIVE_IFACE',member='Demoted'" >"$WORK/monitor.out" 2>&1 &
integ_track $!
sleep 0.5

# one runaway per vCPU; each sleeps 4 s (granted meanwhile, as a JACK
# thread is granted before it runs), then spins; it reports how long it ran
# realtime, and gives up by itself after 20 s if nothing demotes it
NCPU=$(nproc)
SPIN=""
i=0
while [ $i -lt "$NCPU" ]; do
	as_bg rtaudio "$RT_CLIENT" spin 20 4000 >"$WORK/spin.$i" 2>&1
	SPIN="$SPIN $!"
	integ_track $!
	i=$((i + 1))
done
i=0
while [ $i -lt "$NCPU" ]; do
	wait_for 10 grep -q '^pid' "$WORK/spin.$i" || fail "runaway $i did not start"
	i=$((i + 1))
done
note "$(date +%T.%N) granting SCHED_FIFO 50 to the runaways:$SPIN"
for p in $SPIN; do
	out=$(native --as rtaudio MakeThreadRealtime uint64:$p uint64:$p string:fifo uint32:50)
	expect_success "runaway busy loop $p made SCHED_FIFO 50" "$out"
done
# this shell is SCHED_OTHER: it runs again once the runaways are demoted
# (or have given up)
for p in $SPIN; do
	wait "$p"
	integ_untrack "$p"
done
note "$(date +%T.%N) the runaways are gone"
echo "$RT_RUNTIME" >/proc/sys/kernel/sched_rt_runtime_us
i=0
while [ $i -lt "$NCPU" ]; do
	r=$(grep -v '^pid' "$WORK/spin.$i")
	ms=$(echo "$r" | sed -n 's/^demoted after \([0-9]*\) ms.*/\1/p')
	if [ -n "$ms" ] && [ "$ms" -le $((WATCHDOG * 1000 + 1500)) ]; then
		ok "runaway $i: $r (CanaryWatchdogSec=$WATCHDOG)"
	else
		fail "runaway $i: $r (want demoted within $((WATCHDOG * 1000 + 1500)) ms)"
	fi
	i=$((i + 1))
done
if wait_for 5 grep -q '"canary"' "$WORK/monitor.out"; then
	ok "a Demoted signal with reason \"canary\" was sent"
else
	fail "no Demoted(canary) signal: $(cat "$WORK/monitor.out")"
fi
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 10 2>&1)
if echo "$out" | grep -q "^refused: $NATIVE_ERR.Refusing"; then
	ok "new grants are refused during CanaryRefuseSec ($(echo "$out" | grep '^refused' | cut -c1-120))"
else
	fail "a grant right after the canary fired was not refused with Refusing: $out"
fi
start=$(date +%s%N)
echo responsive >"$WORK/resp"
[ "$(cat "$WORK/resp")" = responsive ] && [ $((($(date +%s%N) - start) / 1000000)) -lt 1000 ] &&
	ok "the VM is responsive again" || fail "the VM is slow after the demotion"
kill -0 "$DAEMON_PID" && ok "realtimed still runs" || fail "realtimed died"
grep -i 'canary\|demot\|watchdog' "$WORK/realtimed.log" | tail -n 6 | sed 's/^/#   /'
integ_stop_daemon

for t in test-jackd test-pipewire; do
	echo "# --- tests/integration/$t.sh in the VM"
	# its own private namespace, nested in this one
	env -u INTEG_IN_NAMESPACE sh "$TOP_SRCDIR/tests/integration/$t.sh"
	rc=$?
	case $rc in
	0) ok "$t passes in the VM" ;;
	77) note "$t skipped in the VM" ;;
	*) fail "$t failed in the VM (exit $rc)" ;;
	esac
done

integ_finish
