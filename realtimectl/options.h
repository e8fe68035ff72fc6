/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl's options, one table (options.c): each option's name, its
 * argument, the setter that fills Ctl, the verbs it goes with and its line
 * in --help. A new option is one entry there (and its field in ctl.h), as a
 * new policy key is one entry in common/policy-keys.c. main.c parses the
 * global options and then the verb's with ctl_options_parse(), refuses the
 * ones given to the wrong verb with ctl_options_check(), and prints the
 * Options part of --help with ctl_options_help(). Unit-tested in
 * test-ctl-options.c.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ctl.h"

/* ctl_options_parse()'s answer when --help was given: print it, exit 0. */
#define CTL_OPTIONS_HELP (-2)

/* The options given, a bit per table entry, for ctl_options_check(). */
typedef uint64_t CtlOptionsGiven;

/* Parses the options of argv with getopt_long() from argv[1] on (argv[0]
 * is the program or the verb). run: as run reads them, where --fifo and
 * --rr take PRIO (grant reads "--fifo PRIO PID" as an option and two
 * operands). stop_at_operand: stop at the first operand (the verb, or
 * run's COMMAND, whose options stay its own). Adds what was given to
 * *given. Returns -1 to go on, with *ret_index the first operand;
 * CTL_OPTIONS_HELP; or an exit status after saying what was wrong. */
int ctl_options_parse(Ctl *ctl, int argc, char **argv, bool run, bool stop_at_operand,
		      CtlOptionsGiven *given, int *ret_index);

/* Refuses an option given with a verb it does not go with ("--user goes
 * with check only."), rather than ignoring what the user asked for; and
 * --conf with the other policy file options. -1 to go on, or
 * CTL_EXIT_USAGE after saying so. */
int ctl_options_check(const Ctl *ctl, CtlOptionsGiven given, const char *verb);

/* The lines of --help's "Options:" part. */
void ctl_options_help(FILE *f);
