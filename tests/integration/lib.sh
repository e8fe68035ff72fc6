# SPDX-License-Identifier: GPL-2.0-or-later
#
# Harness for realtimed's integration tests, sourced by tests/integration/test-*.sh,
# scripts/demo and bench/daemon-bench.sh.
#
# integ_enter "$@" re-executes the calling script as root inside a private
# mount namespace, so nothing it mounts is seen by the host. integ_setup
# then builds a small private world there:
#   - copies of /etc/passwd, group, shadow with the test users, bind-mounted
#     over the real ones: rtaudio 4101 (audio), rtplain 4102, rtalice 4103 (audio);
#   - a private system bus (dbus-daemon with a test config that includes the
#     project's own system.d policy files) on /run/dbus/system_bus_socket of
#     the namespace, also exported as DBUS_SYSTEM_BUS_ADDRESS;
#   - a real polkitd on that bus, with our actions and the test's rules
#     bind-mounted over /usr/share/polkit-1/{actions,rules.d} and /etc/polkit-1/rules.d;
# and integ_start_daemon starts realtimed from the build dir with the shipped
# vendor policy (a root-owned copy, $VENDOR_CONF: realtimed trusts only policy
# files that root owns and only root can write, and the source tree may be
# anyone's) plus a test admin policy. Everything runs under a tmpfs in a
# mktemp dir, so tests of several engineers can run at the same time.
#
# Test scripts print one line per check ("ok"/"FAIL") and end with
# integ_finish, which exits 0, 1 (something failed) or 77 (skipped).

: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR/build}"
export TOP_SRCDIR TOP_BUILDDIR

REALTIMED=${REALTIMED:-$TOP_BUILDDIR/daemon/realtimed}
REALTIMECTL=${REALTIMECTL:-$TOP_BUILDDIR/realtimectl/realtimectl}
RT_CLIENT=${RT_CLIENT:-$TOP_BUILDDIR/tests/integration/rt-client}
POLKITD=${POLKITD:-/usr/lib/polkit-1/polkitd}

NATIVE_NAME=org.realtimed.Realtime1
NATIVE_PATH=/org/realtimed/Realtime1
NATIVE_IFACE=org.realtimed.Realtime1
NATIVE_ERR=org.realtimed.Realtime1.Error
RTKIT_NAME=org.freedesktop.RealtimeKit1
RTKIT_PATH=/org/freedesktop/RealtimeKit1
RTKIT_IFACE=org.freedesktop.RealtimeKit1

UID_AUDIO=4101
UID_PLAIN=4102
UID_ALICE=4103

integ_failed=0
integ_passed=0
integ_pids=""

skip()
{
	echo "SKIP: $*"
	exit 77
}

ok()
{
	integ_passed=$((integ_passed + 1))
	echo "ok   - $*"
}

fail()
{
	integ_failed=$((integ_failed + 1))
	echo "FAIL - $*"
}

note()
{
	echo "# $*"
}

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

