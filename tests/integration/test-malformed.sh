#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Malformed calls are refused cleanly and leave the daemon serving: wrong
# signatures on both interfaces, huge and zero priorities, unknown policies,
# nice out of range, absurd pids, unknown methods and properties, setting a
# read-only property.

# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
integ_enter "$@"
integ_require_daemon
integ_setup
integ_start_daemon

refused()
{
	# DESC OUTPUT [ERRNAME-REGEX]
	if printf '%s\n' "$2" | grep -qE "^Error ${3:-[A-Za-z.]+}"; then
		ok "$1 ($(printf '%s\n' "$2" | head -n 1 | cut -c1-120))"
	else
		fail "$1: not refused: $(printf '%s' "$2" | head -n 3)"
	fi
}

INV="org.freedesktop.DBus.Error.InvalidArgs|$NATIVE_ERR.InvalidArgs"
refused "MakeThreadRealtime with (ss)" "$(native --as rtaudio MakeThreadRealtime string:a string:b)" "$INV"
refused "MakeThreadRealtime without arguments" "$(native --as rtaudio MakeThreadRealtime)" "$INV"
refused "MakeThreadRealtime with (ttsuu)" \
	"$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 string:fifo uint32:5 uint32:5)" "$INV"
refused "MakeThreadRealtime with a signed priority (ttsi)" \
	"$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 string:fifo int32:5)" "$INV"
refused "priority 4294967295" \
	"$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 string:fifo uint32:4294967295)" "$NATIVE_ERR.InvalidArgs"
refused "priority 0" \
	"$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 string:fifo uint32:0)" "$NATIVE_ERR.InvalidArgs"
refused "policy \"deadline\"" \
	"$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 string:deadline uint32:5)" "$NATIVE_ERR.InvalidArgs"
refused "policy \"\"" \
	"$(native --as rtaudio MakeThreadRealtime uint64:0 uint64:0 string: uint32:5)" "$NATIVE_ERR.InvalidArgs"
refused "pid 2^64-1" \
	"$(native --as rtaudio MakeThreadRealtime uint64:18446744073709551615 uint64:0 string:fifo uint32:5)" \
	"$NATIVE_ERR.InvalidArgs|$NATIVE_ERR.NoSuchProcess"
refused "pid 2^31" \
	"$(native --as rtaudio MakeThreadRealtime uint64:2147483648 uint64:0 string:fifo uint32:5)" \
	"$NATIVE_ERR.InvalidArgs|$NATIVE_ERR.NoSuchProcess"
refused "nice -21" "$(native --as rtaudio MakeThreadHighPriority uint64:0 uint64:0 int32:-21)" \
	"$NATIVE_ERR.InvalidArgs|$NATIVE_ERR.PolicyDenied"
refused "nice -2147483648" "$(native --as rtaudio MakeThreadHighPriority uint64:0 uint64:0 int32:-2147483648)" \
	"$NATIVE_ERR.InvalidArgs|$NATIVE_ERR.PolicyDenied"
refused "MakeThreadHighPriority with (tti) as (ttu)" \
	"$(native --as rtaudio MakeThreadHighPriority uint64:0 uint64:0 uint32:5)" "$INV"
refused "GrantLimits with a string" "$(native --as rtaudio GrantLimits string:0)" "$INV"
refused "Explain with a string" "$(native --as rtaudio Explain string:rtaudio)" "$INV"
refused "unknown method" "$(native --as rtaudio NoSuchMethod)" \
	"org.freedesktop.DBus.Error.UnknownMethod|org.freedesktop.DBus.Error.AccessDenied"
out=$(run_as rtaudio dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Properties.Get string:$NATIVE_IFACE string:NoSuchProperty 2>&1)
refused "unknown property" "$out" "org.freedesktop.DBus.Error.(UnknownProperty|InvalidArgs)"
out=$(run_as rtaudio dbus-send --system --print-reply --dest=$NATIVE_NAME $NATIVE_PATH \
	org.freedesktop.DBus.Properties.Set string:$NATIVE_IFACE string:MaxRealtimePriority variant:int32:99 2>&1)
refused "setting a read-only property" "$out" \
	"org.freedesktop.DBus.Error.(PropertyReadOnly|AccessDenied|InvalidArgs|UnknownMethod)"
out=$(run_as rtaudio dbus-send --system --print-reply --dest=$NATIVE_NAME /org/realtimed/Nothing \
	$NATIVE_IFACE.MakeThreadRealtime uint64:0 uint64:0 string:fifo uint32:5 2>&1)
refused "the right method on a wrong object path" "$out" "org.freedesktop.DBus.Error"

# compat interface: rtkit's signatures
refused "rtkit MakeThreadRealtime with (tt)" "$(rtkit --as rtaudio MakeThreadRealtime uint64:0 uint64:5)" \
	"org.freedesktop.DBus.Error.InvalidArgs"
refused "rtkit MakeThreadRealtimeWithPID with (tu)" \
	"$(rtkit --as rtaudio MakeThreadRealtimeWithPID uint64:0 uint32:5)" "org.freedesktop.DBus.Error.InvalidArgs"
refused "rtkit MakeThreadRealtime priority 4294967295" \
	"$(rtkit --as rtaudio MakeThreadRealtime uint64:0 uint32:4294967295)" \
	"org.freedesktop.DBus.Error.(InvalidArgs|AccessDenied)|org.freedesktop.RealtimeKit1"
refused "rtkit MakeThreadHighPriority nice -100" \
	"$(rtkit --as rtaudio MakeThreadHighPriority uint64:0 int32:-100)" \
	"org.freedesktop.DBus.Error.(InvalidArgs|AccessDenied)|org.freedesktop.RealtimeKit1"
# root, whom no bus policy stops: each object answers an unknown method
# itself, with the same error (not left to libdbus's default answer)
expect_error "rtkit unknown method (root)" org.freedesktop.DBus.Error.UnknownMethod \
	"^Error [^ ]+: Unknown method NoSuchMethod" "$(rtkit NoSuchMethod)"
expect_error "native unknown method (root)" org.freedesktop.DBus.Error.UnknownMethod \
	"^Error [^ ]+: Unknown method NoSuchMethod" "$(native NoSuchMethod)"
refused "rtkit Exit from a user (bus policy)" "$(rtkit --as rtaudio Exit)" "org.freedesktop.DBus.Error.AccessDenied"
refused "rtkit ResetAll from a user (bus policy)" "$(rtkit --as rtaudio ResetAll)" "org.freedesktop.DBus.Error.AccessDenied"

# after all this, the daemon still serves
out=$(run_as rtaudio "$RT_CLIENT" ask --policy fifo --prio 10 2>&1)
[ $? = 0 ] && ok "the daemon still grants after the malformed calls" || fail "no grant after malformed calls: $out"
kill -0 "$DAEMON_PID" && ok "realtimed is still running" || fail "realtimed died"

finish
