/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimectl reset PID[/TID]: realtimed's grant undone, the thread back to
 * what it ran with before it (ResetThread for one thread, ResetProcess for
 * every granted thread of a process). A thread realtimed did not grant is
 * left alone: the daemon answers NoSuchGrant.
 */
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "bus.h"
#include "ctl.h"
#include "macro.h"

int verb_reset(Ctl *ctl, int argc, char **argv)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	_cleanup_free_ char *what = NULL;
	dbus_uint64_t pid, tid;
	int r;

	if (argc != 1)
		return ctl_usage_error("usage: realtimectl reset PID[/TID]");
	if (args_parse_target(argv[0], &pid, &tid) < 0)
		return ctl_usage_error("invalid target '%s': give PID or PID/TID.", argv[0]);

	if (tid) {
		if (asprintf(&what, "reset thread %llu/%llu", (unsigned long long)pid,
			     (unsigned long long)tid) < 0)
			return ctl_oom();
		r = bus_call_once("ResetThread", what, false, NULL, &reply, DBUS_TYPE_UINT64, &pid,
				  DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INVALID);
	} else {
		if (asprintf(&what, "reset the threads of process %llu", (unsigned long long)pid) <
		    0)
			return ctl_oom();
		r = bus_call_once("ResetProcess", what, false, NULL, &reply, DBUS_TYPE_UINT64, &pid,
				  DBUS_TYPE_INVALID);
	}
	if (r > 0)
		return r;
	if (!ctl->json && ctl->legend)
		printf("Reset %s %s.\n", tid ? "thread" : "process", argv[0]);
	return CTL_EXIT_OK;
}
