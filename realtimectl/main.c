/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl: the command line of realtimed. This file parses the command
 * line (global options, then the verb and its options, with options.c's
 * table), prints --help, and dispatches to one file per command group. Offline commands
 * (policy check, explain --offline, irq --offline) use the policy library
 * directly; the others talk to realtimed over D-Bus (bus.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "macro.h"
#include "options.h"

typedef struct Verb {
	const char *name;
	int (*run)(Ctl *ctl, int argc, char **argv);
} Verb;

/* clang-format off */
static const Verb verbs[] = {
	{ "policy", verb_policy },
	{ "explain", verb_explain },
	{ "status", verb_status },
	{ "grant", verb_grant },
	{ "reset", verb_reset },
	{ "run", verb_run },
	{ "reload", verb_reload },
	{ "irq", verb_irq },
	{ "check", verb_check },
	{ "latency", verb_latency },
};
/* clang-format on */

static void help(void)
{
	printf("realtimectl [OPTIONS...] COMMAND ...\n"
	       "\n"
	       "Inspect and use realtimed, the realtime scheduling policy daemon.\n"
	       "\n"
	       "Policy (offline, no daemon needed):\n"
	       "  policy check [FILE...]      Validate policy files; without FILEs the\n"
	       "                              installed vendor, admin and drop-in files\n"
	       "  explain [--offline] [USER]  What policy grants USER (name or #uid), key by\n"
	       "                              key, and which file:line decided it\n"
	       "\n"
	       "Grants (through realtimed):\n"
	       "  status [--all]              List your supervised grants (--all: every\n"
	       "                              user's; needs root or org.realtimed.manage)\n"
	       "  status --refused [--all]    Your refused requests and why (--all: every\n"
	       "                              user's)\n"
	       "  grant [--fifo|--rr] PRIO PID[/TID]\n"
	       "                              Make a thread SCHED_FIFO/SCHED_RR (default rr)\n"
	       "  grant --nice N PID[/TID]    Give a thread nice level N\n"
	       "  reset PID[/TID]             Back to SCHED_OTHER, nice 0\n"
	       "  run [--fifo PRIO|--rr PRIO] [--nice N] [--limits] [--] COMMAND [ARG...]\n"
	       "                              Get the grant (default: --limits, the policy's\n"
	       "                              rlimits) for this process, then exec COMMAND\n"
	       "  run --threads [--] COMMAND [ARG...]\n"
	       "                              Run COMMAND with librealtime-preload.so: each\n"
	       "                              thread it makes realtime is granted by realtimed\n"
	       "                              (JACK, Ardour...), no rlimits asked for\n"
	       "  reload                      Make realtimed re-read the policy\n"
	       "  irq [--offline]             List IRQ threads and their priorities\n"
	       "\n"
	       "Diagnosis (reads, changes nothing):\n"
	       "  check [--user USER]         Check the kernel, limits, groups, policy,\n"
	       "                              realtimed and IRQ threads for realtime audio;\n"
	       "                              say what to change (exit 1 if a check failed)\n"
	       "  check --latency[=TIME]      ... and measure latency (default 5s): one more line\n"
	       "\n"
	       "Measurement (as a realtime program of yours gets it):\n"
	       "  latency [--duration TIME] [--interval TIME] [--cpu LIST] [--priority N]\n"
	       "          [--svg FILE]        How late a realtime thread wakes on each CPU\n"
	       "                              (default 10s, every 1ms), where the worst came\n"
	       "                              from, and which buffer sizes are safe\n"
	       "\n"
	       "Options:\n");
	ctl_options_help(stdout);
	printf("\n"
	       "Exit status: 0 ok, 1 refused or policy errors, 2 usage, 3 realtimed or the\n"
	       "system bus unreachable, 4 no such process/thread/user, 5 other failure,\n"
	       "6 policy check: warnings only.\n"
	       "See realtimectl(1).\n");
}

TableFormat ctl_table_format(const Ctl *ctl)
{
	return ctl->json ? TABLE_JSON : ctl->legend ? TABLE_TEXT : TABLE_TEXT_NO_LEGEND;
}

int ctl_exit_from_errno(int r)
{
	switch (-r) {
	case 0:
		return CTL_EXIT_OK;
	case EINVAL:
	case ERANGE:
		return CTL_EXIT_USAGE;
	case ESRCH:
	case ENOENT:
		return CTL_EXIT_NO_SUCH;
	case EPERM:
	case EACCES:
		return CTL_EXIT_REFUSED;
	default:
		return CTL_EXIT_FAILED;
	}
}

static void print_policy_note(const PolicyError *e, const char *prefix)
{
	if (e->line > 0)
		fprintf(stderr, "%s:%u: %s%s\n", e->file, e->line, prefix, e->message);
	else
		fprintf(stderr, "%s: %s%s\n", e->file, prefix, e->message);
}

void ctl_print_policy_error(const PolicyError *e)
{
	print_policy_note(e, "");
}

void ctl_print_policy_warning(const PolicyError *e)
{
	print_policy_note(e, "warning: ");
}

int ctl_load_policy(const Ctl *ctl, bool report_errors, Policy **ret)
{
	Policy *p = NULL;
	int r;

	if (ctl->n_conf_files > 0)
		r = policy_load_files(ctl->conf_files, ctl->n_conf_files, &p);
	else
		r = policy_load(&ctl->paths, &p);
	if (r < 0) {
		fprintf(stderr, "Failed to load the policy: %s\n", strerror(-r));
		return r;
	}
	if (report_errors)
		for (size_t i = 0; i < policy_n_errors(p); i++)
			ctl_print_policy_error(policy_error(p, i));
	*ret = p;
	return 0;
}

/* Parses options; prints --help when asked. -1 to go on, or an exit
 * status. */
static int parse_options(Ctl *ctl, int argc, char **argv, bool run, bool stop_at_operand,
			 CtlOptionsGiven *given, int *ret_index)
{
	int r = ctl_options_parse(ctl, argc, argv, run, stop_at_operand, given, ret_index);

	if (r == CTL_OPTIONS_HELP) {
		help();
		return CTL_EXIT_OK;
	}
	return r;
}

int main(int argc, char **argv)
{
	Ctl ctl = { .legend = true, .run_priority = -1, .lat_priority = -1 };
	CtlOptionsGiven given = 0;
	const Verb *verb = NULL;
	int r, index;

	/* Global options up to the verb. */
	r = parse_options(&ctl, argc, argv, false, true, &given, &index);
	if (r >= 0)
		goto finish;
	if (index >= argc) {
		r = ctl_usage_error("no command given.");
		goto finish;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		if (streq(argv[index], verbs[i].name))
			verb = &verbs[i];
	if (!verb) {
		if (streq(argv[index], "help")) {
			help();
			r = CTL_EXIT_OK;
		} else
			r = ctl_usage_error("unknown command '%s'.", argv[index]);
		goto finish;
	}

	/* The verb's own options and operands; argv[index] plays argv[0]. run
	 * stops at COMMAND so that its options stay COMMAND's. */
	argc -= index;
	argv += index;
	r = parse_options(&ctl, argc, argv, verb->run == verb_run, verb->run == verb_run, &given,
			  &index);
	if (r >= 0)
		goto finish;
	r = ctl_options_check(&ctl, given, verb->name);
	if (r >= 0)
		goto finish;

	r = verb->run(&ctl, argc - index, argv + index);
finish:
	free(ctl.conf_files);
	return r;
}
