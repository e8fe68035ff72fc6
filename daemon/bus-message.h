/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Building and sending messages: strings made valid UTF-8, replies, the
 * check of a call's signature. libdbus only; any layer may use it. */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>

#include "macro.h"

/* Appends s as a D-Bus string made valid UTF-8: bytes that are not, and
 * control characters, are written as "\xNN" (utf8_escape()). Every string
 * the daemon sends goes through here or bus_reply_error(). False: no memory. */
bool bus_append_string(DBusMessageIter *it, const char *s);
/* The same for multi-line text: newline and tab are kept. */
bool bus_append_text(DBusMessageIter *it, const char *s);

/* Sends an error reply; never fails (out of memory drops the reply). The
 * text is cut to 511 bytes between characters, then escaped as above. */
void bus_reply_error(DBusConnection *c, DBusMessage *m, const char *name, const char *format, ...)
	_printf_(4, 5);
/* Replies InvalidArgs and returns false when m's signature is not sig. */
bool bus_check_signature(DBusConnection *c, DBusMessage *m, const char *sig);
/* Sends an empty method return. */
void bus_reply_empty(DBusConnection *c, DBusMessage *m);
void bus_send(DBusConnection *c, DBusMessage *reply);

bool bus_append_variant(DBusMessageIter *it, int type, const void *value);
/* Appends a dict entry {s: v(type)}. */
bool bus_append_dict_variant(DBusMessageIter *dict, const char *key, int type, const void *value);

static inline void dbus_message_unrefp(DBusMessage **m)
{
	if (*m)
		dbus_message_unref(*m);
}
#define _cleanup_msg_ _cleanup_(dbus_message_unrefp)