# integ_require_daemon: skip unless realtimed (and its test client) are built.
integ_require_daemon()
{
	[ -x "$REALTIMED" ] || skip "realtimed is not built ($REALTIMED); build with -Ddaemon=enabled"
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

# integ_enter "$@": become root in a private mount namespace (re-exec).
integ_enter()
{
	if [ "$(id -u)" != 0 ]; then
		skip "integration tests need root (they mount over /etc/passwd in a private mount namespace)"
	fi
	integ_require_cmd unshare dbus-daemon dbus-send setpriv mount
	[ -x "$POLKITD" ] || skip "polkitd is not installed ($POLKITD; Debian package polkitd)"
	if [ -z "$INTEG_IN_NAMESPACE" ]; then
		if [ -n "$INTEG_PIDNS" ]; then
			# a private pid namespace too (the script is its pid 1), for
			# tests that choose pids through ns_last_pid
			INTEG_IN_NAMESPACE=1 exec unshare -m -p -f --propagation private --mount-proc -- \
				/bin/sh "$(readlink -f "$0")" "$@"
		fi
		INTEG_IN_NAMESPACE=1 exec unshare -m --propagation private -- /bin/sh "$(readlink -f "$0")" "$@"
		skip "unshare -m failed: no private mount namespace here"
	fi
}

integ_cleanup()
{
	for p in $integ_pids; do
		kill "$p" 2>/dev/null
	done
	for p in $integ_pids; do
		# wait only works for our own children; others are gone or going
		wait "$p" 2>/dev/null
	done
	integ_pids=""
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
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

integ_add_users()
{
	cp /etc/passwd /etc/group /etc/shadow "$WORK/etc/"
	for u in rtaudio rtplain rtalice; do
		sed -i "/^$u:/d" "$WORK/etc/passwd" "$WORK/etc/group" "$WORK/etc/shadow"
	done
	cat >>"$WORK/etc/passwd" <<-EOF
	rtaudio:x:$UID_AUDIO:$UID_AUDIO:realtimed test audio member:/nonexistent:/bin/sh
	rtplain:x:$UID_PLAIN:$UID_PLAIN:realtimed test plain user:/nonexistent:/bin/sh
	rtalice:x:$UID_ALICE:$UID_ALICE:realtimed test audio member alice:/nonexistent:/bin/sh
	EOF
	cat >>"$WORK/etc/group" <<-EOF
	rtaudio:x:$UID_AUDIO:
	rtplain:x:$UID_PLAIN:
	rtalice:x:$UID_ALICE:
	EOF
	cat >>"$WORK/etc/shadow" <<-EOF
	rtaudio:*:19000:0:99999:7:::
	rtplain:*:19000:0:99999:7:::
	rtalice:*:19000:0:99999:7:::
	EOF
	# members of audio (gid 29)
	awk -F: -v OFS=: '$1 == "audio" { $4 = ($4 == "" ? "" : $4 ",") "rtaudio,rtalice" } { print }' \
		"$WORK/etc/group" >"$WORK/etc/group.new" && mv "$WORK/etc/group.new" "$WORK/etc/group"
	grep -q '^audio:' "$WORK/etc/group" || echo "audio:x:29:rtaudio,rtalice" >>"$WORK/etc/group"
	chmod 644 "$WORK/etc/passwd" "$WORK/etc/group"
	chmod 640 "$WORK/etc/shadow"
	for f in passwd group shadow; do
		mount --bind "$WORK/etc/$f" "/etc/$f" || skip "cannot bind-mount over /etc/$f"
	done
}

integ_start_bus()
{
	if [ -d /run/dbus ]; then
		mount -t tmpfs -o mode=0755 tmpfs /run/dbus || skip "cannot mount a tmpfs on /run/dbus"
		BUS_SOCKET=/run/dbus/system_bus_socket
	else
		BUS_SOCKET=$WORK/system_bus_socket
	fi
	cat >"$WORK/bus.conf" <<-EOF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
	  <type>system</type>
	  <listen>unix:path=$BUS_SOCKET</listen>
	  <auth>EXTERNAL</auth>
	  <policy context="default">
	    <allow user="*"/>
	    <deny own="*"/>
	    <deny send_type="method_call"/>
	    <allow send_type="signal"/>
	    <allow send_requested_reply="true" send_type="method_return"/>
	    <allow send_requested_reply="true" send_type="error"/>
	    <allow receive_type="method_call"/>
	    <allow receive_type="method_return"/>
	    <allow receive_type="error"/>
	    <allow receive_type="signal"/>
	    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
	    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
	    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
	    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
	          send_member="UpdateActivationEnvironment"/>
	  </policy>
	  <policy user="root">
	    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Monitoring"/>
	  </policy>
	  <include>$TOP_SRCDIR/policy/org.realtimed.Realtime1.conf</include>
	  <include>$TOP_SRCDIR/policy/realtimed-rtkit-compat.conf</include>
	  <include ignore_missing="yes">/usr/share/dbus-1/system.d/org.freedesktop.PolicyKit1.conf</include>
	  ${INTEG_BUS_EXTRA:-}
	</busconfig>
	EOF
	dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile \
		--print-address=3 3>"$WORK/bus.address" >"$WORK/bus.log" 2>&1 &
	integ_track $!
	BUS_PID=$!
	wait_for 10 test -s "$WORK/bus.address" || { cat "$WORK/bus.log"; skip "the private dbus-daemon did not start"; }
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS_SOCKET
	export DBUS_SYSTEM_BUS_ADDRESS
	unset DBUS_SESSION_BUS_ADDRESS
}

# The default test rules: rtplain (whom no policy rule covers) is allowed
# realtime but not high priority, everyone else is left to the action defaults
# (no session here, so allow_any: no). Tests may replace $WORK/polkit-rules/.
integ_polkit_rules()
{
	cat >"$WORK/polkit-rules/50-realtimed-test.rules" <<-'EOF'
	polkit.addRule(function(action, subject) {
		if (subject.user == "rtplain") {
			if (action.id == "org.realtimed.acquire-realtime" ||
			    action.id == "org.freedesktop.RealtimeKit1.acquire-real-time")
				return polkit.Result.YES;
			if (action.id == "org.realtimed.acquire-high-priority" ||
			    action.id == "org.freedesktop.RealtimeKit1.acquire-high-priority" ||
			    action.id == "org.realtimed.acquire-limits")
				return polkit.Result.NO;
		}
		// rtkit-daemon (run side by side in some tests) asks polkit for everyone
		if (action.id.indexOf("org.freedesktop.RealtimeKit1.") == 0 && subject.isInGroup("audio"))
			return polkit.Result.YES;
		if (action.id == "org.realtimed.manage" && subject.user == "rtalice")
			return polkit.Result.YES;
		if (action.id == "org.realtimed.manage" && subject.user == "rtaudio")
			return polkit.Result.NO;
		return polkit.Result.NOT_HANDLED;
	});
	EOF
}

integ_start_polkitd()
{
	mkdir -p "$WORK/polkit-actions" "$WORK/polkit-rules" "$WORK/polkit-empty"
	cp "$TOP_SRCDIR/policy/org.realtimed.policy" "$WORK/polkit-actions/"
	# rtkit's action ids, which the compat interface checks
	cp /usr/share/polkit-1/actions/org.freedesktop.RealtimeKit1.policy "$WORK/polkit-actions/" 2>/dev/null
	integ_polkit_rules
	chmod -R a+rX "$WORK/polkit-actions" "$WORK/polkit-rules" "$WORK/polkit-empty"
	mount --bind "$WORK/polkit-actions" /usr/share/polkit-1/actions || skip "cannot bind-mount polkit actions"
	mount --bind "$WORK/polkit-empty" /usr/share/polkit-1/rules.d 2>/dev/null
	mkdir -p /etc/polkit-1/rules.d 2>/dev/null
	mount --bind "$WORK/polkit-rules" /etc/polkit-1/rules.d || skip "cannot bind-mount polkit rules"
	"$POLKITD" --no-debug >"$WORK/polkitd.log" 2>&1 &
	integ_track $!
	POLKITD_PID=$!
	wait_for 15 name_has_owner org.freedesktop.PolicyKit1 ||
		{ cat "$WORK/polkitd.log"; skip "polkitd did not come up on the private bus"; }
}

# name_has_owner NAME: true when NAME is owned on the private bus.
name_has_owner()
{
	dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}

# integ_setup: the private world (users, bus, polkitd) in the namespace.
integ_setup()
{
	# policy files written here must be writable by root alone
	umask 022
	WORK=$(mktemp -d /tmp/realtimed-integ.XXXXXX) || skip "mktemp failed"
	mount -t tmpfs -o mode=0755 tmpfs "$WORK" || skip "cannot mount a tmpfs on $WORK"
	trap integ_cleanup EXIT
	trap 'exit 1' INT TERM
	mkdir -p "$WORK/etc" "$WORK/state" "$WORK/conf.d" "$WORK/vendor.d" "$WORK/tmp" "$WORK/vendor"
	chmod 1777 "$WORK/tmp"
	VENDOR_CONF=$WORK/vendor/realtime.conf
	install -m 644 "$TOP_SRCDIR/policy/realtime.conf" "$VENDOR_CONF" || skip "cannot copy the shipped policy"
	integ_add_users
	integ_start_bus
	integ_start_polkitd
	# the default test admin policy: the shipped vendor file decides
	: >"$WORK/admin.conf"
}

# integ_admin_conf: replace the test admin policy with stdin.
integ_admin_conf()
{
	cat >"$WORK/admin.conf"
}

# integ_start_daemon [ARGS...]: start realtimed with the shipped vendor
# policy and $WORK/admin.conf; wait until it owns its name.
integ_start_daemon()
{
	"$REALTIMED" --debug \
		--vendor-conf="$VENDOR_CONF" \
		--admin-conf="$WORK/admin.conf" \
		--vendor-conf-dir="$WORK/vendor.d" \
		--admin-conf-dir="$WORK/conf.d" \
		--state-dir="$WORK/state" "$@" >>"$WORK/realtimed.log" 2>&1 &
	DAEMON_PID=$!
	integ_track $DAEMON_PID
	if ! wait_for 10 name_has_owner $NATIVE_NAME; then
		tail -n 30 "$WORK/realtimed.log"
		fail "realtimed did not take $NATIVE_NAME on the private bus"
		integ_finish
	fi
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
		tail -n 20 "$WORK/rtkit-daemon.log"
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

# sched_of TID: "POLICY PRIORITY" as the kernel reports it (from /proc).
sched_of()
{
	# fields 40 (rt_priority) and 41 (policy) of /proc/TID/stat, after the comm
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{
		split("other fifo rr batch iso idle deadline", n, " ");
		pol = $39 % 1073741824;
		print n[pol + 1], $38 }'
}

# rt_threads PID: "TID POLICY PRIO" of each SCHED_FIFO/SCHED_RR thread of PID
rt_threads()
{
	for _t in /proc/"$1"/task/*; do
		_t=${_t##*/}
		_s=$(sched_of "$_t")
		case "$_s" in
		fifo* | rr*) echo "$_t $_s" ;;
		esac
	done
}

# nice_of TID
nice_of()
{
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $17 }'
}

