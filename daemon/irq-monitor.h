/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * [IRQ] rules for IRQ threads that appear after start: a USB audio
 * interface plugged in later, a driver reloaded.
 */
#pragma once

#include "daemon.h"

/* Hands the rules to realtime.ko when loaded, else applies them itself. */
void daemon_irq_apply(Daemon *d);
/* Listens to kernel uevents to re-apply the rules after devices appear. */
int daemon_irq_monitor_start(Daemon *d);
void daemon_irq_monitor_stop(Daemon *d);
