/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for realtimectl/options.c, the option table: global options
 * before the verb, run's --fifo PRIO and its COMMAND's options left alone,
 * grant's --fifo without an argument, bad values and unknown options
 * refused, each option refused with a verb it does not go with, --conf
 * with the other policy file options refused, and --help's Options lines.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-main.h"
#include "config.h"
#include "macro.h"
#include "options.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)ELEMENTSOF(((char *[]){ __VA_ARGS__ })))

static Ctl ctl;
static CtlOptionsGiven given;

static void setup(void)
{
	ctl = (Ctl){ .legend = true, .run_priority = -1 };
	given = 0;
}

static void teardown(void)
{
	free(ctl.conf_files);
}

/* Parses argv as main() does: the global options, then the verb's. */
static int parse(int argc, char **argv, const char **ret_verb, int *ret_index)
{
	int r, index;
	bool run;

	r = ctl_options_parse(&ctl, argc, argv, false, true, &given, &index);
	if (r != -1)
		return r;
	ck_assert_int_lt(index, argc);
	*ret_verb = argv[index];
	run = streq(argv[index], "run");
	argc -= index;
	argv += index;
	r = ctl_options_parse(&ctl, argc, argv, run, run, &given, ret_index);
	if (r != -1)
		return r;
	*ret_index += index;
	return ctl_options_check(&ctl, given, *ret_verb);
}

START_TEST(test_global_and_verb)
{
	char **argv = ARGV("realtimectl", "--json", "status", "--no-legend", "--all");
	const char *verb;
	int index;

	ck_assert_int_eq(parse(5, argv, &verb, &index), -1);
	ck_assert_str_eq(verb, "status");
	ck_assert_int_eq(index, 5);
	ck_assert(ctl.json);
	ck_assert(!ctl.legend);
	ck_assert(ctl.all);
}
END_TEST

START_TEST(test_run_stops_at_command)
{
	char **argv =
		ARGV("realtimectl", "run", "--fifo", "50", "--limits", "jackd", "--json", "-h");
	const char *verb;
	int index;

	ck_assert_int_eq(parse(8, argv, &verb, &index), -1);
	ck_assert_str_eq(argv[index], "jackd");
	ck_assert_str_eq(ctl.sched_policy, "fifo");
	ck_assert_int_eq(ctl.run_priority, 50);
	ck_assert(ctl.limits);
	ck_assert(!ctl.json); /* jackd's */
}
END_TEST

START_TEST(test_grant_reads_prio_as_operand)
{
	char **argv = ARGV("realtimectl", "grant", "--rr", "50", "123/124");
	const char *verb;
	int index;

	ck_assert_int_eq(parse(5, argv, &verb, &index), -1);
	ck_assert_str_eq(ctl.sched_policy, "rr");
	ck_assert_int_eq(ctl.run_priority, -1);
	ck_assert_str_eq(argv[index], "50");
}
END_TEST

START_TEST(test_bad_values)
{
	const char *verb;
	int index;

	ck_assert_int_eq(
		parse(6, ARGV("realtimectl", "grant", "--fifo", "--rr", "1", "2"), &verb, &index),
		CTL_EXIT_USAGE);
	setup();
	ck_assert_int_eq(
		parse(5, ARGV("realtimectl", "grant", "--nice=20", "1", "2"), &verb, &index),
		CTL_EXIT_USAGE);
	setup();
	ck_assert_int_eq(parse(4, ARGV("realtimectl", "run", "--rr=0", "true"), &verb, &index),
			 CTL_EXIT_USAGE);
	setup();
	ck_assert_int_eq(parse(3, ARGV("realtimectl", "status", "--bogus"), &verb, &index),
			 CTL_EXIT_USAGE);
	setup();
	ck_assert_int_eq(
		parse(4, ARGV("realtimectl", "--help", "--bogus", "status"), &verb, &index),
		CTL_OPTIONS_HELP);
	setup();
	ck_assert_int_eq(parse(3, ARGV("realtimectl", "status", "-h"), &verb, &index),
			 CTL_OPTIONS_HELP);
}
END_TEST

START_TEST(test_verbs_an_option_goes_with)
{
	static const struct {
		const char *option, *verb;
		bool ok;
	} cases[] = {
		{ "--user=bob", "check", true },     { "--user=bob", "status", false },
		{ "--all", "status", true },	     { "--all", "check", false },
		{ "--offline", "explain", true },    { "--offline", "irq", true },
		{ "--offline", "policy", false },    { "--conf=/a", "policy", true },
		{ "--conf=/a", "check", true },	     { "--conf=/a", "status", false },
		{ "--nice=5", "grant", true },	     { "--nice=5", "reset", false },
		{ "--threads", "run", true },	     { "--threads", "grant", false },
		{ "--json", "reload", true },	     { "--admin-conf=/a", "explain", true },
		{ "--admin-conf=/a", "run", false },
	};
	const char *verb;
	int index;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		setup();
		ck_assert_msg(
			parse(3,
			      ARGV("realtimectl", (char *)cases[i].verb, (char *)cases[i].option),
			      &verb, &index) == (cases[i].ok ? -1 : CTL_EXIT_USAGE),
			"%s %s", cases[i].verb, cases[i].option);
		teardown();
	}
	setup();
}
END_TEST

START_TEST(test_conf_alone)
{
	const char *verb;
	int index;

	ck_assert_int_eq(parse(5, ARGV("realtimectl", "policy", "--conf=/a", "--conf=/b", "check"),
			       &verb, &index),
			 -1);
	ck_assert_uint_eq(ctl.n_conf_files, 2);
	ck_assert_str_eq(ctl.conf_files[1], "/b");
	ck_assert_int_eq(
		parse(4, ARGV("realtimectl", "policy", "--vendor-conf=/v", "check"), &verb, &index),
		CTL_EXIT_USAGE);
	ck_assert_str_eq(ctl.paths.vendor_file, "/v");
}
END_TEST

START_TEST(test_help_lines)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	ck_assert_ptr_nonnull(f);
	ctl_options_help(f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(text, "  -h --help                   Show this help\n"));
	ck_assert_ptr_nonnull(strstr(
		text,
		"     --vendor-conf=FILE       Vendor policy file (default " POLICY_VENDOR_FILE
		")\n"));
	/* options described with their verb are not repeated */
	ck_assert_ptr_null(strstr(text, "--user"));
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ctl-options");
	TCase *tc;

	tc = check_add_case(s, "options",
			    CHECK_TESTS(test_global_and_verb, test_run_stops_at_command,
					test_grant_reads_prio_as_operand, test_bad_values,
					test_verbs_an_option_goes_with, test_conf_alone,
					test_help_lines));
	tcase_add_checked_fixture(tc, setup, teardown);
	return check_run(s);
}
