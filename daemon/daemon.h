/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one Daemon, shared by the daemon's files; passed around, never global. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <dbus/dbus.h>
#include <systemd/sd-event.h>

#include "args.h"
#include "bus-names.h"
#include "grants.h"
#include "policy.h"
#include "time-util.h"

#define DEMOTED_WATCHERS_MAX 16

typedef struct Canary Canary;
typedef struct CpuDma CpuDma;
typedef struct CredsCache CredsCache;
typedef struct Polkit Polkit;
typedef struct Resolver Resolver;
typedef struct RtkitName RtkitName;
typedef struct Shield Shield;
typedef struct Users Users;

typedef struct Daemon Daemon;
typedef struct DemoteThread DemoteThread;

/* Which interface a call came on: its answers are named after it. */
typedef enum BusFlavour {
	FLAVOUR_NATIVE,
	FLAVOUR_RTKIT,
	_FLAVOUR_MAX,
	_FLAVOUR_INVALID = -EINVAL,
} BusFlavour;

/* The ways up to the bus (filled by main.c, or a unit test): the layers
 * below call these, never a bus file. */
typedef struct DaemonHooks {
	void (*demoted)(Daemon *d, const DemoteThread *threads, size_t n, const char *reason);
	void (*serve_rtkit)(Daemon *d, bool serve);
	/* Answers m: reply (NULL: empty) when code is 0, else the error of
	 * code (a RequestError, or a negative errno) with why. */
	void (*answer)(Daemon *d, DBusMessage *m, BusFlavour flavour, int code, const char *why,
		       DBusMessage *reply);
} DaemonHooks;

typedef struct Daemon {
	DaemonArgs args;
	sd_event *event;
	DBusConnection *bus;
	Policy *policy;
	GrantTable *grants;
	Canary *canary;
	bool canary_synced; /* the canary took the table at its last change */
	Polkit *polkit;
	const DaemonHooks *hooks;
	RtkitName *rtkit; /* NULL until the rtkit object was first served */
	/* SubscribeDemoted's unique names; "" is a free slot */
	char demoted_watchers[DEMOTED_WATCHERS_MAX][GRANT_OWNER_MAX];

	CredsCache *creds;
	uint64_t pidns;	    /* realtimed's own pid namespace, 0 until read */
	Resolver *resolver; /* NULL in unit tests: NSS inline */
	Users *users;
	sd_event_source *save_source; /* state.c */
	sd_event_source *bus_dispatch_source;
	sd_event_source *uevent_source; /* irq.c */
	sd_event_source *irq_timer;
	bool irq_kmod;	 /* realtime.ko holds the [IRQ] rules */
	CpuDma *cpu_dma; /* NULL in unit tests that do not make one */
	Shield *shield;	 /* NULL in unit tests that do not make one */
} Daemon;
