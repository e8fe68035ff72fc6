/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Calls that only an administrator may make (Reload, ListAllGrants, Explain
 * of another user): root, or polkit's org.realtimed.manage.
 */
#pragma once

#include <dbus/dbus.h>

#include "bus-dispatch.h"
#include "daemon.h"

/* Runs method->run(d, m, o) when the sender of m is root or polkit grants
 * its connection org.realtimed.manage (asynchronously; interactively when
 * m allows it); else replies PermissionDenied saying that method->what
 * ("Reloading the policy") needs it, or RateLimited when the sender's uid
 * made ActionsPerBurst= manage calls within BurstSec= or holds its share
 * of polkit's manage slots (polkit.h). For bus_dispatch(). */
void bus_authorize_manage(Daemon *d, DBusMessage *m, const BusObject *o, const BusMethod *method);
