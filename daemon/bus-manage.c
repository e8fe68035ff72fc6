// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Calls that only an administrator may make: Reload, ListAllGrants, and
 * Explain of another user's policy. Root may; anyone else needs polkit's
 * org.realtimed.manage (auth_admin_keep), asked asynchronously so that
 * other clients are served meanwhile, and with user interaction when the
 * caller allowed it (realtimectl does, and runs a text agent on a terminal).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-manage.h"
#include "bus.h"
#include "polkit.h"
#include "proc.h"
#include "request.h"

#define MANAGE_ACTION "org.realtimed.manage"

typedef struct ManageCall {
	Daemon *d;
	DBusMessage *m;
	uid_t uid;
	const char *what;
	bus_manage_fn run;
} ManageCall;

static void manage_call_free(void *p)
{
	ManageCall *mc = p;

	dbus_message_unref(mc->m);
	free(mc);
}

static void manage_refuse(Daemon *d, DBusMessage *m, const char *what, uid_t uid, int r)
{
	if (r == 0)
		bus_reply_error(d->bus, m,
				request_error_name(REQUEST_E_PERMISSION_DENIED, FLAVOUR_NATIVE),
				"%s needs root or polkit's " MANAGE_ACTION
				", which polkit did not grant to uid %u",
				what, (unsigned)uid);
	else
		bus_reply_error(d->bus, m,
				request_error_name(REQUEST_E_PERMISSION_DENIED, FLAVOUR_NATIVE),
				"%s needs root or polkit's " MANAGE_ACTION
				", and polkit could not be asked: %s",
				what, r == -EBUSY ? "too many checks are pending" : strerror(-r));
}

static void on_manage_polkit(int r, void *userdata)
{
	ManageCall *mc = userdata;

	if (r > 0)
		mc->run(mc->d, mc->m);
	else
		manage_refuse(mc->d, mc->m, mc->what, mc->uid, r);
	manage_call_free(mc);
}

void bus_authorize_manage(Daemon *d, DBusMessage *m, const char *what, bus_manage_fn run)
{
	ManageCall *mc;
	uint64_t start;
	uid_t uid;
	pid_t pid;
	int r;

	r = bus_get_creds(d, m, &uid, &pid);
	if (r < 0) {
		bus_reply_error(d->bus, m, request_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
				"Could not get the caller's credentials: %s", strerror(-r));
		return;
	}
	if (uid == 0) {
		run(d, m);
		return;
	}
	if (procfs_start_time(d->grants->proc, pid, 0, &start) < 0) {
		bus_reply_error(d->bus, m,
				request_error_name(REQUEST_E_NO_SUCH_PROCESS, FLAVOUR_NATIVE),
				"The calling process %d is gone", (int)pid);
		return;
	}
	mc = calloc(1, sizeof(*mc));
	if (!mc) {
		bus_reply_error(d->bus, m, request_error_name(REQUEST_E_NO_MEMORY, FLAVOUR_NATIVE),
				"Out of memory");
		return;
	}
	*mc = (ManageCall){
		.d = d, .m = dbus_message_ref(m), .uid = uid, .what = what, .run = run
	};
	r = polkit_check_full(d->polkit, MANAGE_ACTION, pid, start, uid,
			      dbus_message_get_allow_interactive_authorization(m), on_manage_polkit,
			      mc, manage_call_free);
	if (r == 0)
		return; /* on_manage_polkit() carries on */
	if (r > 0)
		run(d, m);
	else
		manage_refuse(d, m, what, uid, r);
	manage_call_free(mc);
}
