#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# vm-no-threadirqs
#
# vm tier, realtimectl check on a real kernel booted without threadirqs
# (the line above asks run-vm.sh for that): as check.sh, but the threadirqs
# check warns, with the hint to add it to the kernel command line, and
# irq-priorities skips: a few drivers thread their own handlers, sound
# cards and USB controllers do not.
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
grep -qw threadirqs /proc/cmdline && skip "the kernel was booted with threadirqs"
[ "$(cat /sys/kernel/realtime 2>/dev/null)" = 1 ] && skip "a PREEMPT_RT kernel always threads IRQs"
run_integration_real_path test-check vm-rt-throttling vm-threadirqs-off
finish
