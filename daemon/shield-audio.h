/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The audio devices' own IRQs, which the shield leaves where they are:
 * for each sound card (SYS/class/sound/cardN), the IRQs of the nearest
 * device up its sysfs path that has any (an irq file, or the vectors under
 * msi_irqs/): the HDA controller of snd_hda_intel, the USB host
 * controller (xhci_hcd) that a USB audio interface hangs off. A card
 * without such a device (snd-dummy, snd-aloop) has none.
 */
#pragma once

#include <stddef.h>

/* The IRQs, at most max, into ret (sorted, each once); their number in
 * *ret_n. -errno when SYS/class/sound cannot be read other than missing
 * (no sound card: 0 IRQs). */
int shield_audio_irqs(const char *sys, unsigned *ret, size_t max, size_t *ret_n);
