# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # its variables are for the scripts that source it
#
# Checks and their report, the one definition for every test script of the
# project: integration tests, unit-tier shell tests, vm guests, the demo
# and the benches. The output is TAP (https://testanything.org/): one
# "ok N - ..." or "not ok N - ..." line per check, "# ..." for everything
# else, and the plan "1..N" at the end (finish), so that meson's
# `protocol : 'tap'` reports each check. The exit status says the same to
# whoever reads only that (meson's exitcode protocol, the vm tier's runner):
# 0 every check passed, 1 a check failed, 77 skipped -- or
# $TAP_SKIP_STATUS, which meson's TAP tests set to 0 (a TAP test must exit
# 0; its "# SKIP" says it skipped).

rt_checks=0	# checks reported so far
rt_failures=0	# of them failed (scripts that report a check by hand add theirs)
rt_skipped=0	# 1 once skip ended the script after some checks

# tap_line STATUS TEXT: the TAP line of check $rt_checks; lines after the
# first of a multi-line TEXT follow as comments.
tap_line()
{
	case "$2" in
	*"
"*)
		printf '%s\n' "$2" | {
			IFS= read -r _tap_first
			printf '%s %s - %s\n' "$1" "$rt_checks" "$_tap_first"
			sed 's/^/#   /'
		}
		;;
	*) printf '%s %s - %s\n' "$1" "$rt_checks" "$2" ;;
	esac
}

# ok DESCRIPTION: a check passed.
ok()
{
	rt_checks=$((rt_checks + 1))
	tap_line ok "$*"
}

# fail DESCRIPTION: a check failed; the script goes on (finish exits 1).
fail()
{
	rt_checks=$((rt_checks + 1))
	rt_failures=$((rt_failures + 1))
	tap_line "not ok" "$*"
}

# note TEXT: a comment in the report.
note()
{
	printf '%s\n' "$*" | sed 's/^/# /'
}

# check DESCRIPTION COMMAND...: ok if COMMAND succeeds, else fail.
check()
{
	_check_d=$1
	shift
	if "$@"; then
		ok "$_check_d"
	else
		fail "$_check_d"
	fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq()
{
	if [ "$2" = "$3" ]; then
		ok "$1 ($3)"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

# took_path NAME: the script took the path NAME. A fixed tag ("# path:
# NAME") that other scripts look for (tests/vm/lib.sh
# run_integration_real_path) in place of a check's wording; never reword one.
took_path()
{
	echo "# path: $1"
}

# skip REASON: the script cannot run here; it ends now. The checks that
# ran stand: one that failed makes it a failure.
skip()
{
	echo "SKIP: $*" >&2
	if [ "$rt_checks" -eq 0 ]; then
		echo "1..0 # SKIP $*"
		exit "${TAP_SKIP_STATUS:-77}"
	fi
	rt_checks=$((rt_checks + 1))
	echo "ok $rt_checks # SKIP $*"
	rt_skipped=1
	tap_end
	[ "$rt_failures" -eq 0 ] || exit 1
	exit "${TAP_SKIP_STATUS:-77}"
}

# tap_end: the counts and the plan.
tap_end()
{
	echo "# $((rt_checks - rt_failures - rt_skipped)) passed, $rt_failures failed"
	echo "1..$rt_checks"
}

# finish: report and exit 0 (every check passed), 1 (one failed; runs
# $TAP_ON_FAILURE first, a function that shows what helps, such as a log),
# or skip when no check ran.
finish()
{
	[ "$rt_checks" -gt 0 ] || [ "$rt_failures" -gt 0 ] || skip "no check ran"
	if [ "$rt_failures" -gt 0 ]; then
		[ -z "${TAP_ON_FAILURE:-}" ] || "$TAP_ON_FAILURE"
		tap_end
		exit 1
	fi
	tap_end
	exit 0
}
