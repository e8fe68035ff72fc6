// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Administrators' calls: root, or polkit's org.realtimed.manage, asked
 * asynchronously about the caller's unique name, not a pid (which may name
 * another process by now). They count against ActionsPerBurst=.
 */
#include <errno.h>
#include <string.h>

#include "bus-admin.h"
#include "bus-dispatch.h"
#include "bus.h"
#include "daemon-policy.h"
#include "polkit.h"
#include "request.h"
#include "users.h"

#define MANAGE_ACTION "org.realtimed.manage"

static void manage_refuse(Daemon *d, DBusMessage *m, const char *what, uid_t uid, int r)
{
	const char *perm = bus_error_name(REQUEST_E_PERMISSION_DENIED, FLAVOUR_NATIVE);
	const char *rate = bus_error_name(REQUEST_E_RATE_LIMITED, FLAVOUR_NATIVE);

	if (r == 0)
		bus_reply_error(d->bus, m, perm,
				"%s needs root or polkit's " MANAGE_ACTION
				", which polkit did not grant to uid %u",
				what, (unsigned)uid);
	else if (r == -EDQUOT)
		bus_reply_error(d->bus, m, rate,
				"%s needs polkit's " MANAGE_ACTION
				", and uid %u waits for %u such checks already; try again when "
				"they are answered",
				what, (unsigned)uid, POLKIT_MANAGE_PER_UID);
	else if (r == -EBUSY)
		bus_reply_error(d->bus, m, rate,
				"%s needs polkit's " MANAGE_ACTION
				", and too many checks are pending; try again later",
				what);
	else
		bus_reply_error(d->bus, m, perm,
				"%s needs root or polkit's " MANAGE_ACTION
				", and polkit could not be asked: %s",
				what, strerror(-r));
}

static void on_manage_polkit(int r, void *userdata)
{
	BusParkedCall *mc = userdata;

	if (r > 0)
		mc->method->run(mc->d, mc->m, mc->o);
	else
		manage_refuse(mc->d, mc->m, mc->method->what, mc->uid, r);
	bus_parked_call_free(mc);
}

void bus_authorize_manage(Daemon *d, DBusMessage *m, const BusObject *o, const BusMethod *method)
{
	const PolicyDaemon *pd = policy_daemon(d->policy);
	const char *sender = dbus_message_get_sender(m);
	uint64_t now = now_usec(CLOCK_MONOTONIC);
	BusParkedCall *mc;
	User *u;
	uid_t uid;
	int r;

	if (bus_get_caller_uid(d, m, &uid) < 0)
		return;
	if (uid == 0) {
		method->run(d, m, o);
		return;
	}
	u = users_get(d->users, uid, now);
	if (u && !user_count_action(u, pd->actions_per_burst, pd->burst_usec, now)) {
		bus_reply_error(d->bus, m, bus_error_name(REQUEST_E_RATE_LIMITED, FLAVOUR_NATIVE),
				"too many manage calls from uid %u: at most %u per %llu s "
				"(ActionsPerBurst=, BurstSec=)",
				(unsigned)uid, pd->actions_per_burst,
				(unsigned long long)(pd->burst_usec / 1000000));
		return;
	}
	mc = bus_parked_call_new(d, m, o, method, uid);
	if (!mc) {
		bus_reply_error(d->bus, m, bus_error_name(REQUEST_E_NO_MEMORY, FLAVOUR_NATIVE),
				"Out of memory");
		return;
	}
	r = polkit_check_bus_name(d->polkit, MANAGE_ACTION, sender ? sender : "", uid,
				  dbus_message_get_allow_interactive_authorization(m),
				  on_manage_polkit, mc, bus_parked_call_free);
	if (r == 0)
		return; /* on_manage_polkit() carries on */
	if (r == 1)
		method->run(d, m, o);
	else
		manage_refuse(d, m, method->what, uid, r == 2 ? 0 : r);
	bus_parked_call_free(mc);
}
