/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether the rtkit object is served: its path registered and its name owned,
 * asked for without blocking. When rtkit-daemon owns it, the path is dropped.
 */
#pragma once

#include <stdbool.h>
#include <dbus/dbus.h>

typedef struct RtkitName RtkitName;

/* Serves vtable with userdata object when asked to; nothing is served yet. */
int rtkit_name_new(DBusConnection *bus, const DBusObjectPathVTable *vtable, void *object,
		   RtkitName **ret);
/* Frees n; what is served stays until the connection closes. */
RtkitName *rtkit_name_free(RtkitName *n);

/* Registers the path and asks for the name, or gives both up. Failures are
 * logged; the object is then not served. */
void rtkit_name_serve(RtkitName *n, bool serve);
