// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Building and sending messages; see bus-message.h. Every string realtimed
 * sends goes through bus_append_string() or bus_reply_error() here, which
 * make it valid UTF-8 (utf8.h): libdbus aborts the process on a string
 * that is not, and a thread's name, a file name or a caller's argument cut
 * to fit a buffer may be anything.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bus-message.h"
#include "utf8.h"

void bus_send(DBusConnection *c, DBusMessage *reply)
{
	if (reply)
		dbus_connection_send(c, reply, NULL);
}

static bool append_escaped(DBusMessageIter *it, const char *s, Utf8EscapeFlags flags)
{
	_cleanup_free_ char *escaped = NULL;
	size_t n = utf8_escape(s, flags, NULL, 0);

	/* the common case: nothing to escape, nothing to copy */
	if (n == strlen(s))
		return dbus_message_iter_append_basic(it, DBUS_TYPE_STRING, &s);
	escaped = malloc(n + 1);
	if (!escaped)
		return false;
	utf8_escape(s, flags, escaped, n + 1);
	return dbus_message_iter_append_basic(it, DBUS_TYPE_STRING, &escaped);
}

bool bus_append_string(DBusMessageIter *it, const char *s)
{
	return append_escaped(it, s, 0);
}

bool bus_append_text(DBusMessageIter *it, const char *s)
{
	return append_escaped(it, s, UTF8_ESCAPE_KEEP_NEWLINE);
}

void bus_reply_error(DBusConnection *c, DBusMessage *m, const char *name, const char *format, ...)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	/* Escaping makes at most four bytes of one: the escaped text always fits. */
	char text[512], escaped[sizeof(text) * 4];
	va_list ap;

	if (dbus_message_get_no_reply(m))
		return;
	va_start(ap, format);
	utf8_vsnprintf(text, sizeof(text), format, ap);
	va_end(ap);
	utf8_escape(text, 0, escaped, sizeof(escaped));
	reply = dbus_message_new_error(m, name, escaped);
	if (reply)
		dbus_connection_send(c, reply, NULL);
}

bool bus_check_signature(DBusConnection *c, DBusMessage *m, const char *sig)
{
	if (dbus_message_has_signature(m, sig))
		return true;
	bus_reply_error(c, m, DBUS_ERROR_INVALID_ARGS,
			"Expected arguments of signature '%s', got '%s'", sig,
			dbus_message_get_signature(m));
	return false;
}

void bus_reply_empty(DBusConnection *c, DBusMessage *m)
{
	_cleanup_msg_ DBusMessage *reply = NULL;

	if (dbus_message_get_no_reply(m))
		return;
	reply = dbus_message_new_method_return(m);
	if (reply)
		dbus_connection_send(c, reply, NULL);
}

bool bus_append_variant(DBusMessageIter *it, int type, const void *value)
{
	DBusMessageIter v;
	char sig[2] = { (char)type, 0 };

	if (!dbus_message_iter_open_container(it, DBUS_TYPE_VARIANT, sig, &v))
		return false;
	if (!dbus_message_iter_append_basic(&v, type, value)) {
		dbus_message_iter_abandon_container(it, &v);
		return false;
	}
	return dbus_message_iter_close_container(it, &v);
}

bool bus_append_dict_variant(DBusMessageIter *dict, const char *key, int type, const void *value)
{
	DBusMessageIter e;

	if (!dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &e))
		return false;
	if (!bus_append_string(&e, key) || !bus_append_variant(&e, type, value)) {
		dbus_message_iter_abandon_container(dict, &e);
		return false;
	}
	return dbus_message_iter_close_container(dict, &e);
}
