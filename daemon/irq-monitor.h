/* SPDX-License-Identifier: GPL-2.0-or-later */
/* [IRQ] rules for IRQ threads that appear after start, without realtime.ko. */
#pragma once

#include "daemon.h"

/* Listens to kernel uevents to re-apply the rules after devices appear. */
int irq_monitor_start(Daemon *d);
void irq_monitor_stop(Daemon *d);
