/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The native object's Demoted signal and who hears it (bus-native.h
 * declares bus_native_emit_demoted(), its sender): each connection that
 * asked for a grant, of its own threads, and up to DEMOTED_WATCHERS_MAX
 * SubscribeDemoted callers, of every thread, until they leave the bus.
 */
#pragma once

#include "bus-dispatch.h"
#include "daemon.h"

/* SubscribeDemoted, once authorized (bus-native.c's table). */
void bus_native_subscribe_demoted(Daemon *d, DBusMessage *m, const BusObject *o);
/* Watches the bus for watchers that leave it. */
int bus_native_demoted_register(Daemon *d);
