#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, realtimectl check on a real kernel booted with threadirqs:
# tests/integration/test-check.sh runs here as it is (realtimed running and
# stopped, rtaudio in audio and rtplain not, values against /proc) and takes
# the VM-only path: RT throttling switched off (rt-throttling warn) and back
# to its default (ok), which the shared host must never do, threadirqs ok,
# and IRQ threads for irq-priorities to look at. check-nothreadirqs.sh is
# the same without threadirqs.
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
grep -qw threadirqs /proc/cmdline || skip "the kernel was not booted with threadirqs"
run_integration_real_path test-check vm-rt-throttling vm-threadirqs-on
finish
