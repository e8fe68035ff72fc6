/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The two objects realtimed serves: the native org.realtimed.Realtime1
 * (bus-native.c) and the rtkit 0.13 compatible org.freedesktop.RealtimeKit1
 * (bus-rtkit.c), and what they share: properties answered for the caller,
 * the administrator's calls (bus-manage.c).
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stdint.h>

#include "daemon.h"
#include "demote.h"
#include "request.h"

int bus_native_register(Daemon *d);
/* Serves the rtkit object and owns its name, or stops (RtkitCompat=). */
void bus_rtkit_serve(Daemon *d, bool serve);

/* Signal Demoted(a(tt) threads, s reason) on the native object. */
void bus_native_emit_demoted(Daemon *d, const DemoteThread *threads, size_t n, const char *reason);

/* The three properties, evaluated for the calling user. */
typedef struct CallerProperties {
	int32_t max_realtime_priority;
	int32_t min_nice_level;
	int64_t rttime_usec_max;
} CallerProperties;

int bus_caller_properties(Daemon *d, DBusMessage *m, CallerProperties *ret);

/* Answers org.freedesktop.DBus.Properties Get/GetAll/Set for iface. */
DBusHandlerResult bus_properties_handle(Daemon *d, DBusConnection *c, DBusMessage *m,
					const char *iface, BusFlavour f);

/* bus-manage.c: runs run(d, m) when the sender of m is root or polkit
 * grants it org.realtimed.manage (asynchronously; interactively when m
 * allows it); else replies PermissionDenied saying that what (a static
 * string, "Reloading the policy") needs it. */
typedef void (*bus_manage_fn)(Daemon *d, DBusMessage *m);
void bus_authorize_manage(Daemon *d, DBusMessage *m, const char *what, bus_manage_fn run);
