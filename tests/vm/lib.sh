# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the VM guest scripts (sourced from tests/vm/guest/*.sh as
# . "$TOP_SRCDIR/tests/vm/lib.sh"): checks that count and fail
# loudly, the test users, and reading a task's scheduling policy.

rt_failures=0

# check DESCRIPTION COMMAND...: run COMMAND, report, count a failure.
check()
{
	desc=$1
	shift
	if "$@"; then
		echo "ok - $desc"
	else
		echo "FAIL - $desc"
		rt_failures=$((rt_failures + 1))
	fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq()
{
	if [ "$2" = "$3" ]; then
		echo "ok - $1 ($3)"
	else
		echo "FAIL - $1: expected '$2', got '$3'"
		rt_failures=$((rt_failures + 1))
	fi
}

finish()
{
	if [ "$rt_failures" -ne 0 ]; then
		echo "$rt_failures check(s) failed"
		exit 1
	fi
	echo "all checks passed"
	exit 0
}

skip()
{
	echo "SKIP: $*"
	exit 77
}

# The project's test users (the guest's /etc is a writable tmpfs overlay):
# rtaudio 4101 in audio (gid 29), rtplain 4102, rtalice 4103 in audio.
add_test_users()
{
	grep -q '^rtaudio:' /etc/passwd && return 0
	cat >>/etc/passwd <<'EOU'
rtaudio:x:4101:4101:realtimed test:/tmp:/bin/sh
rtplain:x:4102:4102:realtimed test:/tmp:/bin/sh
rtalice:x:4103:4103:realtimed test:/tmp:/bin/sh
EOU
	cat >>/etc/group <<'EOG'
rtaudio:x:4101:
rtplain:x:4102:
rtalice:x:4103:
EOG
	sed -i 's/^audio:x:29:\(.*\)$/audio:x:29:\1,rtaudio,rtalice/; s/^audio:x:29:,/audio:x:29:/' /etc/group
	for u in rtaudio rtplain rtalice; do
		echo "$u:!:19000:0:99999:7:::" >>/etc/shadow
	done
}

# as USER COMMAND...: run COMMAND with USER's uid, gid and groups, no caps.
as()
{
	u=$1
	shift
	setpriv --reuid="$u" --regid="$u" --init-groups --inh-caps=-all -- "$@"
}

# sched_of PID: "POLICY PRIORITY" from /proc/PID/stat (policy 1 = fifo).
sched_of()
{
	sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $39, $38 }'
}

# capeff: the CapEff line of the process that runs it.
capeff_of_exec()
{
	"$@" grep CapEff /proc/self/status | awk '{ print $2 }'
}

# run_integration_real_path TEST LINE...: for what the project's host
# cannot show because its root lacks CAP_SYS_RESOURCE (realtimed cannot
# prlimit() another user's process there): as root with every capability,
# tests/integration/TEST.sh must pass and print each LINE, the lines of
# the path that only such a root takes. Prints each check; exits 1 on the
# first failure.
run_integration_real_path()
{
	_t=$1
	shift
	echo "check: this is root with CAP_SYS_RESOURCE"
	_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	[ "$(id -u)" = 0 ] && [ $(((0x$_eff >> 24) & 1)) = 1 ] ||
		{ echo "FAIL: uid $(id -u), CapEff $_eff"; exit 1; }
	echo "check: tests/integration/$_t.sh passes here"
	_out=$(sh "$TOP_SRCDIR/tests/integration/$_t.sh" 2>&1)
	_rc=$?
	printf '%s\n' "$_out" | sed 's/^/    /'
	[ "$_rc" = 0 ] || { echo "FAIL: $_t.sh exited $_rc"; exit 1; }
	for _m in "$@"; do
		echo "check: $_t.sh took the real path: $_m"
		printf '%s\n' "$_out" | grep -qF -- "$_m" || { echo "FAIL: no line \"$_m\""; exit 1; }
	done
}
