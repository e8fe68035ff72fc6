/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The properties both objects have (MaxRealtimePriority, MinNiceLevel,
 * RTTimeUSecMax), answered for the caller.
 */
#pragma once

#include <dbus/dbus.h>

#include "bus-dispatch.h"

/* org.freedesktop.DBus.Properties of both objects, for bus_dispatch():
 * Get and GetAll of the object's interface, answered for the caller; Set
 * answers PropertyReadOnly. */
extern const BusMethod bus_properties_methods[];
extern const size_t bus_properties_n_methods;
