/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl's option table and its parser; see options.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "macro.h"
#include "options.h"
#include "parse.h"

typedef struct CtlOption CtlOption;

/* Fills ctl from arg (NULL for an option without one). -1 to go on, or an
 * exit status after saying what was wrong. */
typedef int (*CtlOptionSetter)(Ctl *ctl, const CtlOption *o, const char *arg);

struct CtlOption {
	const char *name;
	char short_name;	  /* 'h', or 0 */
	int has_arg;		  /* getopt_long()'s no_argument or required_argument */
	bool arg_with_run;	  /* run takes an argument where other verbs take none */
	CtlOptionSetter set;	  /* fills the field at offset */
	size_t offset;		  /* in Ctl */
	const char *const *only;  /* the verbs it goes with ("policy check"); NULL: all */
	const char *help_arg;	  /* "FILE" in "--conf=FILE" */
	const char *help;	  /* its line in Options:; NULL: described with its verb */
	const char *help_default; /* "(default ...)" after the line */
};

#define FIELD(ctl, o, type) ((type *)((char *)(ctl) + (o)->offset))

static int set_true(Ctl *ctl, const CtlOption *o, const char *arg)
{
	*FIELD(ctl, o, bool) = true;
	return -1;
}

static int set_false(Ctl *ctl, const CtlOption *o, const char *arg)
{
	*FIELD(ctl, o, bool) = false;
	return -1;
}

static int set_string(Ctl *ctl, const CtlOption *o, const char *arg)
{
	*FIELD(ctl, o, const char *) = arg;
	return -1;
}

/* One of the paths of PolicyPaths: --conf may not come with these. */
static int set_policy_path(Ctl *ctl, const CtlOption *o, const char *arg)
{
	*FIELD(ctl, o, const char *) = arg;
	ctl->have_paths = true;
	return -1;
}

static int set_conf_file(Ctl *ctl, const CtlOption *o, const char *arg)
{
	const char **a = reallocarray(ctl->conf_files, ctl->n_conf_files + 1, sizeof(char *));

	if (!a)
		return ctl_oom();
	a[ctl->n_conf_files++] = arg;
	ctl->conf_files = a;
	return -1;
}

/* --fifo and --rr: the policy is the option's name; run's PRIO is arg. */
static int set_sched_policy(Ctl *ctl, const CtlOption *o, const char *arg)
{
	if (ctl->sched_policy)
		return ctl_usage_error("give only one of --fifo and --rr.");
	ctl->sched_policy = o->name;
	if (arg && parse_priority(arg, false, &ctl->run_priority) < 0)
		return ctl_usage_error("invalid priority '%s': give 1..99.", arg);
	return -1;
}

static int set_nice(Ctl *ctl, const CtlOption *o, const char *arg)
{
	if (parse_nice(arg, &ctl->nice) < 0)
		return ctl_usage_error("invalid nice level '%s': give -20..19.", arg);
	ctl->have_nice = true;
	return -1;
}

/* --duration, --interval, check --latency[=TIME]: a bare number is seconds */
static int set_duration(Ctl *ctl, const CtlOption *o, const char *arg)
{
	uint64_t usec;

	if (streq(o->name, "latency")) {
		ctl->check_latency = true;
		if (!arg)
			return -1;
	}
	if (parse_duration(arg, false, &usec) < 0 || usec == 0 || usec == UINT64_MAX)
		return ctl_usage_error("invalid time '%s' for --%s: give e.g. 10s, 500ms.", arg,
				       o->name);
	*FIELD(ctl, o, uint64_t) = usec;
	return -1;
}

static int set_priority(Ctl *ctl, const CtlOption *o, const char *arg)
{
	if (parse_priority(arg, false, FIELD(ctl, o, int)) < 0)
		return ctl_usage_error("invalid priority '%s': give 1..99.", arg);
	return -1;
}

