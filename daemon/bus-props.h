/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The properties both objects have (MaxRealtimePriority, MinNiceLevel,
 * RTTimeUSecMax), answered for the caller.
 */
#pragma once

#include <dbus/dbus.h>

#include "daemon.h"
#include "request.h"

/* Answers org.freedesktop.DBus.Properties Get/GetAll/Set for iface. */
DBusHandlerResult bus_properties_handle(Daemon *d, DBusConnection *c, DBusMessage *m,
					const char *iface, BusFlavour f);
