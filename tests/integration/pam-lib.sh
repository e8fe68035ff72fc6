# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Shared by the PAM tests: tests/integration/test-pam*.sh and the vm tier's
# tests/vm/guest/pam.sh (which runs them as root with every capability).
#
# pam_enter "$@" re-executes the calling script as root in a private mount
# namespace; pam_setup then makes a world of its own there, under a mktemp
# dir: copies of /etc/passwd, group and shadow with the test users
# (tests/lib/users.sh) bind-mounted over the real ones, and $WORK for policy
# files and PAM configuration. Nothing on the host changes, and several
# test runs can go at once. Checks and their TAP report: tests/lib/tap.sh;
# a test ends with finish.

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR

# shellcheck source=tests/lib/tap.sh
. "$TOP_SRCDIR/tests/lib/tap.sh"
# shellcheck source=tests/lib/users.sh
. "$TOP_SRCDIR/tests/lib/users.sh"
# shellcheck source=tests/lib/ns.sh
. "$TOP_SRCDIR/tests/lib/ns.sh"

PAM_MODULE=${PAM_MODULE:-$TOP_BUILDDIR/pam_realtime/pam_realtime.so}
PAM_DRIVER=${PAM_DRIVER:-$TOP_BUILDDIR/tests/integration/pam-driver}
PAM_SHIM=${PAM_SHIM:-$TOP_BUILDDIR/tests/integration/pam-syslog-shim.so}

# In a -Db_sanitize=address build the driver carries ASan, and the syslog
# shim is preloaded before it: let ASan accept that order.
export ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

pam_enter()
{
	_why="the PAM tests need root (they bind-mount test users over /etc/passwd in a private mount namespace)"
	[ "$(id -u)" = 0 ] || skip "$_why"
	integ_require_cmd unshare mount sed grep awk
	[ -f "$PAM_MODULE" ] || skip "pam_realtime.so is not built ($PAM_MODULE); build with -Dpam=enabled"
	[ -x "$PAM_DRIVER" ] || skip "the PAM test driver is not built ($PAM_DRIVER)"
	[ -f "$PAM_SHIM" ] || skip "the syslog shim is not built ($PAM_SHIM)"
	ns_enter "$_why" "$@"
}

pam_cleanup()
{
	[ -n "$WORK" ] && [ -d "$WORK" ] && rm -rf "$WORK"
}

pam_setup()
{
	# policy files written here must be writable by root alone
	umask 022
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/pam-test.XXXXXX") || skip "mktemp failed"
	chmod 755 "$WORK"
	trap pam_cleanup EXIT
	trap 'exit 130' INT TERM
	mount_test_users "$WORK"
}

# Does this process hold CAP_SYS_RESOURCE (bit 24) in its effective set?
# Without it the kernel refuses to raise a hard rlimit.
have_cap_sys_resource()
{
	_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)
	[ $(((0x$_eff >> 24) & 1)) = 1 ]
}

# le A B: A <= B for rlimit values, "infinity" the largest.
le()
{
	[ "$2" = infinity ] && return 0
	[ "$1" = infinity ] && return 1
	[ "$1" -le "$2" ]
}

# field OUTPUT WHEN RES N: the Nth value (1 soft, 2 hard) of a driver line
# "WHEN RES SOFT HARD".
field()
{
	printf '%s\n' "$1" | awk -v w="$2" -v r="$3" -v n="$4" '$1 == w && $2 == r { print $(2 + n); exit }'
}

# expect_limit DESCRIPTION OUTPUT LOG USER RES WANT: the driver OUTPUT shows
# RES set to WANT soft and hard, or, where the kernel cannot raise the hard
# limit (no CAP_SYS_RESOURCE) and WANT is above it, the documented fallback:
# the soft limit raised to the unchanged hard limit, and the log line that
# says so. WANT "unchanged": the limits are as they were before the session.
expect_limit()
{
	_desc=$1 _out=$2 _log=$3 _user=$4 _res=$5 _want=$6
	_bs=$(field "$_out" before "$_res" 1)
	_bh=$(field "$_out" before "$_res" 2)
	_as=$(field "$_out" after "$_res" 1)
	_ah=$(field "$_out" after "$_res" 2)

	if [ -z "$_bh" ] || [ -z "$_ah" ]; then
		fail "$_desc: $_res not in the driver's output"
		return
	fi
	if [ "$_want" = unchanged ]; then
		check "$_desc: $_res unchanged ($_bs/$_bh)" [ "$_as $_ah" = "$_bs $_bh" ]
	elif le "$_want" "$_bh" || have_cap_sys_resource; then
		check "$_desc: $_res set to $_want soft and hard (was $_bs/$_bh, now $_as/$_ah)" \
			[ "$_as $_ah" = "$_want $_want" ]
	else
		check "$_desc: $_res hard limit $_bh kept, soft raised to it (want $_want, no CAP_SYS_RESOURCE; now $_as/$_ah)" \
			[ "$_as $_ah" = "$_bh $_bh" ]
		check "$_desc: the log says why $_res could not be raised and what to do" \
			grep -q "^err pam_realtime([^)]*): Cannot raise the hard $_res of $_user from $_bh to $_want (.*): raising a hard limit needs CAP_SYS_RESOURCE, .*Run the login program as root with its full capability set" "$_log"
	fi
}

# limits_lines WHEN FILE: /proc/PID/limits as the driver's "WHEN RES SOFT HARD" lines
# (test-pamtester.sh, test-directory.sh).
limits_lines()
{
	awk -v w="$1" '
		function v(x) { return x == "unlimited" ? "infinity" : x }
		/^Max realtime priority/ { print w, "RLIMIT_RTPRIO", v($4), v($5) }
		/^Max locked memory/     { print w, "RLIMIT_MEMLOCK", v($4), v($5) }
		/^Max realtime timeout/  { print w, "RLIMIT_RTTIME", v($4), v($5) }
		/^Max nice priority/     { print w, "RLIMIT_NICE", v($4), v($5) }
	' "$2"
}

# line_of FILE SECTION KEY: the line that sets KEY in [SECTION] of FILE.
line_of()
{
	awk -v s="[$2]" -v k="$3=" '$0 == s { in_s = 1; next } /^\[/ { in_s = 0 } in_s && index($0, k) == 1 { print NR; exit }' "$1"
}

# open_result OUTPUT: pam_realtime's own answer, as the test stack's
# pam_echo line reports it ("conv pam_realtime: PAM_IGNORE").
open_result()
{
	printf '%s\n' "$1" | awk '$1 == "conv" && $2 == "pam_realtime:" { print $3; exit }'
}

# logged LEVEL REGEX: the module logged a line at LEVEL matching REGEX
# (after pam_syslog's "pam_realtime(SERVICE:session): " prefix) in $LOG.
logged()
{
	grep -q "^$1 pam_realtime([^)]*): $2" "$LOG"
}
