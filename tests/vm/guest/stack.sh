#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The whole stack in the VM, where root has every capability (the host's root
# lacks CAP_SYS_RESOURCE): dbus-daemon + real polkitd + realtimed from the
# build dir, set up by the integration harness (tests/integration/lib.sh):
#   1. jackd -R -d dummy, started by an audio member through
#      `realtimectl run --limits`, runs SCHED_FIFO (tests/integration/test-jackd.sh);
#   2. PipeWire's module-rt asking rt.prio 88 gets 88 (test-pipewire.sh);
#   3. librealtime-preload.so's mlockall succeeds after GrantLimits, where
#      the host cannot raise RLIMIT_MEMLOCK (test-preload.sh), and jackd
#      under realtimectl run --threads (test-jackd-threads.sh).
# The canary against runaway threads has its own guest script, canary.sh.

# shellcheck source=tests/integration/lib.sh
. "$TOP_SRCDIR/tests/integration/lib.sh"

if [ "$(hostname)" != rt-vm ] || ! grep -q ' /rt-run ' /proc/mounts; then
	skip "stack.sh runs only inside the project's VM (tests/vm/run-vm.sh)"
fi
integ_require_daemon
[ -x "$REALTIMECTL" ] || skip "realtimectl is not built"
integ_enter "$@"

for t in test-jackd test-pipewire test-preload test-jackd-threads; do
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

finish
