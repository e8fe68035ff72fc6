/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl reload: makes realtimed re-read its policy files (Reload,
 * polkit action org.realtimed.manage; polkit may ask for a password). A
 * broken policy is refused by the daemon with the reason, and the last good
 * one stays in force. On a terminal, a polkit text agent runs meanwhile
 * (bus_call()).
 */
#include <stdio.h>

#include "bus.h"
#include "ctl.h"

int verb_reload(Ctl *ctl, int argc, char **argv)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	int r;

	if (argc > 0)
		return ctl_usage_error("reload takes no arguments.");
	r = bus_call_once("Reload", "reload realtimed's policy", true, NULL, &reply,
			  DBUS_TYPE_INVALID);
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
