#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Smallest guest script: proves the VM harness itself. Runs as real root
# in the VM with every capability, the host's userspace visible read-only
# under a writable tmpfs overlay, and threaded IRQs.
set -eu

fail()
{
	echo "FAIL: $*"
	exit 1
}

echo "check: running as uid 0 with a full capability set"
[ "$(id -u)" = 0 ] || fail "uid $(id -u)"
grep -q '^CapEff:.*000001ffffffffff$' /proc/self/status || fail "$(grep CapEff /proc/self/status)"

echo "check: raising a hard rlimit works (CAP_SYS_RESOURCE)"
sh -c 'ulimit -H -r 99 && ulimit -r 99' || fail "ulimit -Hr 99"

echo "check: the source and build trees are visible"
[ -f "$TOP_SRCDIR/meson.build" ] || fail "TOP_SRCDIR=$TOP_SRCDIR not visible"
[ -d "$TOP_BUILDDIR" ] || fail "TOP_BUILDDIR=$TOP_BUILDDIR not visible"

echo "check: /etc is writable (tmpfs overlay) and the kernel has threadirqs"
echo "rtvmtest:x:4999:" >>/etc/group || fail "/etc not writable"
grep -qw threadirqs /proc/cmdline || fail "no threadirqs"
ps -eo comm | grep -q '^irq/' || fail "no irq/ threads"

echo "check: a SCHED_FIFO program runs"
chrt -f 10 true || fail "chrt -f 10 true"
echo "PASS"
