#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Smallest guest script: proves the VM harness itself. Runs as real root
# in the VM with every capability, the host's userspace visible read-only
# under a writable tmpfs overlay, and threaded IRQs.
set -eu

# the source tree first: the checks come from it
[ -f "${TOP_SRCDIR:-}/tests/vm/lib.sh" ] || { echo "not ok 1 - TOP_SRCDIR=${TOP_SRCDIR:-} is not visible"; exit 1; }
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"

check "running as uid 0" [ "$(id -u)" = 0 ]
check "with a full capability set: $(grep CapEff /proc/self/status)" \
	grep -q '^CapEff:.*000001ffffffffff$' /proc/self/status
check "raising a hard rlimit works (CAP_SYS_RESOURCE)" sh -c 'ulimit -H -r 99 && ulimit -r 99'
check "the source tree is visible (TOP_SRCDIR=$TOP_SRCDIR)" test -f "$TOP_SRCDIR/meson.build"
check "the build tree is visible (TOP_BUILDDIR=${TOP_BUILDDIR:-})" test -d "${TOP_BUILDDIR:-}"
check "/etc is writable (tmpfs overlay)" sh -c 'echo "rtvmtest:x:4999:" >>/etc/group'
check "the kernel has threadirqs" grep -qw threadirqs /proc/cmdline
check "and irq/ threads" sh -c "ps -eo comm | grep -q '^irq/'"
check "a SCHED_FIFO program runs" chrt -f 10 true
finish
