/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client's subcommands, one file each (rt-client-ask.c, rt-client-hold.c,
 * rt-client-spin.c, rt-client-rounds.c): each takes main()'s arguments, argv[1] being its name,
 * and returns the exit status.
 */
#pragma once

int cmd_ask(int argc, char **argv);
int cmd_hold(int argc, char **argv);
int cmd_spin(int argc, char **argv);
int cmd_rounds(int argc, char **argv);
/* rt-client-burst.c */
int cmd_burst(int argc, char **argv);
int cmd_flood(int argc, char **argv);
/* rt-client-crowd.c */
int cmd_crowd(int argc, char **argv);
