/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RealtimeKit 0.13 compatible object, org.freedesktop.RealtimeKit1 at
 * /org/freedesktop/RealtimeKit1, served when RtkitCompat=yes.
 */
#pragma once

#include <stdbool.h>

#include "bus-dispatch.h"
#include "daemon.h"

/* Its methods and introspection data (bus_dispatch()). */
extern const BusObject bus_rtkit_object;

/* Serves the rtkit object and owns its name, or stops (RtkitCompat=). */
void bus_rtkit_serve(Daemon *d, bool serve);
