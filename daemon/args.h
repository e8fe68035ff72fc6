/* SPDX-License-Identifier: GPL-2.0-or-later */
/* realtimed's command line: parsed into DaemonArgs, nothing else. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

typedef struct DaemonArgs {
	bool debug;
	bool drop_caps;
	const char *vendor_conf; /* NULL: compiled-in default; "" disables */
	const char *admin_conf;
	const char *vendor_conf_dir;
	const char *admin_conf_dir;
	const char *state_dir;
	/* Not options: unit tests set a fake /proc (without pidfds, which know
	 * nothing of its tasks) and a file for /dev/cpu_dma_latency. */
	const char *proc;
	bool use_pidfds;
	const char *cpu_dma_latency;
} DaemonArgs;

/* 1 to run, 0 when --help/--version was answered on out, -EINVAL on a bad
 * command line (the reason written to err). */
int args_parse(int argc, char *argv[], DaemonArgs *ret, FILE *out, FILE *err);
