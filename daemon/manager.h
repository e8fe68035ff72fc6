/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The manager: the daemon as a whole, above the requests and the grant
 * table. It reloads the policy (the grants it no longer allows demoted,
 * its settings applied), adopts the state file's grants at start, and
 * handles the events from below that its callbacks get: a change of the
 * grant table (the state file, the canary's list, the CPU latency
 * request) and a firing of the canary (refusals, the journal, Demoted).
 * The bus's Reload calls it; nothing below does.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "canary.h"
#include "daemon.h"
#include "demote.h"

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

/* The grant table's change callback (grant_table_new()): userdata is d. */
void manager_grants_changed(GrantTable *t, void *userdata);

/* The canary's fired callback (canary_new()): userdata is d. Refuses the
 * blamed users for CanaryRefuseSec (users.h), logs once (whom and why), drops the
 * demoted threads' grants, emits Demoted(reason "canary") and hands the
 * canary the grants left. */
void manager_canary_fired(const CanaryReport *report, void *userdata);
