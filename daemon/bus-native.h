/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The native object, org.realtimed.Realtime1 (realtimed(8), its XML). */
#pragma once

#include <stddef.h>

#include "bus-dispatch.h"
#include "daemon.h"
#include "demote.h"

extern const BusObject bus_native_object;

int bus_native_register(Daemon *d);

/* Signal Demoted(a(tt) threads, s reason) (bus-native-demoted.c). */
void bus_native_emit_demoted(Daemon *d, const DemoteThread *threads, size_t n, const char *reason);
