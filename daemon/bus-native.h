/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native object, org.realtimed.Realtime1 at /org/realtimed/Realtime1:
 * its methods, properties and the Demoted signal (realtimed(8),
 * org.realtimed.Realtime1.xml).
 */
#pragma once

#include <stddef.h>

#include "bus-dispatch.h"
#include "daemon.h"
#include "demote.h"

/* Its methods and introspection data (bus_dispatch()). */
extern const BusObject bus_native_object;

/* Serves the object on d->bus. */
int bus_native_register(Daemon *d);

/* Signal Demoted(a(tt) threads, s reason) on the native object
 * (bus-native-demoted.c). */
void bus_native_emit_demoted(Daemon *d, const DemoteThread *threads, size_t n, const char *reason);
