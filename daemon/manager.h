/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The manager: reload, the settings, adopting the state file's grants at
 * start, and the grant table's and canary's events. Only the bus calls it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "canary.h"
#include "daemon.h"
#include "demote.h"

/* Re-reads the policy. A broken one is not taken (< 0, *ret_error says why);
 * a good one empties the polkit and resolver caches, demotes the grants it no
 * longer allows (Demoted "policy") and applies its settings. */
int manager_reload(Daemon *d, char **ret_error);
/* Applies the [Daemon] settings and [IRQ] rules of the policy in force. */
void manager_apply_settings(Daemon *d);
/* Adopts the state file's grants the policy allows, demotes the others.
 * Returns how many grants are held. */
int manager_adopt(Daemon *d);

/* grant_table_new()'s change callback; userdata is d. */
void manager_grants_changed(GrantTable *t, void *userdata);
/* canary_new()'s fired callback; userdata is d. Refuses the blamed users,
 * logs once, drops the demoted grants and emits Demoted "canary". */
void manager_canary_fired(const CanaryReport *report, void *userdata);
