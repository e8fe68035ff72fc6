#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A vm-tier guest script (tests/vm/run-vm.sh contract: real root in QEMU
# with Debian's kernel booted with threadirqs; TOP_SRCDIR/TOP_BUILDDIR set;
# exit 0 pass, 77 skip, else fail) for `realtimectl irq --offline`: every
# IRQ thread the kernel has is listed with its full action name (completed
# from /proc/irq/N/ where the thread's name is cut at 15 characters); with
# realtime.ko loaded the module's listing is used and names the same
# threads; priorities set through the module's rules show up as the kernel
# reports them; the RULE column shows the matching [IRQ] line.
#
#   tests/vm/run-vm.sh tests/vm/guest/ctl-irq.sh

# shellcheck source=tests/vm/lib.sh
. "${TOP_SRCDIR:?}/tests/vm/lib.sh"
C=${TOP_BUILDDIR:?}/realtimectl/realtimectl
KO=${RT_KO:-}	# the build's realtime.ko for this kernel (run-vm.sh)

[ -x "$C" ] || skip "realtimectl is not built ($C)"
command -v python3 >/dev/null || skip "python3 is missing"
[ "$(id -u)" = 0 ] || skip "needs root (run it in the VM through tests/vm/run-vm.sh)"
grep -qw threadirqs /proc/cmdline || uname -v | grep -q PREEMPT_RT ||
	skip "the kernel was not booted with threadirqs, and is not PREEMPT_RT: no IRQ threads"

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
printf '[IRQ]\nvirtio*=77\ni8042=80\n' >"$work/irq.conf"

# rows FILE: "irq pid action" per thread, sorted, from realtimectl's JSON
rows()
{
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    print(r["irq"], r["pid"], r["action"])' "$1" | sort
}

"$C" irq --offline --json --conf "$work/irq.conf" >"$work/proc.json" 2>"$work/err" &&
	ok "irq --offline reads /proc" || fail "irq --offline: $(cat "$work/err")"
n=$(rows "$work/proc.json" | wc -l)
[ "$n" -gt 0 ] && ok "$n IRQ threads listed" || fail "no IRQ threads listed although booted with threadirqs"

# Each row is an irq/N-NAME kernel thread, and its action is NAME made whole.
rows "$work/proc.json" | while read -r irq pid action; do
	comm=$(cat "/proc/$pid/comm" 2>/dev/null) || continue
	name=${comm#irq/"$irq"-}
	name=${name#s-}
	case "$comm" in
	irq/"$irq"-*) ;;
	*) echo "FAIL - pid $pid is '$comm', not an IRQ thread of irq $irq"; continue ;;
	esac
	case "$action" in
	"$name"*) ;;
	*) echo "FAIL - irq $irq: action '$action' does not extend the thread name '$name'"; continue ;;
	esac
	if [ -d "/proc/irq/$irq" ] && [ ! -d "/proc/irq/$irq/$action" ]; then
		echo "FAIL - irq $irq: '$action' is not an action under /proc/irq/$irq"
	fi
done >"$work/check"
if grep -q FAIL "$work/check"; then
	cat "$work/check"
	fail "rows do not match the kernel's threads"
else
	ok "every row is the kernel's irq/N thread with its full action name"
fi
long=$(rows "$work/proc.json" | awk 'length($3) > 15 - length("irq/" $1 "-") { print $3; exit }')
[ -n "$long" ] && ok "a name longer than the thread's comm is shown whole ($long)" ||
	note "no action name here is cut in its thread's name"

python3 -c '
import json, sys
for r in json.load(open(sys.argv[1])):
    if r["action"].startswith("virtio") and not (r["rule"] == "virtio*" and r["rule_priority"] == 77):
        sys.exit("virtio row without its rule: %r" % r)
' "$work/proc.json" && ok "the RULE column names the matching [IRQ] line" || fail "RULE column"

if [ ! -f "$KO" ]; then
	note "realtime.ko is not built for $(uname -r); its listing is not checked"
elif ! insmod "$KO"; then
	fail "insmod $KO"
else
	"$C" irq --offline --conf "$work/irq.conf" >"$work/kmod.txt" 2>&1
	grep -q "from /proc/realtime/irq_threads" "$work/kmod.txt" &&
		ok "with realtime.ko loaded, irq reads its listing" || fail "irq with realtime.ko: $(tail -n 3 "$work/kmod.txt")"
	"$C" irq --offline --json --conf "$work/irq.conf" >"$work/kmod.json"
	if [ "$(rows "$work/proc.json")" = "$(rows "$work/kmod.json")" ]; then
		ok "/proc and realtime.ko name the same threads and actions"
	else
		fail "/proc and realtime.ko differ: $(rows "$work/proc.json" | tr '\n' ';') vs $(rows "$work/kmod.json" | tr '\n' ';')"
	fi
	printf 'virtio* 77\n' >/proc/realtime/irq_rules || fail "writing a rule to /proc/realtime/irq_rules"
	sleep 1
	"$C" irq --offline --json --conf "$work/irq.conf" >"$work/rule.json"
	python3 -c '
import json, os, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["action"].startswith("virtio")]
assert rows, "no virtio IRQ threads"
for r in rows:
    k = (os.sched_getscheduler(r["pid"]), os.sched_getparam(r["pid"]).sched_priority)
    assert r["policy"] == "fifo" and r["priority"] == 77 and k == (os.SCHED_FIFO, 77), (r, k)
' "$work/rule.json" 2>"$work/err" && ok "a module rule's priority shows as the kernel reports it (fifo 77)" ||
		fail "after the rule: $(cat "$work/err")"
	printf -- '-\n' >/proc/realtime/irq_rules
	rmmod realtime || fail "rmmod realtime"
fi

finish
