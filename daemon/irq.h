/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's [IRQ] rules: handed to realtime.ko when it is loaded, else
 * applied by realtimed to the IRQ threads there are, and again after devices
 * appear (irq-monitor.h).
 */
#pragma once

#include "daemon.h"

/* At start and on every reload; notes in d->irq_kmod which way. */
void irq_apply(Daemon *d);
