/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asynchronous polkit checks (org.freedesktop.PolicyKit1.Authority.
 * CheckAuthorization): the caller waits, the loop serves others. Grants
 * ask about the target process (unix-process: pid, start time, uid),
 * administrator's calls about the caller's connection (system-bus-name).
 * A "yes" is cached POLKIT_CACHE_USEC; a manage call's "no"
 * POLKIT_NO_CACHE_USEC for its connection; checks of the same subject
 * join the one pending. Pending checks are bounded per pool and per user
 * (the counts in users.h), below dbus-daemon's replies per connection.
 * realtimed(8), POLKIT ANSWERS, has the reasons and the figures.
 */
#pragma once

#include <dbus/dbus.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define POLKIT_NAME "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_IFACE "org.freedesktop.PolicyKit1.Authority"

#define POLKIT_CACHE_USEC (10ULL * 1000000ULL)
#define POLKIT_NO_CACHE_USEC (2ULL * 1000000ULL)
#define POLKIT_CACHE_SIZE 128
/* dbus-daemon's max_replies_per_connection on the system bus */
#define POLKIT_BUS_MAX_REPLIES 128
#define POLKIT_BUS_HEADROOM 32
#define POLKIT_GRANT_MAX 80
#define POLKIT_GRANT_PER_UID 16
#define POLKIT_MANAGE_MAX 16
#define POLKIT_MANAGE_PER_UID 2
#define POLKIT_PENDING_MAX (POLKIT_GRANT_MAX + POLKIT_MANAGE_MAX)
#define POLKIT_WAITERS_MAX 128
/* a non-interactive check is answered within this, as libdbus's default
 * for a call */
#define POLKIT_CHECK_TIMEOUT_MS (25 * 1000)
#define POLKIT_INTERACTIVE_MAX 16
/* below realtimectl's own two minutes, so that it gets the daemon's answer */
#define POLKIT_INTERACTIVE_TIMEOUT_MS (110 * 1000)

_Static_assert(POLKIT_PENDING_MAX + POLKIT_BUS_HEADROOM <= POLKIT_BUS_MAX_REPLIES,
	       "pending polkit checks must stay below dbus-daemon's per-connection limit");

typedef enum PolkitPool {
	POLKIT_POOL_GRANT,
	POLKIT_POOL_MANAGE,
	_POLKIT_POOL_MAX,
} PolkitPool;

typedef struct Polkit Polkit;

/* One cached answer: action for the process (pid, start time) of uid, or
 * for the connection bus_name (when set; pid and start time are then 0),
 * until expires_usec (CLOCK_MONOTONIC). Also the key a lookup takes
 * (result and expires_usec are no part of the match). */
typedef struct PolkitCacheEntry {
	char action[64];
	char bus_name[48];
	pid_t pid;
	uint64_t start_time;
	uid_t uid;
	bool interactive; /* a "no" answers only calls asked the same way */
	int result;	  /* 1 yes, 0 no */
	uint64_t expires_usec;
} PolkitCacheEntry;

typedef struct PolkitCache {
	PolkitCacheEntry entries[POLKIT_CACHE_SIZE];
} PolkitCache;

/* Whether a "yes" for key (its action, subject and uid) holds at now. */
bool polkit_cache_find(const PolkitCache *c, const PolkitCacheEntry *key, uint64_t now);
/* The answer cached for key at now: 1 yes, 0 no, -ENOENT none. */
int polkit_cache_lookup(const PolkitCache *c, const PolkitCacheEntry *key, uint64_t now);
/* Remembers polkit's answer r (as polkit_callback_t gets it) for key: a
 * "yes" (r > 0) for POLKIT_CACHE_USEC after now, a "no" (r == 0) of a
 * connection's subject (key->bus_name set: a manage call) for
 * POLKIT_NO_CACHE_USEC; any other "no" and a failure are asked again next
 * time. It replaces key's earlier answer; a full cache gives up the entry
 * that ends first. */
void polkit_cache_put(PolkitCache *c, const PolkitCacheEntry *key, int r, uint64_t now);
void polkit_cache_flush(PolkitCache *c);

/* r: 1 authorized, 0 not authorized, < 0 polkit failed (-EHOSTUNREACH: not running). */
typedef void (*polkit_callback_t)(int r, void *userdata);

typedef struct Users Users;

/* Checks on bus, counted in users' entries. */
int polkit_new(DBusConnection *bus, Users *users, Polkit **ret);
Polkit *polkit_free(Polkit *pk);
void polkit_flush(Polkit *pk);
/* How long a non-interactive check may take (POLKIT_CHECK_TIMEOUT_MS
 * unless set: tests make it short). */
void polkit_set_timeout(Polkit *pk, unsigned timeout_ms);
/* Lets the Polkit see signals (Authority.Changed). */
DBusHandlerResult polkit_filter(Polkit *pk, DBusMessage *m);

/* Asks about the process pid (start time) of uid, for a grant (the grant
 * pool). Returns 1 when answered "yes" from the cache (callback not
 * called), 0 when the callback will be called (exactly once, never before
 * this returns, unless the daemon exits; then free_userdata runs, by
 * libdbus when it drops the connection), -errno when the check could not
 * be started (-EBUSY: the grant pool is full; -EDQUOT: uid holds its
 * share of it). */
int polkit_check(Polkit *pk, const char *action, pid_t pid, uint64_t start_time, uid_t uid,
		 polkit_callback_t cb, void *userdata, void (*free_userdata)(void *));
/* Asks about the connection bus_name (a unique name) of uid, for a manage
 * call (the manage pool); interactive: polkit may ask the user (the caller
 * set ALLOW_INTERACTIVE_AUTHORIZATION on its message). As polkit_check(),
 * and 2 when answered "no" from the cache; -EBUSY also when uid already
 * waits for an interactive check, or POLKIT_INTERACTIVE_MAX do. */
int polkit_check_bus_name(Polkit *pk, const char *action, const char *bus_name, uid_t uid,
			  bool interactive, polkit_callback_t cb, void *userdata,
			  void (*free_userdata)(void *));
/* The CheckAuthorization call for key's subject, action and interactivity
 * into *ret (the caller unrefs it). */
int polkit_message_new(const PolkitCacheEntry *key, DBusMessage **ret);
/* polkitd's answer to it: 1 authorized, 0 not, -EHOSTUNREACH when no
 * polkitd runs, -EIO for another error, -EBADMSG for a malformed answer. */
int polkit_reply_parse(DBusMessage *reply);