static int show_help(Ctl *ctl, const CtlOption *o, const char *arg)
{
	return CTL_OPTIONS_HELP;
}

static int show_version(Ctl *ctl, const CtlOption *o, const char *arg)
{
	printf("realtimectl %s\n", PACKAGE_VERSION);
	return CTL_EXIT_OK;
}

#define ONLY(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define POLICY_VERBS ONLY("policy check", "explain", "irq", "check")
#define GRANT_VERBS ONLY("grant", "run")

/* --vendor-conf and the like: a path of PolicyPaths, --help says its default */
/* clang-format off */
#define POLICY_PATH(name, field, arg, help, dflt)					\
	{ name, 0, required_argument, false, set_policy_path, offsetof(Ctl, paths.field),	\
	  POLICY_VERBS, arg, help, dflt }
/* clang-format on */

/* In the order of --help. */
static const CtlOption options[] = {
	{ "help", 'h', no_argument, false, show_help, 0, NULL, NULL, "Show this help" },
	{ "version", 0, no_argument, false, show_version, 0, NULL, NULL, "Show the version" },
	{ "json", 0, no_argument, false, set_true, offsetof(Ctl, json), NULL, NULL,
	  "Print JSON for scripts" },
	{ "no-legend", 0, no_argument, false, set_false, offsetof(Ctl, legend), NULL, NULL,
	  "Leave out table headers and footers" },
	{ "offline", 0, no_argument, false, set_true, offsetof(Ctl, offline),
	  ONLY("explain", "irq"), NULL, "Evaluate the policy files here, not in realtimed" },
	POLICY_PATH("vendor-conf", vendor_file, "FILE", "Vendor policy file", POLICY_VENDOR_FILE),
	POLICY_PATH("admin-conf", admin_file, "FILE", "Admin policy file", POLICY_ADMIN_FILE),
	POLICY_PATH("vendor-conf-dir", vendor_dropin_dir, "DIR", "Vendor drop-in directory",
		    POLICY_VENDOR_DROPIN_DIR),
	POLICY_PATH("admin-conf-dir", admin_dropin_dir, "DIR", "Admin drop-in directory",
		    POLICY_ADMIN_DROPIN_DIR),
	{ "conf", 0, required_argument, false, set_conf_file, 0, POLICY_VERBS, "FILE",
	  "Read exactly these files, in order (repeatable)" },
	/* grant: "--fifo PRIO PID" reads PRIO as its first operand */
	{ "fifo", 0, no_argument, true, set_sched_policy, 0, GRANT_VERBS },
	{ "rr", 0, no_argument, true, set_sched_policy, 0, GRANT_VERBS },
	{ "nice", 0, required_argument, false, set_nice, 0, GRANT_VERBS },
	{ "limits", 0, no_argument, false, set_true, offsetof(Ctl, limits), ONLY("run") },
	{ "threads", 0, no_argument, false, set_true, offsetof(Ctl, threads), ONLY("run") },
	{ "all", 0, no_argument, false, set_true, offsetof(Ctl, all), ONLY("status") },
	{ "refused", 0, no_argument, false, set_true, offsetof(Ctl, refused), ONLY("status") },
	{ "user", 0, required_argument, false, set_string, offsetof(Ctl, user), ONLY("check") },
	{ "latency", 0, optional_argument, false, set_duration, offsetof(Ctl, lat_duration_usec),
	  ONLY("check") },
	{ "duration", 0, required_argument, false, set_duration, offsetof(Ctl, lat_duration_usec),
	  ONLY("latency") },
	{ "interval", 0, required_argument, false, set_duration, offsetof(Ctl, lat_interval_usec),
	  ONLY("latency") },
	{ "cpu", 0, required_argument, false, set_string, offsetof(Ctl, lat_cpus),
	  ONLY("latency") },
	{ "priority", 0, required_argument, false, set_priority, offsetof(Ctl, lat_priority),
	  ONLY("latency") },
	{ "svg", 0, required_argument, false, set_string, offsetof(Ctl, lat_svg), ONLY("latency") },
};

