# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # USERNS_* are for the scripts that source it
#
# A private mount namespace for a test, and the processes it starts: each
# one tracked is killed when the test ends (integ_cleanup).

integ_pids=""
userns_inits=""

# integ_require_cmd PROGRAM...: skip the test unless every program exists.
integ_require_cmd()
{
	for c in "$@"; do
		case "$c" in
		/*) [ -x "$c" ] || skip "$c is missing" ;;
		*) command -v "$c" >/dev/null 2>&1 || skip "$c is not installed" ;;
		esac
	done
}

# ns_enter WHY "$@": become root in a private mount namespace: re-executes
# the calling script under unshare (once: INTEG_IN_NAMESPACE says it is
# done), with a private pid namespace too if INTEG_PIDNS is set (the script
# is its pid 1, for tests that choose pids through ns_last_pid). WHY says
# what needs root, for the skip.
ns_enter()
{
	_why=$1
	shift
	[ "$(id -u)" = 0 ] || skip "$_why"
	integ_require_cmd unshare mount
	[ -z "${INTEG_IN_NAMESPACE:-}" ] || return 0
	if [ -n "${INTEG_PIDNS:-}" ]; then
		INTEG_IN_NAMESPACE=1 exec unshare -m -p -f --propagation private --mount-proc -- \
			/bin/sh "$(readlink -f "$0")" "$@"
	fi
	# shellcheck disable=SC2093 # exec returns only when it failed: skip
	INTEG_IN_NAMESPACE=1 exec unshare -m --propagation private -- /bin/sh "$(readlink -f "$0")" "$@"
	skip "unshare -m failed: no private mount namespace here"
}

integ_cleanup()
{
	# a namespace's pid 1 ignores what it has no handler for: KILL
	for p in $userns_inits; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in $integ_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $integ_pids; do
		# wait only works for our own children; others are gone or going
		wait "$p" 2>/dev/null
	done
	integ_pids=""
	if [ -n "${WORK:-}" ] && [ -d "$WORK" ]; then
		umount -l "$WORK" 2>/dev/null
		rm -rf "$WORK"
	fi
}

# integ_track PID: kill PID when the test ends.
integ_track()
{
	integ_pids="$integ_pids $1"
}

integ_untrack()
{
	integ_pids=$(echo "$integ_pids" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# integ_stop PID: end a tracked background process and wait for it.
integ_stop()
{
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	integ_untrack "$1"
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds; 1 on timeout.
wait_for()
{
	_t=$(($1 * 20))
	shift
	while [ "$_t" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
		_t=$((_t - 1))
	done
	return 1
}

# host_pid NS NSPID [DIR]: the host id of the process (or, with DIR
# /proc/PID/task, the thread) whose innermost id in pid namespace NS (an
# inode) is NSPID, by the kernel's NSpid field: the tests' own oracle
host_pid()
{
	for _s in "${3:-/proc}"/[0-9]*/status; do
		_h=${_s%/status}
		[ "$(stat -L -c %i "$_h/ns/pid" 2>/dev/null)" = "$1" ] || continue
		awk -v n="$2" '/^NSpid:/ { exit !($NF == n) }' "$_s" 2>/dev/null && { echo "${_h##*/}"; return; }
	done
}

# userns_run USER COMMAND...: COMMAND as USER in a new user and pid
# namespace, as podman, toolbox, distrobox and bwrap start programs (the
# user's own uid mapped, a /proc of the new namespace); all of it ends
# when unshare does.
userns_run()
{
	_u=$1
	shift
	run_as "$_u" unshare --user --map-current-user --pid --fork --mount-proc --kill-child -- "$@"
}

# userns_bg NAME USER COMMAND...: the same in the background, output in
# $WORK/NAME.out; sets USERNS_INIT, the host pid of the namespace's pid 1,
# and USERNS, its namespace's inode. userns_stop ends it all.
userns_bg()
{
	_n=$1
	_u=$2
	shift 2
	as_bg "$_u" unshare --user --map-current-user --pid --fork --mount-proc --kill-child -- "$@" >"$WORK/$_n.out" 2>&1
	USERNS_PID=$!
	# /proc files have no size: test -s would never see it filled
	wait_for 5 grep -q . "/proc/$USERNS_PID/task/$USERNS_PID/children"
	USERNS_INIT=$(awk '{ print $1 }' "/proc/$USERNS_PID/task/$USERNS_PID/children" 2>/dev/null)
	USERNS=$(stat -L -c %i "/proc/$USERNS_INIT/ns/pid" 2>/dev/null)
	userns_inits="$userns_inits $USERNS_INIT"
}

# userns_stop: end the namespace of the last userns_bg (unshare ignores
# TERM; its pid 1 cannot ignore KILL, and the namespace ends with it).
userns_stop()
{
	kill -KILL "$USERNS_INIT" 2>/dev/null
	wait "$USERNS_PID" 2>/dev/null
}
