/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's state, shared by its files: the event loop, the bus, the
 * policy in force, the grant table, and the objects around them (the
 * credentials cache, the rate table, the rtkit name, ...), each opaque
 * behind its own header. One Daemon exists; it is passed around, never
 * global.
 */
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

/* The ways up to the bus, which main.c fills with the bus files' functions
 * and unit tests with their own: the layers below call these, never a bus
 * file. */
typedef struct DaemonHooks {
	/* Emits Demoted(threads, reason). */
	void (*demoted)(Daemon *d, const DemoteThread *threads, size_t n, const char *reason);
	/* Serves the rtkit interface (RtkitCompat=yes), or stops. */
	void (*serve_rtkit)(Daemon *d, bool serve);
	/* Answers m, a call on flavour's interface: reply (NULL: an empty
	 * return) when code is 0, else the error of code (a RequestError,
	 * request.h, or a negative errno: a failure of realtimed) with
	 * why. */
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
	bool canary_synced; /* the canary took the table at its last change (manager.c) */
	Polkit *polkit;
	const DaemonHooks *hooks;
	/* bus-rtkit.c: whether the rtkit object is served (rtkit-name.h);
	 * NULL until it first was */
	RtkitName *rtkit;
	/* bus-native.c: the unique names that get every Demoted signal
	 * (SubscribeDemoted); "" is a free slot */
	char demoted_watchers[DEMOTED_WATCHERS_MAX][GRANT_OWNER_MAX];

	CredsCache *creds; /* the callers' credentials (creds.h) */
	uint64_t pidns;	   /* realtimed's own pid namespace, 0 until read (request-pidns.c) */
	/* daemon-policy.c: users and groups off the loop (resolver.h; NULL in
	 * unit tests: NSS inline) */
	Resolver *resolver;
	Users *users;		      /* every user's state: rate, cool-down, refusals (users.h) */
	sd_event_source *save_source; /* state.c */
	sd_event_source *bus_dispatch_source;
	sd_event_source *uevent_source; /* irq-monitor.c */
	sd_event_source *irq_timer;
	bool irq_kmod; /* realtime.ko holds the [IRQ] rules */
	/* cpu-dma.c: /dev/cpu_dma_latency held while realtime grants run
	 * (CpuDmaLatency=); NULL in unit tests that do not make one */
	CpuDma *cpu_dma;
} Daemon;
