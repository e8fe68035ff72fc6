/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdbus on sd-event: the connection's watches and timeouts become sd-event
 * sources, dispatching runs from a defer source, and realtimed's objects'
 * calls wait in the bus queue (bus-queue.h).
 */
#pragma once

#include <dbus/dbus.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

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
