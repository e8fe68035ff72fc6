/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asynchronous polkit checks (org.freedesktop.PolicyKit1.Authority.
 * CheckAuthorization, subject unix-process pid + start time + uid). The
 * request waits; other clients are served meanwhile. A check is without user
 * interaction unless the caller asks for it (polkit_check_full()): then
 * polkit may ask for a password through the caller's agent, so the check
 * may wait minutes. Such checks are few (one per uid, at most
 * POLKIT_INTERACTIVE_MAX), so that no user can fill the pending slots with
 * password prompts nobody answers.
 *
 * Caching: a "yes" is reused for the same process (pid and start time), uid
 * and action for POLKIT_CACHE_USEC; a "no" is never cached, so a user whose
 * session becomes active is let in at once. A cached "yes" ends early when
 * polkitd emits Authority.Changed (rules or authorizations changed), when
 * the policy is reloaded, and when the process exits (its start time no
 * longer matches). At most POLKIT_PENDING_MAX checks wait at a time.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define POLKIT_CACHE_USEC (10ULL * 1000000ULL)
#define POLKIT_CACHE_SIZE 128
#define POLKIT_PENDING_MAX 256
#define POLKIT_INTERACTIVE_MAX 16
/* below realtimectl's own two minutes, so that it gets the daemon's answer */
#define POLKIT_INTERACTIVE_TIMEOUT_MS (110 * 1000)

typedef struct Polkit Polkit;

/* One cached "yes": action for the process (pid, start time) of uid, until
 * expires_usec (CLOCK_MONOTONIC). Also the key a lookup takes. */
typedef struct PolkitCacheEntry {
	char action[64];
	pid_t pid;
	uint64_t start_time;
	uid_t uid;
	uint64_t expires_usec;
} PolkitCacheEntry;

typedef struct PolkitCache {
	PolkitCacheEntry entries[POLKIT_CACHE_SIZE];
} PolkitCache;

/* Whether a "yes" for key (its action, pid, start time and uid) holds at now. */
bool polkit_cache_find(const PolkitCache *c, const PolkitCacheEntry *key, uint64_t now);
/* Remembers polkit's answer r (as polkit_callback_t gets it) for key, for
 * POLKIT_CACHE_USEC after now: only a "yes" (r > 0); a "no" or a failure is
 * asked again next time. A full cache gives up the entry that ends first. */
void polkit_cache_put(PolkitCache *c, const PolkitCacheEntry *key, int r, uint64_t now);
void polkit_cache_flush(PolkitCache *c);

/* r: 1 authorized, 0 not authorized, < 0 polkit failed (-EHOSTUNREACH: not running). */
typedef void (*polkit_callback_t)(int r, void *userdata);

int polkit_new(DBusConnection *bus, Polkit **ret);
Polkit *polkit_free(Polkit *pk);
void polkit_flush(Polkit *pk);
/* Lets the Polkit see signals (Authority.Changed). */
DBusHandlerResult polkit_filter(Polkit *pk, DBusMessage *m);

/* Returns 1 when answered from the cache (callback not called), 0 when the
 * callback will be called (exactly once, unless the daemon exits; then
 * free_userdata runs), -errno when the check could not be started
 * (-EBUSY: too many pending). */
int polkit_check(Polkit *pk, const char *action, pid_t pid, uint64_t start_time, uid_t uid,
		 polkit_callback_t cb, void *userdata, void (*free_userdata)(void *));
/* The same; interactive: polkit may ask the user (the caller set
 * ALLOW_INTERACTIVE_AUTHORIZATION on its message). -EBUSY also when uid
 * already waits for an interactive check, or POLKIT_INTERACTIVE_MAX do. */
int polkit_check_full(Polkit *pk, const char *action, pid_t pid, uint64_t start_time, uid_t uid,
		      bool interactive, polkit_callback_t cb, void *userdata,
		      void (*free_userdata)(void *));
