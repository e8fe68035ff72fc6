/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's [IRQ] rules: handed to realtime.ko when it is loaded, else
 * applied by realtimed to the IRQ threads there are, and again after devices
 * appear (kernel uevents, without realtime.ko).
 */
#pragma once

#include "daemon.h"

/* At start and on every reload; notes in d->irq_kmod which way. */
void irq_apply(Daemon *d);
/* Listens to kernel uevents to apply the rules again after devices appear. */
int irq_monitor_start(Daemon *d);
void irq_monitor_stop(Daemon *d);
