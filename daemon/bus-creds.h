/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The callers' credentials from the bus daemon (GetConnectionCredentials),
 * kept per unique name in d->creds (creds.h). */
#pragma once

#include <dbus/dbus.h>
#include <sys/types.h>

#include "daemon.h"

/* uid and pid of the sender of m; -ESRCH at once for a sender the bus said
 * is gone. A sender not kept yet costs a round trip the loop waits for: the
 * queue asks for them without waiting (bus_creds_ask()). */
int bus_get_creds(Daemon *d, DBusMessage *m, uid_t *ret_uid, pid_t *ret_pid);
/* The queue's BusUidFunc (bus-queue.h), userdata the Daemon: sender's uid
 * from d->creds, else GetConnectionCredentials sent without waiting, its
 * answer kept in d->creds and told to the queue. */
int bus_creds_ask(const char *sender, uid_t *ret_uid, void *userdata);
