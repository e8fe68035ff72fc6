/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the shield's unit tests (test-daemon-shield*.c) build on: a fake
 * machine in a temporary directory, with the /proc, /sys and /run the
 * shield reads and writes (shield-move.h's ShieldRoots) and a state directory
 * for its record. The machine: 4 CPUs, two cores of two threads ({0,2}
 * and {1,3}: Shield=auto takes 1,3); IRQ 0 (timer) on CPU 0, 16 (a shared
 * line: ehci_hcd:usb1 and the sound card snd_hda_intel:card0, whose PCI
 * device's irq file names 16) on 0-3, 24 (nvme0q1) on 0-3, 25
 * (eth0-rx-0) on 3, 30 (xhci_hcd, the controller under USB sound card1,
 * an MSI vector of its PCI device) on 0-3, 40 (i8042) on 0-3; the default
 * affinity and the workqueues' cpumask f; cpufreq on every CPU
 * (schedutil, performance available).
 */
#pragma once

#include <stdbool.h>

#include "policy.h"
#include "shield-move.h"

/* The fake machine's roots, valid between setup and teardown. */
extern ShieldRoots shield_roots;

/* Check fixtures: make the machine, remove it. */
void shield_fixture_setup(void);
void shield_fixture_teardown(void);

/* Writes text to root/rel, making the directories on the way. */
void shield_fixture_write(const char *root, const char *rel, const char *text);
/* root/rel's first line, in a static buffer ("<missing>" when none). */
const char *shield_fixture_read(const char *root, const char *rel);
/* An IRQ of the fake machine: its actions ("a, b"), affinity and
 * effective affinity; /proc/interrupts is written anew. */
void shield_fixture_irq(unsigned irq, const char *actions, const char *affinity,
			const char *effective);
/* IRQ irq's affinity list as PROC has it now. */
const char *shield_fixture_affinity(unsigned irq);

/* A policy of text (a [Daemon] section and the rest), loaded. */
Policy *shield_fixture_policy(const char *text);
/* Does the shield's record file exist? */
bool shield_fixture_record_exists(void);
