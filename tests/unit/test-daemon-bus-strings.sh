#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every string realtimed sends goes through bus-message.c (bus_append_string(),
# bus_append_text(), bus_reply_error()), which makes it valid UTF-8: libdbus
# aborts the daemon on a string that is not. This fails when a file of
# daemon/ appends a string, or builds an error, with libdbus directly.
cd "${TOP_SRCDIR:?}" || exit 1
bad=$(grep -nE 'append_basic\([^;]*DBUS_TYPE_STRING|dbus_message_append_args|dbus_message_new_error' \
	daemon/*.c | grep -v '^daemon/bus-message\.c:')
if [ -n "$bad" ]; then
	echo "strings sent without bus_append_string()/bus_reply_error():"
	echo "$bad"
	exit 1
fi
echo "every string realtimed sends goes through bus-message.c"
