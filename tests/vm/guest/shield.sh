#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, the shield ([Daemon] Shield=, realtimed(8) SHIELD) on a real
# kernel: with Shield=auto on the guest's 2 CPUs (CPU 1 shielded),
#   - nothing moves while no realtime grant runs; with one, every IRQ that
#     can move leaves CPU 1, and the default IRQ affinity and the unbound
#     workqueues' cpumask follow; realtimectl status lists each IRQ that
#     stays, and check's shield line is ok;
#   - a device probed while the shield holds (virtio_blk, loaded then, for
#     the boot's virtio-blk disk of 2 queues: its queues' IRQs are
#     managed, one on each CPU; "# vm-sound" below gives the boot that
#     disk, with the audio tier's devices) is seen through its uevent: the managed
#     queue on CPU 1 is reported, not hidden;
#   - 3 s after the grant ends every value is what it was;
#   - realtimed killed (SIGKILL) with the shield held, an IRQ's affinity
#     changed by hand meanwhile, the grant ended: the next start gives
#     every value back but that one, which it leaves and logs;
#   - irqbalance running (every second here, not every 10 s) is told over
#     its socket: it bans CPU 1 and does not undo the shield over three of
#     its passes, and gets its settings back after;
#   - irqbalance running without a socket realtimed can reach: no IRQ moves
#     (the workqueues do), and status and check say why.
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
# vm-sound
# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

if [ "$(hostname)" != rt-vm ] || ! grep -q ' /rt-run ' /proc/mounts; then
	skip "shield.sh runs only inside the project's VM (tests/vm/run-vm.sh): it moves the machine's IRQs"
fi
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] ||
	skip "the guest has CPUs $(cat /sys/devices/system/cpu/online), not 0-1 (VM_SMP=2)"
integ_require_cmd irqbalance python3
integ_require_daemon
integ_enter "$@"
integ_setup
WQ=/sys/devices/virtual/workqueue/cpumask
DEFAULT=/proc/irq/default_smp_affinity

