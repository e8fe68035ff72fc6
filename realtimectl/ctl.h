/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl's shared state: the parsed command line, the exit statuses
 * documented in realtimectl(1), and one entry point per command group
 * (policy-check.c, explain.c, status.c, grant.c, reset.c, run.c, reload.c,
 * irq.c, check-verb.c, latency.c). Each verb returns an exit status (>= 0) and has already told the
 * user what went wrong; helpers below them return 0 / -errno as usual.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "output.h"
#include "policy.h"

/* Exit statuses, documented in realtimectl(1). */
enum {
	CTL_EXIT_OK = 0,
	CTL_EXIT_REFUSED = 1,	  /* policy errors, or the daemon/polkit said no */
	CTL_EXIT_USAGE = 2,	  /* bad command line or arguments */
	CTL_EXIT_UNREACHABLE = 3, /* realtimed or the system bus is not there */
	CTL_EXIT_NO_SUCH = 4,	  /* no such process, thread or user */
	CTL_EXIT_FAILED = 5,	  /* anything else: the kernel said no, I/O, memory */
	CTL_EXIT_WARNINGS = 6,	  /* policy check: warnings, and no file rejected */
};

typedef struct Ctl {
	bool json;
	bool legend;
	bool offline;

	/* Policy file overrides for the offline commands. */
	PolicyPaths paths;
	bool have_paths;
	const char **conf_files;
	size_t n_conf_files;

	/* grant / run */
	const char *sched_policy; /* "fifo", "rr" or NULL */
	int run_priority;	  /* run --fifo/--rr PRIO; -1 when not given */
	bool have_nice;
	int nice;
	bool limits;
	bool threads; /* run --threads: COMMAND under librealtime-preload.so */

	/* status --all: every user's grants, not only the caller's */
	bool all;
	/* status --refused: the refused requests, not the grants */
	bool refused;

	/* check --user USER: whose session is checked (name, #UID) */
	const char *user;

	/* latency, and check --latency[=TIME] */
	bool check_latency;
	uint64_t lat_duration_usec; /* 0: the default */
	uint64_t lat_interval_usec; /* 0: the default */
	const char *lat_cpus;	    /* --cpu LIST */
	int lat_priority;	    /* --priority; -1 when not given */
	const char *lat_svg;	    /* --svg FILE */
} Ctl;

int verb_policy(Ctl *ctl, int argc, char **argv);
int verb_explain(Ctl *ctl, int argc, char **argv);
int verb_status(Ctl *ctl, int argc, char **argv);
int verb_grant(Ctl *ctl, int argc, char **argv);
int verb_reset(Ctl *ctl, int argc, char **argv);
int verb_run(Ctl *ctl, int argc, char **argv);
int verb_reload(Ctl *ctl, int argc, char **argv);
int verb_irq(Ctl *ctl, int argc, char **argv);
int verb_check(Ctl *ctl, int argc, char **argv);
int verb_latency(Ctl *ctl, int argc, char **argv);
/* status --refused (refused.c) */
int verb_status_refused(Ctl *ctl);

/* Loads the policy the offline commands evaluate: --conf files if given,
 * else the vendor/admin/drop-in paths (overridden by the --*-conf* options).
 * Prints the rejected files' errors to stderr as "file:line: message"
 * (when report_errors). Returns 0 or -ENOMEM. */
int ctl_load_policy(const Ctl *ctl, bool report_errors, Policy **ret);

/* Prints "file:line: message" (or "file: message" for line 0) to stderr. */
void ctl_print_policy_error(const PolicyError *e);
/* The same, with "warning: " before the message. */
void ctl_print_policy_warning(const PolicyError *e);

/* Logs a usage error and a pointer to --help; returns CTL_EXIT_USAGE. */
int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "Out of memory."; returns CTL_EXIT_FAILED. */
int ctl_oom(void);

/* The table format that --json and --no-legend ask for. */
TableFormat ctl_table_format(const Ctl *ctl);

/* Maps -errno to the exit status for it. */
int ctl_exit_from_errno(int r);
