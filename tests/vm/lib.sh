# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
# Helpers for the VM guest scripts (sourced from tests/vm/guest/*.sh and
# tests/vm/system/*.sh as . "$TOP_SRCDIR/tests/vm/lib.sh"): the project's
# shared checks (tests/lib/tap.sh: check, check_eq, ok, fail, skip, finish),
# test users (tests/lib/users.sh: add_test_users) and scheduling readers
# (tests/lib/sched.sh: sched_of), and what only a guest needs.

# shellcheck source=tests/lib/tap.sh
. "$TOP_SRCDIR/tests/lib/tap.sh"
# shellcheck source=tests/lib/users.sh
. "$TOP_SRCDIR/tests/lib/users.sh"
# shellcheck source=tests/lib/sched.sh
. "$TOP_SRCDIR/tests/lib/sched.sh"

# as USER COMMAND...: run COMMAND with USER's uid, gid and groups, no caps.
as()
{
	u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --init-groups --inh-caps=-all -- "$@"
}

# capeff: the CapEff line of the process that runs it.
capeff_of_exec()
{
	"$@" grep CapEff /proc/self/status | awk '{ print $2 }'
}

# run_integration_real_path TEST PATH...: for what the project's host
# cannot show because its root lacks CAP_SYS_RESOURCE (realtimed cannot
# prlimit() another user's process there): as root with every capability,
# tests/integration/TEST.sh must pass and say it took each PATH (took_path
# in tests/lib/tap.sh: a fixed "# path: NAME" line, not a check's wording),
# the paths that only such a root takes. Reports each as a check; exits 1
# (finish) on the first failure.
run_integration_real_path()
{
	_t=$1
	shift
	_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	if [ "$(id -u)" = 0 ] && [ $(((0x$_eff >> 24) & 1)) = 1 ]; then
		ok "this is root with CAP_SYS_RESOURCE"
	else
		fail "this is not root with CAP_SYS_RESOURCE: uid $(id -u), CapEff $_eff"
		finish
	fi
	_out=$(sh "$TOP_SRCDIR/tests/integration/$_t.sh" 2>&1)
	_rc=$?
	printf '%s\n' "$_out" | sed 's/^/    /'
	if [ "$_rc" = 0 ]; then
		ok "tests/integration/$_t.sh passes here"
	else
		fail "tests/integration/$_t.sh exited $_rc"
		finish
	fi
	for _m in "$@"; do
		if printf '%s\n' "$_out" | grep -qx -- "# path: $_m"; then
			ok "$_t.sh took the path $_m"
		else
			fail "$_t.sh did not take the path $_m"
			finish
		fi
	done
}

# irq_threads PATTERN: "pid policy priority" of each IRQ kernel thread
# named irq/N-PATTERN (a shell pattern: virtio*, xhci*). The names are
# read without a fork per process: PREEMPT_RT has many more kernel
# threads, and a slow TCG guest spent minutes on one fork each.
irq_threads()
{
	for _d in /proc/[0-9]*; do
		read -r _c 2>/dev/null <"$_d/comm" || continue
		# shellcheck disable=SC2254 # $1 is a pattern
		case "$_c" in
		irq/*-$1) echo "${_d#/proc/} $(sed 's/^.*) //' "$_d/stat" | awk '{ print $39, $38 }')" ;;
		esac
	done
}

# irq_threads_at PATTERN PRIO: there is an irq/N-PATTERN thread, and each
# is SCHED_FIFO (1) at PRIO.
irq_threads_at()
{
	_out=$(irq_threads "$1")
	[ -n "$_out" ] && ! echo "$_out" | awk -v p="$2" '$2 != 1 || $3 != p { bad = 1 } END { exit !bad }'
}

# vm_monitor COMMAND...: runs COMMAND in QEMU's human monitor, as an admin
# would type it ("device_add usb-audio,..."), and prints what the monitor
# answered (nothing when all went well, "Error: ..." when not). Only in a
# boot whose group has a "# vm-sound" script (run-vm.sh passes the command
# on); false when no answer came within 30 s.
vm_monitor()
{
	[ -d /rt-run/monitor.d ] || mkdir /rt-run/monitor.d 2>/dev/null
	_m=/rt-run/monitor.d/$(date +%s%N).$$
	printf '%s\n' "$*" >"$_m.tmp" && mv "$_m.tmp" "$_m.cmd" || return 1
	_i=0
	while [ ! -f "$_m.out" ]; do
		[ "$_i" -lt 300 ] || { rm -f "$_m.cmd"; return 1; }
		sleep 0.1
		_i=$((_i + 1))
	done
	cat "$_m.out"
	rm -f "$_m.out"
}
