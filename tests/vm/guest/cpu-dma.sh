#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm tier, [Daemon] CpuDmaLatency= on a real kernel's CPU latency QoS:
# tests/integration/test-cpu-dma.sh runs here as it is. With
# CpuDmaLatency=0, /dev/cpu_dma_latency reads 0 while a realtime grant is
# supervised and the kernel's default again after the last grant ends, at
# once after a reload that removes the key; here nothing else holds it, so
# the script must take the path where it is held (it skips on a host where
# something already holds it at 20 µs or less).
# Reports each check (TAP); exits 0 pass, 77 skip (with the reason), 1 fail.
set -u

: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# shellcheck source=tests/vm/lib.sh
. "$TOP_SRCDIR/tests/vm/lib.sh"
[ -c /dev/cpu_dma_latency ] || skip "this kernel has no /dev/cpu_dma_latency"
check_eq "nothing holds /dev/cpu_dma_latency: the kernel's default" 2000000000 \
	"$(od -An -td4 -N4 /dev/cpu_dma_latency | tr -d ' ')"
run_integration_real_path test-cpu-dma cpu-dma-held
finish
