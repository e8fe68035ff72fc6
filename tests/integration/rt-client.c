/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt-client: a small libdbus client of realtimed for the integration tests
 * and scripts/demo. Its subcommands, one file each, say at their top what
 * they do:
 *
 *   rt-client ask   (rt-client-ask.c): a JACK-like client that asks the
 *                   daemon to make its audio thread realtime and checks
 *                   what the kernel then shows;
 *   rt-client hold  (rt-client-hold.c): sleeping threads, perhaps of other
 *                   users, for a test to aim the daemon at;
 *   rt-client spin  (rt-client-spin.c): the runaway that the VM tier makes
 *                   realtime to trigger the canary;
 *   rt-client rounds (rt-client-rounds.c): timed Ping and grant round
 *                   trips, for the tests that nothing stalls realtimed;
 *   rt-client crowd (rt-client-crowd.c): many uids asking once each, from
 *                   a pid namespace, for the test that a crowd takes no
 *                   one's place.
 */
#include <stdio.h>

#include "macro.h"
#include "rt-client.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "ask", cmd_ask },	  { "hold", cmd_hold },	  { "spin", cmd_spin },
	{ "rounds", cmd_rounds }, { "burst", cmd_burst }, { "flood", cmd_flood },
	{ "crowd", cmd_crowd },
};

int main(int argc, char **argv)
{
	for (size_t i = 0; argc >= 2 && i < ELEMENTSOF(commands); i++)
		if (streq(argv[1], commands[i].name))
			return commands[i].run(argc, argv);
	fprintf(stderr, "usage: rt-client ask [--rtkit] [--policy fifo|rr] [--prio N] [--nice N] "
			"[--hold SEC] [--lower N] [--name HEX]\n"
			"       rt-client hold NTHREADS [--uids R:E:S] [--main-uids R:E:S]\n"
			"       rt-client spin SECS [DELAY_MS] [--go FILE] [--self-fifo PRIO] "
			"[--repromote MS]\n"
			"       rt-client rounds N [--prio P]\n"
			"       rt-client crowd FIRST_UID N [--jobs J]\n");
	return 2;
}