/* getopt_long()'s value for options[i] without a short name */
#define OPTION_VAL_BASE 0x100

int ctl_options_parse(Ctl *ctl, int argc, char **argv, bool run, bool stop_at_operand,
		      CtlOptionsGiven *given, int *ret_index)
{
	struct option longopts[ELEMENTSOF(options) + 1] = {};
	char shortopts[8] = "+";
	size_t n_short = 1;
	int c, r;

	_Static_assert(ELEMENTSOF(options) <= sizeof(CtlOptionsGiven) * 8, "a bit per option");
	for (size_t i = 0; i < ELEMENTSOF(options); i++) {
		const CtlOption *o = &options[i];

		longopts[i] = (struct option){
			.name = o->name,
			.has_arg = run && o->arg_with_run ? required_argument : o->has_arg,
			.val = o->short_name ?: OPTION_VAL_BASE + (int)i,
		};
		if (o->short_name)
			shortopts[n_short++] = o->short_name;
	}
	optind = 0; /* glibc: reinitialise, so "+" is honoured on the second pass */
	opterr = 1;
	while ((c = getopt_long(argc, argv, stop_at_operand ? shortopts : shortopts + 1, longopts,
				NULL)) >= 0) {
		const CtlOption *o = NULL;

		for (size_t i = 0; i < ELEMENTSOF(options); i++)
			if (c == longopts[i].val) {
				o = &options[i];
				*given |= (CtlOptionsGiven)1 << i;
			}
		if (!o) {
			/* getopt printed what was wrong */
			fputs("Try 'realtimectl --help' for more information.\n", stderr);
			return CTL_EXIT_USAGE;
		}
		r = o->set(ctl, o, optarg);
		if (r != -1)
			return r;
	}
	*ret_index = optind;
	return -1;
}

/* Is verb the first word of one of list ("policy" of "policy check")? */
static bool verb_in(const char *verb, const char *const *list)
{
	size_t l = strlen(verb);

	for (; *list; list++)
		if (strncmp(*list, verb, l) == 0 && ((*list)[l] == '\0' || (*list)[l] == ' '))
			return true;
	return false;
}

int ctl_options_check(const Ctl *ctl, CtlOptionsGiven given, const char *verb)
{
	for (size_t i = 0; i < ELEMENTSOF(options); i++) {
		const char *const *only = options[i].only;
		char where[128] = "";

		if (!(given & ((CtlOptionsGiven)1 << i)) || !only || verb_in(verb, only))
			continue;
		for (size_t k = 0, l = 0; only[k] && l < sizeof(where); k++)
			l += snprintf(where + l, sizeof(where) - l, "%s%s",
				      k == 0	    ? ""
				      : only[k + 1] ? ", "
						    : " and ",
				      only[k]);
		return ctl_usage_error("--%s goes with %s only.", options[i].name, where);
	}
	if (ctl->have_paths && ctl->n_conf_files > 0)
		return ctl_usage_error(
			"--conf reads exactly the given files; do not combine it with "
			"--vendor-conf, --admin-conf, --vendor-conf-dir or --admin-conf-dir.");
	return -1;
}

void ctl_options_help(FILE *f)
{
	for (size_t i = 0; i < ELEMENTSOF(options); i++) {
		const CtlOption *o = &options[i];
		char left[64];

		if (!o->help)
			continue;
		snprintf(left, sizeof(left), "%c%c --%s%s%s", o->short_name ? '-' : ' ',
			 o->short_name ?: ' ', o->name, o->help_arg ? "=" : "", o->help_arg ?: "");
		fprintf(f, "  %-28s%s", left, o->help);
		if (o->help_default)
			fprintf(f, " (default %s)", o->help_default);
		fputc('\n', f);
	}
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
