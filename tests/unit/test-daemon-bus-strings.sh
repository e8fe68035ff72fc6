#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Every string realtimed sends goes through bus.c's append_escaped() (bus_append_string(),
# bus_append_text(), bus_reply_error()), which makes it valid UTF-8: libdbus
# aborts the daemon on a string that is not. This fails when a file of
# daemon/ appends a string, or builds an error, with libdbus directly.
cd "${TOP_SRCDIR:?}" || exit 1
# bus.c is read without append_escaped() and bus_reply_error(), the places
# that escape
pattern='append_basic\([^;]*DBUS_TYPE_STRING|dbus_message_append_args|dbus_message_new_error'
bad=$({
	grep -nE "$pattern" daemon/*.c | grep -v '^daemon/bus\.c:'
	sed '/^static bool append_escaped/,/^}/d; /^void bus_reply_error/,/^}/d' daemon/bus.c | grep -nE "$pattern" | sed 's/^/daemon\/bus.c (outside the escaping functions):/'
})
if [ -n "$bad" ]; then
	echo "strings sent without bus_append_string()/bus_reply_error():"
	echo "$bad"
	exit 1
fi
echo "every string realtimed sends is escaped in bus.c"
