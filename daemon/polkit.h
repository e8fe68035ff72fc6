/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asynchronous polkit checks (org.freedesktop.PolicyKit1.Authority.
 * CheckAuthorization). The request waits; other clients are served
 * meanwhile. Grants ask about the target process (subject unix-process:
 * pid + start time + uid, pinned by the request); manage calls
 * (bus-admin.c) ask about the caller's connection (subject
 * system-bus-name, its unique name), which polkitd resolves itself, so no
 * pid recorded at connect time, maybe another process by now, is asked
 * about. A check is without user interaction unless the caller asks for it
 * (polkit_check_bus_name()): then polkit may ask for a password through the
 * caller's agent, so the check may wait minutes. Such checks are few (one
 * per uid, at most POLKIT_INTERACTIVE_MAX).
 *
 * Caching: a "yes" is reused for the same subject, uid and action for
 * POLKIT_CACHE_USEC. A "no" for a grant is never cached, so a user whose
 * session becomes active is let in at once; a "no" for a manage call is
 * kept POLKIT_NO_CACHE_USEC, for that connection only, so that pipelined
 * manage calls cost polkitd one question. A cached answer ends early when
 * polkitd emits Authority.Changed, when the policy is reloaded, and when
 * the process exits (its start time no longer matches). Checks of the same
 * subject, action and uid asked while one is pending wait for that one
 * (at most POLKIT_WAITERS_MAX each): a burst of grants for the threads of
 * one process is one question.
 *
 * Slots. Every pending check is a reply dbus-daemon keeps for realtimed's
 * connection, and it allows one connection max_replies_per_connection (128
 * on the system bus: dbus-daemon's hard-coded default, commented in
 * /usr/share/dbus-1/system.conf). Past it dbus-daemon answers LimitsExceeded
 * to whoever's check comes next. So at most POLKIT_PENDING_MAX (96) checks
 * wait, leaving POLKIT_BUS_HEADROOM (32) for realtimed's other calls
 * (GetConnectionCredentials, blocking, one at a time; the rtkit name's
 * RequestName). They come from two pools that never lend to each other:
 *  - POLKIT_GRANT_MAX (80) for grant requests, at most POLKIT_GRANT_PER_UID
 *    (16) per uid. Only users NSS knows get here (the policy step refuses
 *    an unknown uid before polkit), and only those no [User]/[Group] rule
 *    covers: the uids of /etc/subuid ranges and user namespaces are no
 *    such users, so one person's crowd of uids cannot take these slots;
 *    it takes five accounts an admin made, each at its cap and each past
 *    its own ActionsPerBurst=, to fill them.
 *  - POLKIT_MANAGE_MAX (16) for manage calls, at most
 *    POLKIT_MANAGE_PER_UID (2) per uid. Any uid may make these, so a crowd
 *    of uids can fill this pool, which delays only other non-root
 *    administrators' manage calls (root needs no polkit); grants never
 *    wait for it.
 * A full pool answers -EBUSY, a uid at its cap -EDQUOT: the caller is told
 * at once.
 *
 * Fair dispatch. polkitd answers one question after another, in the order
 * they came, so the checks taking slots are not all sent to it: at most
 * POLKIT_SENT_MAX (4) are at polkitd at once, of which at most
 * POLKIT_SENT_MANAGE_MAX (1) a manage call (grants never wait behind
 * manage calls). Four keep polkitd busy while an answer travels back and
 * the next question travels out, and put at most three checks ahead of a
 * newcomer's; one would leave polkitd idle for every round trip. The others
 * wait here, in their slots, and each answer sends the next one
 * round-robin across uids: each check gets a turn, one after its uid's
 * latest check not answered yet and not before the check sent last, and
 * the lowest turn goes first (then the oldest). So a uid's first check
 * waits behind the checks at polkitd and at most one check of each other
 * waiting uid, however many one uid queued. Interactive checks go out at
 * once, outside the count: they may wait minutes for a password. A check is
 * answered within POLKIT_CHECK_TIMEOUT_MS of being asked, the wait here
 * included (-ETIMEDOUT when it waited that long without going out: looked
 * at each time an answer comes; a check on the bus is sent with the time
 * it has left), so with polkitd hung every check ends within twice that.
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
/* non-interactive checks at polkitd at once, of which manage calls */
#define POLKIT_SENT_MAX 4
#define POLKIT_SENT_MANAGE_MAX 1
/* a non-interactive check is answered within this of being asked (the
 * time it waits here included), as libdbus's default for a call */
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

/* The pending checks' slots, per pool: the uid holding each, or (uid_t)-1. */
typedef struct PolkitSlots {
	unsigned n[_POLKIT_POOL_MAX];
	uid_t grant[POLKIT_GRANT_MAX];
	uid_t manage[POLKIT_MANAGE_MAX];
} PolkitSlots;

void polkit_slots_init(PolkitSlots *s);
/* Takes a slot of pool for uid into *ret_slot: 0, -EBUSY when the pool is
 * full, -EDQUOT when uid holds its share of it already. */
int polkit_slots_take(PolkitSlots *s, PolkitPool pool, uid_t uid, uid_t **ret_slot);
/* Gives back a slot polkit_slots_take() gave. */
void polkit_slots_put(PolkitSlots *s, PolkitPool pool, uid_t *slot);
/* How many slots of pool uid holds. */
unsigned polkit_slots_count(const PolkitSlots *s, PolkitPool pool, uid_t uid);

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

int polkit_new(DBusConnection *bus, Polkit **ret);
Polkit *polkit_free(Polkit *pk);
void polkit_flush(Polkit *pk);
/* How long a non-interactive check may take, its wait in realtimed
 * included (POLKIT_CHECK_TIMEOUT_MS unless set: tests make it short). */
void polkit_set_timeout(Polkit *pk, unsigned timeout_ms);
/* Lets the Polkit see signals (Authority.Changed). */
DBusHandlerResult polkit_filter(Polkit *pk, DBusMessage *m);

/* Asks about the process pid (start time) of uid, for a grant (the grant
 * pool). Returns 1 when answered "yes" from the cache (callback not
 * called), 0 when the callback will be called (exactly once, never before
 * this returns, unless the daemon exits; then free_userdata runs, by
 * polkit_free() for a check still queued, by libdbus when it drops the
 * connection for one on the bus), -errno when the check could not
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
