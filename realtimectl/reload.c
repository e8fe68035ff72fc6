/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl reload: makes realtimed re-read its policy files (Reload,
 * polkit action org.realtimed.manage; polkit may ask for a password). A
 * broken policy is refused by the daemon with the reason, and the last good
 * one stays in force. On a terminal, a polkit text agent runs meanwhile.
 */
#include <stdio.h>

#include "bus.h"
#include "ctl.h"
#include "polkit-agent.h"

int verb_reload(Ctl *ctl, int argc, char **argv)
{
	_cleanup_bus_connection_ DBusConnection *c = NULL;
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	pid_t agent;
	int r;

	if (argc > 0)
		return ctl_usage_error("reload takes no arguments.");
	r = bus_open(&c);
	if (r > 0)
		return r;
	/* polkit may ask for an administrator's password: on a terminal, let it. */
	if (polkit_agent_open(&agent) < 0)
		agent = 0; /* the refusal, if any, says what to do */
	r = bus_call(c, "Reload", "reload realtimed's policy", true, &reply, DBUS_TYPE_INVALID);
	polkit_agent_close(agent);
	if (r > 0) {
		if (r == CTL_EXIT_FAILED)
			fprintf(stderr, "The policy in force is unchanged; check the files with "
					"'realtimectl policy check'.\n");
		return r;
	}
	if (!ctl->json && ctl->legend)
		printf("realtimed reloaded its policy.\n");
	return CTL_EXIT_OK;
}
