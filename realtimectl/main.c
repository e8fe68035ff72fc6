/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl: the command line of realtimed. This file parses the command
 * line (global options, then the verb and its options), prints --help and
 * --version, and dispatches to one file per command group. Offline commands
 * (policy check, explain --offline, irq --offline) use the policy library
 * directly; the others talk to realtimed over D-Bus (bus.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "macro.h"
#include "parse.h"

enum {
	ARG_VERSION = 0x100,
	ARG_JSON,
	ARG_NO_LEGEND,
	ARG_OFFLINE,
	ARG_VENDOR_CONF,
	ARG_ADMIN_CONF,
	ARG_VENDOR_CONF_DIR,
	ARG_ADMIN_CONF_DIR,
	ARG_CONF,
	ARG_FIFO,
	ARG_RR,
	ARG_NICE,
	ARG_LIMITS,
	ARG_THREADS,
	ARG_ALL,
};

/* clang-format off */
#define COMMON_OPTIONS							\
	{ "help", no_argument, NULL, 'h' },				\
	{ "version", no_argument, NULL, ARG_VERSION },			\
	{ "json", no_argument, NULL, ARG_JSON },			\
	{ "no-legend", no_argument, NULL, ARG_NO_LEGEND },		\
	{ "offline", no_argument, NULL, ARG_OFFLINE },			\
	{ "vendor-conf", required_argument, NULL, ARG_VENDOR_CONF },	\
	{ "admin-conf", required_argument, NULL, ARG_ADMIN_CONF },	\
	{ "vendor-conf-dir", required_argument, NULL, ARG_VENDOR_CONF_DIR }, \
	{ "admin-conf-dir", required_argument, NULL, ARG_ADMIN_CONF_DIR }, \
	{ "conf", required_argument, NULL, ARG_CONF },			\
	{ "nice", required_argument, NULL, ARG_NICE },			\
	{ "limits", no_argument, NULL, ARG_LIMITS },			\
	{ "threads", no_argument, NULL, ARG_THREADS },			\
	{ "all", no_argument, NULL, ARG_ALL }
/* clang-format on */

/* grant: "--fifo PRIO PID" reads PRIO as the first positional argument. */
static const struct option options_default[] = {
	COMMON_OPTIONS,
	{ "fifo", no_argument, NULL, ARG_FIFO },
	{ "rr", no_argument, NULL, ARG_RR },
	{},
};

/* run: "--fifo PRIO" is an option with an argument, so that parsing can
 * stop at COMMAND and leave its own options alone. */
static const struct option options_run[] = {
	COMMON_OPTIONS,
	{ "fifo", required_argument, NULL, ARG_FIFO },
	{ "rr", required_argument, NULL, ARG_RR },
	{},
};

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
	       "Options:\n"
	       "  -h --help                   Show this help\n"
	       "     --version                Show the version\n"
	       "     --json                   Print JSON for scripts\n"
	       "     --no-legend              Leave out table headers and footers\n"
	       "     --offline                Evaluate the policy files here, not in realtimed\n"
	       "     --vendor-conf=FILE       Vendor policy file (default %s)\n"
	       "     --admin-conf=FILE        Admin policy file (default %s)\n"
	       "     --vendor-conf-dir=DIR    Vendor drop-in directory (default %s)\n"
	       "     --admin-conf-dir=DIR     Admin drop-in directory (default %s)\n"
	       "     --conf=FILE              Read exactly these files, in order (repeatable)\n"
	       "\n"
	       "Exit status: 0 ok, 1 refused or policy errors, 2 usage, 3 realtimed or the\n"
	       "system bus unreachable, 4 no such process/thread/user, 5 other failure.\n"
	       "See realtimectl(1).\n",
	       POLICY_VENDOR_FILE, POLICY_ADMIN_FILE, POLICY_VENDOR_DROPIN_DIR,
	       POLICY_ADMIN_DROPIN_DIR);
}

int ctl_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("realtimectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'realtimectl --help' for more information.\n", stderr);
	return CTL_EXIT_USAGE;
}

