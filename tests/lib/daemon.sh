# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # its variables are for the scripts that source it
#
# realtimed (from the build dir, with the shipped vendor policy as a
# root-owned copy, $VENDOR_CONF, and a test admin policy) and Debian's
# rtkit-daemon on the private bus: start, stop, and what they need.

REALTIMED=${REALTIMED:-$TOP_BUILDDIR/daemon/realtimed}
# the NSS helper realtimed starts: the build dir's (realtimed(8), ENVIRONMENT)
REALTIMED_NSS_HELPER=${REALTIMED_NSS_HELPER:-$TOP_BUILDDIR/nss-helper/realtimed-nss}
export REALTIMED_NSS_HELPER
REALTIMECTL=${REALTIMECTL:-$TOP_BUILDDIR/realtimectl/realtimectl}
RT_CLIENT=${RT_CLIENT:-$TOP_BUILDDIR/tests/integration/rt-client}

# integ_require_daemon: skip unless realtimed (and its test client) are built.
integ_require_daemon()
{
	[ -x "$REALTIMED" ] || skip "realtimed is not built ($REALTIMED); build with -Ddaemon=enabled"
	[ -x "$REALTIMED_NSS_HELPER" ] || skip "realtimed-nss is not built ($REALTIMED_NSS_HELPER)"
	[ -x "$RT_CLIENT" ] || skip "the test client is not built ($RT_CLIENT)"
}

# integ_require_preload: skip unless librealtime-preload.so is built; exports
# REALTIME_PRELOAD (the build dir's, unless set) for realtimectl run --threads.
integ_require_preload()
{
	REALTIME_PRELOAD=${REALTIME_PRELOAD:-$TOP_BUILDDIR/librealtime/preload/librealtime-preload.so}
	[ -f "$REALTIME_PRELOAD" ] || skip "librealtime-preload.so is not built ($REALTIME_PRELOAD)"
	export REALTIME_PRELOAD
}

# integ_show_log: the end of realtimed's log, when a check failed (finish).
integ_show_log()
{
	if [ -n "${WORK:-}" ] && [ -f "$WORK/realtimed.log" ]; then
		echo "# last lines of realtimed's log:"
		tail -n 40 "$WORK/realtimed.log" | sed 's/^/#   /'
	fi
}
TAP_ON_FAILURE=integ_show_log

# integ_admin_conf: replace the test admin policy with stdin.
integ_admin_conf()
{
	cat >"$WORK/admin.conf"
}

# integ_start_daemon [ARGS...]: start realtimed with the shipped vendor
# policy and $WORK/admin.conf; wait until it owns its name. With --debug
# (the tests read its debug lines) unless INTEG_DAEMON_DEBUG is set empty,
# as a benchmark does: realtimed runs without it in production.
integ_start_daemon()
{
	# shellcheck disable=SC2086
	"$REALTIMED" ${INTEG_DAEMON_DEBUG---debug} \
		--vendor-conf="$VENDOR_CONF" \
		--admin-conf="$WORK/admin.conf" \
		--vendor-conf-dir="$WORK/vendor.d" \
		--admin-conf-dir="$WORK/conf.d" \
		--state-dir="$WORK/state" "$@" >>"$WORK/realtimed.log" 2>&1 &
	DAEMON_PID=$!
	integ_track $DAEMON_PID
	if ! wait_for 10 name_has_owner $NATIVE_NAME; then
		tail -n 30 "$WORK/realtimed.log" | sed 's/^/# /'
		fail "realtimed did not take $NATIVE_NAME on the private bus"
		finish
	fi
}

# integ_nss_helper: the pid of realtimed's NSS helper, its one child
# (realtimed(8), PROCESSES AND PRIVILEGES); empty when it has none.
integ_nss_helper()
{
	cat "/proc/$DAEMON_PID/task/"*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .
}

# expect_nss_module_in_helper MODULE: NSS module MODULE (libnss_NAME.so.2)
# is loaded in realtimed's NSS helper, and not in realtimed itself (uid 0).
expect_nss_module_in_helper()
{
	_h=$(integ_nss_helper)
	grep -qs "$1" "/proc/${_h:-0}/maps" && ok "$1 is loaded in realtimed's NSS helper ($_h)" ||
		fail "$1 is not loaded in realtimed's NSS helper (${_h:-none})"
	grep -q "$1" "/proc/$DAEMON_PID/maps" && fail "$1 is loaded in realtimed itself (uid 0)" ||
		ok "$1 is not loaded in realtimed itself"
}

# integ_start_rtkit [ARGS...]: start Debian's rtkit-daemon on the private bus
# (with default limits unless ARGS say otherwise). Needs INTEG_BUS_EXTRA to
# include rtkit's own system.d file, set before integ_setup: see
# INTEG_BUS_RTKIT.
INTEG_BUS_RTKIT='<include ignore_missing="yes">/usr/share/dbus-1/system.d/org.freedesktop.RealtimeKit1.conf</include>'
RTKIT_DAEMON=${RTKIT_DAEMON:-/usr/libexec/rtkit-daemon}
integ_start_rtkit()
{
	# rtkit-daemon sets RLIMIT_FSIZE to 0: it may write to a pipe, not a file
	rm -f "$WORK/rtkit.fifo"
	mkfifo "$WORK/rtkit.fifo"
	cat "$WORK/rtkit.fifo" >>"$WORK/rtkit-daemon.log" &
	"$RTKIT_DAEMON" --stderr "$@" >"$WORK/rtkit.fifo" 2>&1 &
	RTKIT_PID=$!
	integ_track $RTKIT_PID
	if ! wait_for 10 name_has_owner $RTKIT_NAME; then
		tail -n 20 "$WORK/rtkit-daemon.log" | sed 's/^/# /'
		return 1
	fi
	return 0
}

integ_stop_rtkit()
{
	[ -n "$RTKIT_PID" ] || return 0
	kill "$RTKIT_PID" 2>/dev/null
	wait "$RTKIT_PID" 2>/dev/null
	integ_untrack "$RTKIT_PID"
	RTKIT_PID=
	wait_for 5 sh -c "! dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:$RTKIT_NAME | grep -q 'boolean true'"
}

# integ_stop_daemon [SIGNAL]: stop realtimed and wait until it is gone.
integ_stop_daemon()
{
	[ -n "$DAEMON_PID" ] || return 0
	kill -"${1:-TERM}" "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_RC=$?
	integ_untrack "$DAEMON_PID"
	DAEMON_PID=
	wait_for 5 sh -c "! dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:$NATIVE_NAME | grep -q 'boolean true'"
}

