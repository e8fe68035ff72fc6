/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The manager: what happens to the daemon as a whole rather than to one
 * request. It owns
 *   - reload: the new policy, the grants it no longer allows demoted, its
 *     settings applied;
 *   - the settings in force ([Daemon]): whether the rtkit interface is
 *     served, the canary's window and cool-down, and the [IRQ] rules handed
 *     on (irq.h);
 *   - what follows a change of the grant table: the state file (state.h)
 *     and the canary's list of watched threads;
 *   - the canary: that list (plus a grant under way), and what the main
 *     thread does when the watchdog fired;
 *   - which grants a demotion takes and who is told; demote.h does it.
 * It reaches the bus only through the Daemon's ManagerHooks, which main.c
 * fills with the bus files' functions and unit tests with their own: the
 * bus files call the manager, never the other way round.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "canary.h"
#include "daemon.h"
#include "demote.h"

struct ManagerHooks {
	/* Emits Demoted(threads, reason). */
	void (*demoted)(Daemon *d, const DemoteThread *threads, size_t n, const char *reason);
	/* Serves the rtkit interface (RtkitCompat=yes), or stops. */
	void (*serve_rtkit)(Daemon *d, bool serve);
};

/* Re-reads the policy. A policy with a broken file is not taken (the last
 * good one stays, *ret_error says why, < 0); a good one empties the polkit
 * cache and the resolver's, demotes the grants it no longer allows
 * (Demoted "policy"; the grants of a user not resolved yet when the lookup
 * ends, or judged without groups if it fails) and applies its settings. */
int manager_reload(Daemon *d, char **ret_error);
/* Applies the [Daemon] settings and [IRQ] rules of the policy in force. */
void manager_apply_settings(Daemon *d);
/* Adopts the grants of the state file (state.h) that the policy in force
 * allows, and demotes the others (as a reload does, through the resolver).
 * Returns how many grants are held. */
int manager_adopt(Daemon *d);

/* Resets each grant of pid (tid 0: all threads of the process; pid 0: every
 * grant) to what the thread had before it, removes them, emits
 * Demoted(reason "reset"). Returns how many threads were demoted. */
unsigned manager_reset_grants(Daemon *d, pid_t pid, pid_t tid);

/* The grant table's change callback (grant_table_new()): userdata is d. */
void manager_grants_changed(GrantTable *t, void *userdata);

/* Hands the canary every supervised realtime thread, plus pending (may be
 * NULL): a thread about to be granted, so that a thread which spins the
 * moment it turns realtime, starving this loop before the grant is
 * recorded, is still watched. < 0 (logged) when the canary could not take
 * the list: then pending is not watched, and must not be granted. */
int manager_canary_sync(Daemon *d, const CanaryTarget *pending);
/* The highest realtime priority that may be granted with the canary in
 * force: 99, or lower when its watchdog cannot preempt 99 (realtimed(8)). */
int manager_canary_max_priority(Daemon *d);
/* The canary's fired callback (canary_new()): userdata is d. Refuses the
 * blamed users for CanaryRefuseSec, logs once (whom and why), drops the
 * demoted threads' grants, emits Demoted(reason "canary") and hands the
 * canary the grants left. */
void manager_canary_fired(const CanaryReport *report, void *userdata);
/* Refuses uid's requests (grants, GrantLimits) until until_usec
 * (CLOCK_MONOTONIC), or later if it was refused longer already. The table
 * holds CANARY_REFUSALS_MAX users: when it is full, the refusal that ends
 * first makes room (that user is served again early; the canary blames it
 * anew if it starves the machine again). */
void manager_canary_refuse(Daemon *d, uid_t uid, uint64_t until_usec);
/* When uid's refusal ends, or 0 when uid is not refused at now. */
uint64_t manager_canary_refused_until(const Daemon *d, uid_t uid, uint64_t now);