# expect_sched DESC TID "fifo 70"
expect_sched()
{
	_s=$(sched_of "$2")
	if [ "$_s" = "$3" ]; then
		ok "$1 (thread $2 runs $_s)"
	else
		fail "$1: thread $2 runs '$_s', expected '$3'"
	fi
}

# grant_of TID: the grant ListGrants lists for TID as "KIND VALUE"
# ("fifo 40", "nice -10"), or nothing
grant_of()
{
	native ListGrants | awk -v t="$1" '
		$1 == "uint64" && $2 == t && prev ~ /uint64/ { found = 1; n = 0; next }
		{ prev = $0 }
		found && $1 == "string" { n++; if (n == 3) kind = $2 }
		found && $1 == "int32" { gsub(/"/, "", kind); print kind, $2; exit }'
}

# expect_demoted DESC FILE REASON TID...: dbus-monitor's output in FILE
# shows a Demoted signal with REASON (within 3 s) naming every TID.
expect_demoted()
{
	_d=$1 _f=$2 _r=$3
	shift 3
	if wait_for 3 grep -q "\"$_r\"" "$_f"; then
		for _t in "$@"; do
			grep -q "uint64 $_t\$" "$_f" || { fail "$_d: Demoted($_r) lacks thread $_t: $(cat "$_f")"; return; }
		done
		ok "$_d"
	else
		fail "$_d: no Demoted($_r) signal: $(cat "$_f")"
	fi
}

# holder_start USER NTHREADS: start rt-client hold as USER with NTHREADS
# sleeping threads; sets HOLDER_PID, HOLDER_TIDS, and HOLDER_IN (fd 8 writes
# commands: "exit N" ends thread N (1-based), "quit" ends the process).
holder_start()
{
	rm -f "$WORK/holder.in" "$WORK/holder.out"
	mkfifo "$WORK/holder.in"
	chmod 666 "$WORK/holder.in"
	as_bg "$1" "$RT_CLIENT" hold "$2" <>"$WORK/holder.in" >"$WORK/holder.out" 2>&1
	HOLDER_PID=$!
	integ_track $HOLDER_PID
	# read-write: never blocks, and never sees a signal mid-open
	exec 8<>"$WORK/holder.in"
	wait_for 5 grep -q '^threads' "$WORK/holder.out" || { cat "$WORK/holder.out"; fail "rt-client hold did not start"; return 1; }
	HOLDER_TIDS=$(sed -n 's/^threads //p' "$WORK/holder.out")
	_p=$(sed -n 's/^pid //p' "$WORK/holder.out")
	[ "$_p" = "$HOLDER_PID" ] || { fail "rt-client hold runs as pid $_p, not $HOLDER_PID"; return 1; }
	return 0
}

# holder_tid N: the tid of the holder's N-th extra thread
holder_tid()
{
	echo "$HOLDER_TIDS" | awk -v n="$1" '{ print $n }'
}

holder_stop()
{
	echo quit >&8 2>/dev/null
	exec 8>&-
	wait "$HOLDER_PID" 2>/dev/null
	integ_untrack "$HOLDER_PID"
}

# integ_finish: report and exit 0 (all passed), 1 (a check failed), 77 (no checks ran).
integ_finish()
{
	echo "# $integ_passed passed, $integ_failed failed"
	if [ "$integ_failed" -gt 0 ]; then
		if [ -n "$WORK" ] && [ -f "$WORK/realtimed.log" ]; then
			echo "# last lines of realtimed's log:"
			tail -n 40 "$WORK/realtimed.log" | sed 's/^/#   /'
		fi
		exit 1
	fi
	[ "$integ_passed" -gt 0 ] || skip "no check ran"
	exit 0
}
