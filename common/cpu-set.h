/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Sets of CPUs in the two forms the kernel reads and writes: CPU lists
 * ("0-3,7", as in /proc/irq/N/smp_affinity_list and sysfs *_list files)
 * and hex masks in comma-separated 32-bit words ("00000000,0000000f", as in
 * /proc/irq/default_smp_affinity and the workqueue cpumask), for
 * realtime.conf(5)'s Shield= and realtimed's shield (daemon/shield.h).
 * Pure functions on a fixed-size bitmap; no allocation, no global state.
 * Input is hostile: a number above CPU_SET_MAX - 1, a reversed range or a
 * stray character is an error, never a guess.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Debian's kernels are built with NR_CPUS=8192. */
#define CPU_SET_MAX 8192

typedef struct CpuSet {
	uint64_t bits[CPU_SET_MAX / 64];
} CpuSet;

void cpu_set_clear(CpuSet *s);
/* Adds cpu; false (nothing added) when it is CPU_SET_MAX or above. */
bool cpu_set_add(CpuSet *s, unsigned cpu);
void cpu_set_remove(CpuSet *s, unsigned cpu);
bool cpu_set_has(const CpuSet *s, unsigned cpu);
unsigned cpu_set_count(const CpuSet *s);
bool cpu_set_is_empty(const CpuSet *s);
bool cpu_set_equal(const CpuSet *a, const CpuSet *b);
bool cpu_set_intersects(const CpuSet *a, const CpuSet *b);
/* Is every CPU of a in b? */
bool cpu_set_is_subset(const CpuSet *a, const CpuSet *b);
/* The lowest and highest CPU after `after` (-1: from the start), or -1. */
int cpu_set_next(const CpuSet *s, int after);
int cpu_set_last(const CpuSet *s);
/* ret = a & b, a | b, a & ~b (ret may be a or b). */
void cpu_set_and(CpuSet *ret, const CpuSet *a, const CpuSet *b);
void cpu_set_or(CpuSet *ret, const CpuSet *a, const CpuSet *b);
void cpu_set_andnot(CpuSet *ret, const CpuSet *a, const CpuSet *b);

/* "0-3,7": numbers and ranges separated by commas (blanks too, for
 * realtime.conf(5)), one trailing newline allowed; "" is the empty set.
 * -EINVAL for anything else, -ERANGE for a CPU of CPU_SET_MAX or above;
 * *ret untouched then. */
int cpu_set_parse_list(const char *s, CpuSet *ret);
/* "ff" or "00000000,000000ff" (words of up to 8 hex digits, the last the
 * lowest CPUs), one trailing newline allowed. -EINVAL, -ERANGE. */
int cpu_set_parse_mask(const char *s, CpuSet *ret);
/* s as a list, "0-3,7" ("" for the empty set). -ENOBUFS when it does not
 * fit (buf holds a NUL then). */
int cpu_set_format_list(const CpuSet *s, char *buf, size_t size);
/* s as a mask the kernel takes back: "f", "1,00000000". -ENOBUFS. */
int cpu_set_format_mask(const CpuSet *s, char *buf, size_t size);
