/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon-backed commands of a realtimectl built without libdbus: each
 * says so and what still works, instead of failing obscurely.
 */
#include <stdio.h>

#include "ctl.h"
#include "latency.h"

static int no_bus(const char *verb)
{
	fprintf(stderr,
		"realtimectl was built without D-Bus support, so '%s' cannot reach realtimed.\n"
		"Rebuild with libdbus-1-dev installed; 'policy check', 'explain --offline' and "
		"'irq --offline' work without it.\n",
		verb);
	return CTL_EXIT_UNREACHABLE;
}

int verb_status(Ctl *ctl, int argc, char **argv)
{
	return no_bus("status");
}

int verb_grant(Ctl *ctl, int argc, char **argv)
{
	return no_bus("grant");
}

int verb_reset(Ctl *ctl, int argc, char **argv)
{
	return no_bus("reset");
}

int verb_run(Ctl *ctl, int argc, char **argv)
{
	return no_bus("run");
}

int verb_reload(Ctl *ctl, int argc, char **argv)
{
	return no_bus("reload");
}

int lat_grant(LatRun *run)
{
	return lat_grant_self(run, "realtimectl was built without D-Bus support");
}
