/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one way the shield reads and writes the kernel's one-line files
 * (/proc/irq/N/smp_affinity_list, sysfs cpumasks and governors), under a
 * root that is "/proc" or "/sys" for realtimed and a fake tree in the unit
 * tests (test-daemon-shield*.c). Never logs: the caller says what failed
 * and what to do. Every open is O_NONBLOCK (a FIFO in a file's place must
 * not stop the loop) and O_NOFOLLOW for writes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cpu-set.h"

/* Where the shield's files live; "/proc", "/sys", "/run" for realtimed. */
typedef struct ShieldRoots {
	const char *proc;
	const char *sys;
	const char *run;       /* irqbalance's socket directory is under it */
	const char *state_dir; /* the record of what was changed (shield-record.h) */
} ShieldRoots;

/* The content of root/rel up to its first newline, NUL-terminated, into
 * buf. -errno; -EFBIG when the line does not fit. */
int shield_file_read(const char *root, const char *rel, char *buf, size_t size);
/* The same, as a CPU list or a mask (mask true). -EBADMSG when the file
 * holds neither. */
int shield_file_read_cpus(const char *root, const char *rel, bool mask, CpuSet *ret);
/* Writes value (a newline added) to root/rel in one write(). -errno, as
 * the kernel answered: EIO for an IRQ it will not move, EINVAL for a
 * value it refuses, EACCES or EROFS where the sandbox lets no write. */
int shield_file_write(const char *root, const char *rel, const char *value);
/* What to do about err from a write, for the journal and realtimectl
 * status: "the kernel keeps this IRQ on its CPUs (a managed IRQ, as NVMe
 * and virtio queues are)" for EIO, ... */
const char *shield_file_write_hint(int err);
