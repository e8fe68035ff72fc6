/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's state, shared by its files: the event loop, the bus, the
 * policy in force, the grant table, and the small caches and limits around
 * them. One Daemon exists; it is passed around, never global.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <dbus/dbus.h>
#include <systemd/sd-event.h>

#include "args.h"
#include "bus-names.h"
#include "canary.h"
#include "grants.h"
#include "policy.h"
#include "ratelimit.h"
#include "time-util.h"

#define CREDS_CACHE_SIZE 256
#define POLICY_CACHE_SIZE 64
#define POLICY_CACHE_USEC (5ULL * 1000000ULL)
#define USER_LIMITS_MAX 4096

typedef struct Canary Canary;
typedef struct ManagerHooks ManagerHooks;
typedef struct Polkit Polkit;

typedef struct CredsEntry {
	char *sender; /* unique name; never reused while the bus runs */
	uid_t uid;
	pid_t pid;
	uint64_t used;
} CredsEntry;

typedef struct PolicyCacheEntry {
	bool valid;
	uid_t uid;
	uint64_t expires_usec;
	PolicyGrant grant;
	char user[64];
} PolicyCacheEntry;

typedef struct UserRate {
	uid_t uid;
	RateLimit rl;
} UserRate;

typedef struct Daemon {
	DaemonArgs args;
	sd_event *event;
	DBusConnection *bus;
	Policy *policy;
	GrantTable *grants;
	Canary *canary;
	Polkit *polkit;
	const ManagerHooks *hooks; /* the manager's way to the bus (manager.h) */
	bool rtkit_served;

	CredsEntry creds[CREDS_CACHE_SIZE];
	uint64_t creds_clock;
	PolicyCacheEntry policy_cache[POLICY_CACHE_SIZE];
	UserRate *rates;
	size_t n_rates;

	uint64_t refuse_until_usec; /* CLOCK_MONOTONIC; canary cool-down */
	sd_event_source *save_source;
	sd_event_source *bus_dispatch_source;
	sd_event_source *uevent_source; /* irq-monitor.c */
	sd_event_source *irq_timer;
	bool irq_kmod; /* realtime.ko holds the [IRQ] rules */
	bool exiting;
} Daemon;

/* policy-cache.c: the policy in force, evaluated per uid and cached briefly. */
/* Loads the policy. On a reload (initial false) a policy with a broken
 * file is not taken: the last good one stays, *ret_error says why. At start
 * the good files are used and the broken ones logged. */
int daemon_policy_load(Daemon *d, bool initial, char **ret_error);
int daemon_policy_eval(Daemon *d, uid_t uid, const PolicyGrant **ret_grant, const char **ret_user);
/* Counts one request of uid; false if over [Daemon] ActionsPerBurst. */
bool daemon_user_ratelimit(Daemon *d, uid_t uid);

/* state.c: the grant table on disk, for restart adoption. */
void daemon_state_schedule_save(Daemon *d);
int daemon_state_save(Daemon *d);
int daemon_state_adopt(Daemon *d);

/* irq-monitor.c: [IRQ] rules now and for IRQ threads created later. */
/* Hands the rules to realtime.ko when loaded, else applies them itself. */
void daemon_irq_apply(Daemon *d);
/* Listens to kernel uevents to re-apply the rules after devices appear. */
int daemon_irq_monitor_start(Daemon *d);
void daemon_irq_monitor_stop(Daemon *d);