# snapshot: every IRQ's affinity ("N LIST"), the default and the workqueues'.
snapshot()
{
	grep -H . /proc/irq/[0-9]*/smp_affinity_list | sed 's|^/proc/irq/\([0-9]*\)/[^:]*:| \1 |' |
		sort -n | sed 's/^ //'
	echo "default $(cat $DEFAULT)"
	echo "workqueue $(cat $WQ)"
}
# mask_has_1 MASK: does an affinity mask ("2", "00000003") hold CPU 1?
mask_has_1()
{
	[ $((0x${1##*,} & 2)) != 0 ]
}
# cpu1_unsaid: the IRQs whose affinity and effective affinity both hold
# CPU 1 and that realtimectl status does not list as staying. (The
# timer's may name CPU 1 in smp_affinity_list while the kernel keeps it
# on CPU 0; an IO-APIC line moves at its next interrupt, so its effective
# affinity may name CPU 1 after smp_affinity_list no longer does.) One
# process each, not one per IRQ: TCG is slow.
cpu1_unsaid()
{
	"$REALTIMECTL" status 2>/dev/null | sed -n 's/^  IRQ \([0-9]*\) (.*) stays: .*/\1/p' >"$WORK/listed"
	grep -H . /proc/irq/[0-9]*/smp_affinity_list /proc/irq/[0-9]*/effective_affinity_list 2>/dev/null |
		awk -F: -v listed="$WORK/listed" '
		function has1(v,   n, a, i, r) {
			n = split(v, a, ",")
			for (i = 1; i <= n; i++)
				if (split(a[i], r, "-") == 2 ? r[1] + 0 <= 1 && r[2] + 0 >= 1 : a[i] + 0 == 1)
					return 1
			return 0
		}
		BEGIN { while ((getline l < listed) > 0) said[l] = 1 }
		{ split($1, p, "/"); if (has1($2)) on[p[4]]++ }
		END { for (n in on) if (on[n] == 2 && !(n in said)) print n }'
}
shielded()
{
	! mask_has_1 "$(cat $DEFAULT)" && ! mask_has_1 "$(cat $WQ)" && [ -z "$(cpu1_unsaid)" ]
}
# within SECONDS COMMAND...: COMMAND succeeds within SECONDS of wall time
# (wait_for counts tries, and a try of these takes long under TCG).
within()
{
	_end=$(($(date +%s) + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.2
	done
}
grant()
{
	out=$(native --as rtaudio MakeThreadRealtime uint64:$HOLDER_PID uint64:"$1" string:fifo uint32:10)
	expect_success "fifo 10 on thread $1" "$out"
}
ungrant()
{
	out=$(native --as rtaudio ResetThread uint64:$HOLDER_PID uint64:"$1")
	expect_success "reset of thread $1" "$out"
}
# same_as FILE: the values now are those of FILE (IRQs that came since aside).
same_as()
{
	snapshot | awk 'NR == FNR { was[$1] = $2; next } ($1 in was) && was[$1] != $2 { print; bad = 1 }
		END { exit bad }' "$1" -
}
status_says()
{
	"$REALTIMECTL" status 2>&1 | grep -q -- "$1"
}

# --- the shield held and given back ----------------------------------------
lsmod | grep -q '^virtio_blk ' && skip "virtio_blk is loaded already: its IRQs cannot appear later"
integ_admin_conf <<-EOF
	[Daemon]
	Shield=auto
EOF
snapshot >"$WORK/before"
note "before: $(tr '\n' ' ' <"$WORK/before")"
integ_start_daemon
holder_start rtaudio 2 || finish
T1=$(holder_tid 1)
T2=$(holder_tid 2)
check "nothing moves while no realtime grant runs" same_as "$WORK/before"

grant "$T1"
if within 5 shielded; then
	ok "with a realtime grant, CPU 1 has only the IRQs realtimectl status lists as staying"
else
	fail "the shield did not take: on CPU 1 and not listed: $(cpu1_unsaid | tr '\n' ' '); default $(cat $DEFAULT), workqueues $(cat $WQ)"
fi
check "realtimectl status says so" status_says "^Shield (Shield=): held on CPUs 1 for 1 realtime grant"
out=$("$REALTIMECTL" check --json 2>&1)
printf '%s\n' "$out" | grep -A3 '"shield"' | grep -q '"ok"' && ok "check's shield line is ok" ||
	fail "check: $(printf '%s\n' "$out" | grep -A4 '"shield"')"

# a device probed now: its managed queue on CPU 1 is reported
modprobe virtio_blk
managed_said()
{
	"$REALTIMECTL" status | grep -q 'stays: not moved: .*managed'
}
if within 10 managed_said; then
	ok "virtio_blk's managed queue IRQ on CPU 1 is reported: $("$REALTIMECTL" status | grep 'stays: not moved' | head -n 1 | sed 's/^ *//')"
else
	fail "no managed IRQ reported after virtio_blk was loaded: $("$REALTIMECTL" status 2>&1 | tr '\n' '|')"
	grep . /proc/irq/*/smp_affinity_list | grep -v ':0$' | sed 's/^/#   /'
fi
check "and nothing else that appeared is on CPU 1 unsaid" within 5 shielded

ungrant "$T1"
if within 8 same_as "$WORK/before"; then
	ok "3 s after the grant ended every value is back"
else
	fail "not given back: $(same_as "$WORK/before" | tr '\n' ' ')"
fi
check "the journal says so" grep -q "Shield on CPUs 1 given back: the last realtime grant ended" "$WORK/realtimed.log"

# --- a crash, a value changed by hand meanwhile ----------------------------
snapshot >"$WORK/before"
grant "$T2"
within 5 shielded || fail "the shield did not take again"
line=$(awk '$1 == "irq" && $4 != $5 { print; exit }' "$WORK/state/shield")
X=$(echo "$line" | awk '{ print $2 }')
case "$(echo "$line" | awk '{ print $4 }')" in
0-1) HAND=1 ;;
*) HAND=0-1 ;;
esac
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
integ_untrack "$DAEMON_PID"
check "killed with the shield held, its record stays" test -s "$WORK/state/shield"
echo "$HAND" >"/proc/irq/$X/smp_affinity_list" || fail "cannot set IRQ $X to $HAND by hand"
holder_stop
integ_start_daemon
no_record()
{
	[ ! -e "$WORK/state/shield" ]
}
if within 5 no_record; then
	ok "the next start gave back from the record"
else
	fail "the record is still there after the start"
fi
check_eq "IRQ $X, changed by hand meanwhile, is left as it was set" "$HAND" \
	"$(cat "/proc/irq/$X/smp_affinity_list")"
check "and the journal says so" grep -q "Left IRQ $X (.*) at $HAND: someone changed it" "$WORK/realtimed.log"
grep "$X " "$WORK/before" | awk '{ print $2 }' >"/proc/irq/$X/smp_affinity_list"
if same_as "$WORK/before"; then
	ok "every other value is what it was before the shield"
else
	fail "not given back after the crash: $(same_as "$WORK/before" | tr '\n' ' ')"
fi

# --- irqbalance, told over its socket --------------------------------------
# ib_setup: irqbalance's answer to "setup" (SLEEP .. IRQ .. BANNED MASK).
ib_setup()
{
	python3 -c '
import os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(2)
s.connect(sys.argv[1])
cred = struct.pack("iII", os.getpid(), os.getuid(), os.getgid())
s.sendmsg([b"setup"], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, cred)])
out = b""
while True:
    d = s.recv(8192)
    if not d:
        break
    out += d
print(out.decode())' "/run/irqbalance/irqbalance$IB_PID.sock"
}
ib_banned()
{
	ib_setup | sed -n 's/.*BANNED //p'
}
ib_bans_1()
{
	mask_has_1 "$(ib_banned)"
}
ib_back()
{
	[ "$(ib_banned)" = "$IB_BEFORE" ]
}
ib_start()
{
	irqbalance --foreground --interval=1 >"$WORK/irqbalance.log" 2>&1 &
	IB_PID=$!
	integ_track $IB_PID
}
holder_start rtaudio 1 || finish
T1=$(holder_tid 1)
mkdir -p /run/irqbalance
ib_start
wait_for 10 test -S "/run/irqbalance/irqbalance$IB_PID.sock" || fail "irqbalance made no socket: $(cat "$WORK/irqbalance.log")"
sleep 2 # its first passes
IB_BEFORE=$(ib_banned)
note "irqbalance (pid $IB_PID) bans CPUs $IB_BEFORE before the shield"
grant "$T1"
check "realtimectl status: irqbalance told" within 5 status_says "irqbalance: told (pid $IB_PID)"
if within 5 ib_bans_1; then
	ok "irqbalance bans CPU 1 (BANNED $(ib_banned))"
else
	fail "irqbalance does not ban CPU 1: $(ib_setup)"
fi
sleep 3 # three of its passes
check "irqbalance did not undo the shield over three of its passes" shielded
ungrant "$T1"
if within 8 ib_back; then
	ok "irqbalance has its settings back (BANNED $IB_BEFORE)"
else
	fail "irqbalance's banned CPUs are $(ib_banned), not $IB_BEFORE"
fi
kill "$IB_PID"
wait "$IB_PID" 2>/dev/null
integ_untrack "$IB_PID"

# --- irqbalance out of reach ------------------------------------------------
# without /run/irqbalance it listens on an abstract socket of a name of its own
rm -rf /run/irqbalance
ib_start
sleep 2
snapshot >"$WORK/before"
grant "$T1"
check "status says irqbalance is out of reach" within 5 status_says "irqbalance: irqbalance (pid $IB_PID) runs, but its socket"
check "and what to do" status_says "IRQBALANCE_BANNED_CPULIST=1"
out=$("$REALTIMECTL" check --json 2>&1)
printf '%s\n' "$out" | grep -A3 '"shield"' | grep -q '"warn"' && ok "check's shield line warns" ||
	fail "check: $(printf '%s\n' "$out" | grep -A4 '"shield"')"
mask_has_1 "$(cat $WQ)" && fail "the workqueues still reach CPU 1: $(cat $WQ)" ||
	ok "the workqueues are shielded still"
check_eq "no IRQ moved" 0 "$("$REALTIMECTL" status | sed -n 's/.*: \([0-9]*\) IRQs\{0,1\} moved off them.*/\1/p')"
ungrant "$T1"
holder_stop
kill "$IB_PID"
wait "$IB_PID" 2>/dev/null
integ_untrack "$IB_PID"
WQ_BEFORE=$(awk '$1 == "workqueue" { print $2 }' "$WORK/before")
wq_back()
{
	[ "$(cat $WQ)" = "$WQ_BEFORE" ]
}
check "the workqueues are given back" within 8 wq_back
rmmod virtio_blk
finish
