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
	/* Not on the command line: "/proc" with use_pidfds for a daemon,
	 * a fake /proc without pidfds for the unit tests, whose tasks the
	 * kernel's pidfds know nothing of. */
	const char *proc;
	bool use_pidfds;
} DaemonArgs;

/* Returns 1 to run, 0 when --help/--version was answered on out,
 * -EINVAL on a bad command line (the reason written to err). */
int args_parse(int argc, char *argv[], DaemonArgs *ret, FILE *out, FILE *err);