int ctl_oom(void)
{
	fputs("Out of memory.\n", stderr);
	return CTL_EXIT_FAILED;
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

void ctl_print_policy_error(const PolicyError *e)
{
	if (e->line > 0)
		fprintf(stderr, "%s:%u: %s\n", e->file, e->line, e->message);
	else
		fprintf(stderr, "%s: %s\n", e->file, e->message);
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

static int add_conf_file(Ctl *ctl, const char *path)
{
	const char **a = reallocarray(ctl->conf_files, ctl->n_conf_files + 1, sizeof(char *));

	if (!a)
		return -ENOMEM;
	a[ctl->n_conf_files++] = path;
	ctl->conf_files = a;
	return 0;
}

/* Parses options with getopt_long from argv[0] on (argv[0] is skipped as
 * getopt does). stop_at_operand: "+" mode, stop at the first operand.
 * Returns -1 to go on, or an exit status. *ret_index: the first operand. */
static int parse_options(Ctl *ctl, int argc, char **argv, const struct option *opts,
			 bool stop_at_operand, int *ret_index)
{
	int c, r;

	optind = 0; /* glibc: reinitialise, so "+" is honoured on the second pass */
	opterr = 1;
	while ((c = getopt_long(argc, argv, stop_at_operand ? "+h" : "h", opts, NULL)) >= 0) {
		switch (c) {
		case 'h':
			help();
			return CTL_EXIT_OK;
		case ARG_VERSION:
			printf("realtimectl %s\n", PACKAGE_VERSION);
			return CTL_EXIT_OK;
		case ARG_JSON:
			ctl->json = true;
			break;
		case ARG_NO_LEGEND:
			ctl->legend = false;
			break;
		case ARG_OFFLINE:
			ctl->offline = true;
			break;
		case ARG_VENDOR_CONF:
			ctl->paths.vendor_file = optarg;
			ctl->have_paths = true;
			break;
		case ARG_ADMIN_CONF:
			ctl->paths.admin_file = optarg;
			ctl->have_paths = true;
			break;
		case ARG_VENDOR_CONF_DIR:
			ctl->paths.vendor_dropin_dir = optarg;
			ctl->have_paths = true;
			break;
		case ARG_ADMIN_CONF_DIR:
			ctl->paths.admin_dropin_dir = optarg;
			ctl->have_paths = true;
			break;
		case ARG_CONF:
			if (add_conf_file(ctl, optarg) < 0)
				return ctl_oom();
			break;
		case ARG_FIFO:
		case ARG_RR:
			if (ctl->sched_policy)
				return ctl_usage_error("give only one of --fifo and --rr.");
			ctl->sched_policy = c == ARG_FIFO ? "fifo" : "rr";
			if (optarg) {
				r = parse_priority(optarg, false, &ctl->run_priority);
				if (r < 0)
					return ctl_usage_error("invalid priority '%s': give 1..99.",
							       optarg);
			}
			break;
		case ARG_NICE:
			r = parse_nice(optarg, &ctl->nice);
			if (r < 0)
				return ctl_usage_error("invalid nice level '%s': give -20..19.",
						       optarg);
			ctl->have_nice = true;
			break;
		case ARG_LIMITS:
			ctl->limits = true;
			break;
		case ARG_THREADS:
			ctl->threads = true;
			break;
		case ARG_ALL:
			ctl->all = true;
			break;
		case '?':
			/* getopt printed what was wrong */
			fputs("Try 'realtimectl --help' for more information.\n", stderr);
			return CTL_EXIT_USAGE;
		default:
			fprintf(stderr, "realtimectl: unhandled option %d\n", c);
			return CTL_EXIT_FAILED;
		}
	}
	*ret_index = optind;
	return -1;
}

/* Options that only some verbs take: refuse them elsewhere, rather than
 * silently ignoring what the user asked for. */
static int check_verb_options(const Ctl *ctl, const char *verb)
{
	bool grants = streq(verb, "grant") || streq(verb, "run");
	bool policy = streq(verb, "policy") || streq(verb, "explain") || streq(verb, "irq");

	if ((ctl->sched_policy || ctl->have_nice) && !grants)
		return ctl_usage_error("--fifo, --rr and --nice go with grant and run only.");
	if (ctl->limits && !streq(verb, "run"))
		return ctl_usage_error("--limits goes with run only.");
	if (ctl->threads && !streq(verb, "run"))
		return ctl_usage_error("--threads goes with run only.");
	if (ctl->all && !streq(verb, "status"))
		return ctl_usage_error("--all goes with status only.");
	if (ctl->offline && !streq(verb, "explain") && !streq(verb, "irq"))
		return ctl_usage_error("--offline goes with explain and irq only.");
	if ((ctl->have_paths || ctl->n_conf_files > 0) && !policy)
		return ctl_usage_error(
			"the policy file options go with policy check, explain and irq only.");
	if (ctl->have_paths && ctl->n_conf_files > 0)
		return ctl_usage_error(
			"--conf reads exactly the given files; do not combine it with "
			"--vendor-conf, --admin-conf, --vendor-conf-dir or --admin-conf-dir.");
	return -1;
}

int main(int argc, char **argv)
{
	Ctl ctl = { .legend = true, .run_priority = -1 };
	const Verb *verb = NULL;
	int r, index;

	/* Global options up to the verb. */
	r = parse_options(&ctl, argc, argv, options_default, true, &index);
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
	r = parse_options(&ctl, argc, argv, verb->run == verb_run ? options_run : options_default,
			  verb->run == verb_run, &index);
	if (r >= 0)
		goto finish;
	r = check_verb_options(&ctl, verb->name);
	if (r >= 0)
		goto finish;

	r = verb->run(&ctl, argc - index, argv + index);
finish:
	free(ctl.conf_files);
	return r;
}
