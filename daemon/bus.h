/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdbus on sd-event: the connection's watches and timeouts become sd-event
 * sources, dispatching runs from a defer source, and realtimed's objects'
 * calls wait in the bus queue (bus-queue.h).
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef struct BusQueue BusQueue;
typedef struct Users Users;

/* Drives c from e, with a BusQueue serving callers in turn, their turns and
 * paces kept in users. */
int bus_attach_event(DBusConnection *c, sd_event *e, Users *users, sd_event_source **ret_dispatch);
/* c's BusQueue, NULL before bus_attach_event(). */
BusQueue *bus_queue_of(DBusConnection *c);
/* Serves path with vtable, its calls waiting their caller's turn
 * (bus-queue.h), until bus_remove_path(). */
int bus_add_path(DBusConnection *c, const char *path, const DBusObjectPathVTable *vtable,
		 void *data);
void bus_remove_path(DBusConnection *c, const char *path);

/* Building and sending messages, for any layer. */
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
