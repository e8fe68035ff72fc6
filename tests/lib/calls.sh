# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# Calls as the test users: running a program as one, and D-Bus calls on the
# private bus with what their replies must say.

# as USER COMMAND...: run COMMAND as a test user (uid, gid and groups of USER).
run_as()
{
	_u=$1
	shift
	setpriv --reuid="$_u" --regid="$_u" --init-groups -- "$@"
}

# as_bg USER COMMAND...: the same in the background; $! is COMMAND's own pid
# (setpriv execs it), not a subshell's.
as_bg()
{
	_u=$1
	shift
	# an asynchronous command's stdin is /dev/null unless redirected on the
	# command itself (dash ignores <&0 there): pass it through fd 9
	{ setpriv --reuid="$_u" --regid="$_u" --init-groups -- "$@" <&9 9<&- & } 9<&0
	# $! is setpriv until it has switched to the user: wait for that (at
	# most 5 s), so a request right after this never finds a root process
	_pid=$! _uid=$(id -u "$_u") _i=0
	while [ $_i -lt 500 ] && [ -d "/proc/$_pid" ] &&
		! awk -v u="$_uid" '/^Uid:/ { exit !($2 == u) }' "/proc/$_pid/status" 2>/dev/null; do
		sleep 0.01
		_i=$((_i + 1))
	done
}

# bus_call DEST PATH IFACE [--as USER] METHOD ARGS...: IFACE.METHOD with
# dbus-send on the private system bus, as USER if given; prints the reply or
# "Error NAME: message"; exit status of dbus-send.
bus_call()
{
	_dest=$1
	_path=$2
	_iface=$3
	shift 3
	_as=""
	if [ "$1" = --as ]; then
		_as=$2
		shift 2
	fi
	_m=$1
	shift
	if [ -n "$_as" ]; then
		run_as "$_as" dbus-send --system --print-reply --reply-timeout=20000 --dest="$_dest" \
			"$_path" "$_iface.$_m" "$@" 2>&1
	else
		dbus-send --system --print-reply --reply-timeout=20000 --dest="$_dest" \
			"$_path" "$_iface.$_m" "$@" 2>&1
	fi
}

# native [--as USER] METHOD ARGS...: the native interface.
native()
{
	bus_call "$NATIVE_NAME" "$NATIVE_PATH" "$NATIVE_IFACE" "$@"
}

# rtkit [--as USER] METHOD ARGS...: the compat interface.
rtkit()
{
	bus_call "$RTKIT_NAME" "$RTKIT_PATH" "$RTKIT_IFACE" "$@"
}

# expect_error DESC ERRNAME REGEX OUTPUT: the output names ERRNAME and its
# message matches REGEX (grep -E, case-insensitive).
expect_error()
{
	if printf '%s\n' "$4" | grep -q "^Error $2:" && printf '%s\n' "$4" | grep -qiE -e "$3"; then
		ok "$1 ($(printf '%s\n' "$4" | head -n 1))"
	else
		fail "$1: expected $2 matching /$3/, got: $(printf '%s' "$4" | head -n 3)"
	fi
}

# expect_success DESC OUTPUT: no error in the output of a dbus-send call.
expect_success()
{
	if printf '%s\n' "$2" | grep -q '^Error '; then
		fail "$1: $(printf '%s' "$2" | head -n 3)"
	else
		ok "$1"
	fi
}

