/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The policy's [IRQ] rules (action name glob -> SCHED_FIFO priority), at
 * start and on every reload: handed to realtime.ko when it is loaded, which
 * then applies them to IRQ threads now and later; else applied by
 * realtimed itself, as rtirq does, to the IRQ threads there are (kernel
 * threads named irq/N-name, present with threadirqs or PREEMPT_RT, as
 * procfs/procfs-irq.h lists them), and again after devices appear
 * (irq-monitor.h).
 */
#pragma once

#include "daemon.h"

/* Applies the rules of the policy in force, one way or the other, and
 * notes in d->irq_kmod which. */
void irq_apply(Daemon *d);
