/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ListRefusals and ListAllRefusals on the native object: the refusals
 * realtimed keeps (refusals.h), the caller's own, or every user's for root
 * and org.realtimed.manage (bus-native.c's table says who may call which).
 */
#pragma once

#include "bus-dispatch.h"
#include "daemon.h"

/* ListRefusals: the caller's own (root's: every user's). */
void bus_native_list_refusals(Daemon *d, DBusMessage *m, const BusObject *o);
/* ListAllRefusals, once authorized. */
void bus_native_list_all_refusals(Daemon *d, DBusMessage *m, const BusObject *o);
