// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The RealtimeKit 0.13 interface (RtkitCompat=yes): rtkit-daemon's methods,
 * properties and error names; its grants go through the native checks.
 */
#include <limits.h>
#include <string.h>

#include "bus-dispatch.h"
#include "bus-rtkit.h"
#include "bus.h"
#include "demote.h"
#include "log.h"
#include "request.h"
#include "rtkit-name.h"

extern const char rtkit_introspection_xml[];

/* MakeThread{Realtime,HighPriority}[WithPID]: ([t process,] t thread, u
 * priority or i nice); without a pid, the caller's own process. */
static void method_make(Daemon *d, DBusMessage *m, const BusObject *o)
{
	const char *sig = dbus_message_get_signature(m);
	bool with_pid = strlen(sig) == 3, realtime = sig[strlen(sig) - 1] == 'u';
	uint64_t pid = 0, tid;
	uint32_t prio = 0;
	int32_t nice = 0;
	DBusMessageIter it;

	dbus_message_iter_init(m, &it);
	if (with_pid) {
		dbus_message_iter_get_basic(&it, &pid);
		dbus_message_iter_next(&it);
	}
	dbus_message_iter_get_basic(&it, &tid);
	dbus_message_iter_next(&it);
	dbus_message_iter_get_basic(&it, realtime ? (void *)&prio : (void *)&nice);
	bus_request_start(
		d, m, o,
		&(RequestArgs){ .type = REQUEST_SCHED,
				.flavour = FLAVOUR_RTKIT,
				.kind = realtime ? POLICY_GRANT_RR : POLICY_GRANT_NICE,
				.compat_rt = realtime,
				.value = realtime ? (prio > INT_MAX ? INT_MAX : (int)prio) : nice,
				.pid = pid,
				.tid = tid });
}

/* ResetKnown and ResetAll: realtimed supervises only what it granted. */
static void method_reset(Daemon *d, DBusMessage *m, const BusObject *o)
{
	demote_reset(d, 0, 0);
	bus_reply_empty(d->bus, m);
}

static void method_exit(Daemon *d, DBusMessage *m, const BusObject *o)
{
	bus_reply_empty(d->bus, m);
	log_info("Exit requested over the bus; grants stay and are adopted on restart");
	sd_event_exit(d->event, 0);
}

/* root's as in rtkit's bus policy */
static const BusMethod rtkit_methods[] = {
	{ "MakeThreadRealtime", "tu", BUS_CALLER_ANYONE, NULL, method_make, true },
	{ "MakeThreadRealtimeWithPID", "ttu", BUS_CALLER_ANYONE, NULL, method_make, true },
	{ "MakeThreadHighPriority", "ti", BUS_CALLER_ANYONE, NULL, method_make, true },
	{ "MakeThreadHighPriorityWithPID", "tti", BUS_CALLER_ANYONE, NULL, method_make, true },
	{ "ResetKnown", "", BUS_CALLER_ROOT, NULL, method_reset },
	{ "ResetAll", "", BUS_CALLER_ROOT, NULL, method_reset },
	{ "Exit", "", BUS_CALLER_ROOT, NULL, method_exit },
};

const BusObject bus_rtkit_object =
	BUS_OBJECT(RTKIT_PATH, RTKIT_IFACE, FLAVOUR_RTKIT, rtkit_methods, rtkit_introspection_xml);

static DBusHandlerResult rtkit_message(DBusConnection *c, DBusMessage *m, void *userdata)
{
	return bus_dispatch(userdata, &bus_rtkit_object, m);
}

void bus_rtkit_serve(Daemon *d, bool serve)
{
	static const DBusObjectPathVTable vtable = { .message_function = rtkit_message };
	int r;

	if (!d->rtkit) {
		if (!serve)
			return;
		r = rtkit_name_new(d->bus, &vtable, d, &d->rtkit);
		if (r < 0) {
			log_error_errno(r, "Failed to serve %s: %m", RTKIT_PATH);
			return;
		}
	}
	rtkit_name_serve(d->rtkit, serve);
}
