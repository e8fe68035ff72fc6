# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh disable=SC2034 # its variables are for the scripts that source it
#
# The private system bus of a test (a dbus-daemon with a test config that
# includes the project's own system.d policy files) and the names on it.

NATIVE_NAME=org.realtimed.Realtime1
NATIVE_PATH=/org/realtimed/Realtime1
NATIVE_IFACE=org.realtimed.Realtime1
NATIVE_ERR=org.realtimed.Realtime1.Error
RTKIT_NAME=org.freedesktop.RealtimeKit1
RTKIT_PATH=/org/freedesktop/RealtimeKit1
RTKIT_IFACE=org.freedesktop.RealtimeKit1

# bus_config SOCKET: a system bus configuration listening on SOCKET, with
# the system bus's default policy, the project's system.d files (and
# polkitd's, if installed) and $INTEG_BUS_EXTRA.
bus_config()
{
	cat <<-EOF
	<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
	 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
	<busconfig>
	  <type>system</type>
	  <listen>unix:path=$1</listen>
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
}

integ_start_bus()
{
	if [ -d /run/dbus ]; then
		mount -t tmpfs -o mode=0755 tmpfs /run/dbus || skip "cannot mount a tmpfs on /run/dbus"
		BUS_SOCKET=/run/dbus/system_bus_socket
	else
		BUS_SOCKET=$WORK/system_bus_socket
	fi
	bus_config "$BUS_SOCKET" >"$WORK/bus.conf"
	dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile \
		--print-address=3 3>"$WORK/bus.address" >"$WORK/bus.log" 2>&1 &
	integ_track $!
	BUS_PID=$!
	wait_for 10 test -s "$WORK/bus.address" || { note "$(cat "$WORK/bus.log")"; skip "the private dbus-daemon did not start"; }
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$BUS_SOCKET
	export DBUS_SYSTEM_BUS_ADDRESS
	unset DBUS_SESSION_BUS_ADDRESS
}

# name_has_owner NAME: true when NAME is owned on the private bus.
name_has_owner()
{
	dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
		org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}

