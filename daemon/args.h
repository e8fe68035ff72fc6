/* SPDX-License-Identifier: GPL-2.0-or-later */
/* realtimed's command line: parsed into DaemonArgs, nothing else. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* Where the kernel's CPU latency request lives (cpu-dma.h). */
#define CPU_DMA_LATENCY_PATH "/dev/cpu_dma_latency"

typedef struct DaemonArgs {
	bool debug;
	bool drop_caps;
	const char *vendor_conf; /* NULL: compiled-in default; "" disables */
	const char *admin_conf;
	const char *vendor_conf_dir;
	const char *admin_conf_dir;
	const char *state_dir;
	/* Not on the command line: "/proc" with use_pidfds for a daemon,
	 * a fake /proc without pidfds for the unit tests, whose tasks the
	 * kernel's pidfds know nothing of. */
	const char *proc;
	bool use_pidfds;
	/* Not on the command line either: CPU_DMA_LATENCY_PATH for a daemon,
	 * a FIFO or a file for the unit tests (cpu-dma.h). */
	const char *cpu_dma_latency;
} DaemonArgs;

/* Returns 1 to run, 0 when --help/--version was answered on out,
 * -EINVAL on a bad command line (the reason written to err). */
int args_parse(int argc, char *argv[], DaemonArgs *ret, FILE *out, FILE *err);
