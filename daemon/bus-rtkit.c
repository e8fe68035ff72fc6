// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The RealtimeKit 0.13 compatible interface, org.freedesktop.RealtimeKit1 at
 * /org/freedesktop/RealtimeKit1, served when RtkitCompat=yes: the same
 * methods, properties and error names as rtkit-daemon, so PipeWire,
 * PulseAudio and rtkit's own tools work unmodified. The grants go through
 * the same checks as the native ones (request.c); the scheduling policy
 * comes from CompatPolicy= (SCHED_RR unless policy allows fifo and says so).
 * Its methods are a table (bus-dispatch.h); an unknown one gets
 * UnknownMethod, as on the native object.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "bus-dispatch.h"
#include "bus-rtkit.h"
#include "bus.h"
#include "log.h"
#include "manager.h"

static const char rtkit_introspection_xml[] = DBUS_INTROSPECT_1_0_XML_DOCTYPE_DECL_NODE
	"<node>\n"
	" <interface name=\"org.freedesktop.RealtimeKit1\">\n"
	"  <method name=\"MakeThreadRealtime\">\n"
	"   <arg name=\"thread\" type=\"t\" direction=\"in\"/>\n"
	"   <arg name=\"priority\" type=\"u\" direction=\"in\"/>\n"
	"  </method>\n"
	"  <method name=\"MakeThreadRealtimeWithPID\">\n"
	"   <arg name=\"process\" type=\"t\" direction=\"in\"/>\n"
	"   <arg name=\"thread\" type=\"t\" direction=\"in\"/>\n"
	"   <arg name=\"priority\" type=\"u\" direction=\"in\"/>\n"
	"  </method>\n"
	"  <method name=\"MakeThreadHighPriority\">\n"
	"   <arg name=\"thread\" type=\"t\" direction=\"in\"/>\n"
	"   <arg name=\"priority\" type=\"i\" direction=\"in\"/>\n"
	"  </method>\n"
	"  <method name=\"MakeThreadHighPriorityWithPID\">\n"
	"   <arg name=\"process\" type=\"t\" direction=\"in\"/>\n"
	"   <arg name=\"thread\" type=\"t\" direction=\"in\"/>\n"
	"   <arg name=\"priority\" type=\"i\" direction=\"in\"/>\n"
	"  </method>\n"
	"  <method name=\"ResetKnown\"/>\n"
	"  <method name=\"ResetAll\"/>\n"
	"  <method name=\"Exit\"/>\n"
	"  <property name=\"RTTimeUSecMax\" type=\"x\" access=\"read\"/>\n"
	"  <property name=\"MaxRealtimePriority\" type=\"i\" access=\"read\"/>\n"
	"  <property name=\"MinNiceLevel\" type=\"i\" access=\"read\"/>\n"
	" </interface>\n"
	" <interface name=\"org.freedesktop.DBus.Properties\">\n"
	"  <method name=\"Get\">\n"
	"   <arg name=\"interface\" direction=\"in\" type=\"s\"/>\n"
	"   <arg name=\"property\" direction=\"in\" type=\"s\"/>\n"
	"   <arg name=\"value\" direction=\"out\" type=\"v\"/>\n"
	"  </method>\n"
	"  <method name=\"GetAll\">\n"
	"   <arg name=\"interface\" direction=\"in\" type=\"s\"/>\n"
	"   <arg name=\"properties\" direction=\"out\" type=\"a{sv}\"/>\n"
	"  </method>\n"
	"  <method name=\"Set\">\n"
	"   <arg name=\"interface\" direction=\"in\" type=\"s\"/>\n"
	"   <arg name=\"property\" direction=\"in\" type=\"s\"/>\n"
	"   <arg name=\"value\" direction=\"in\" type=\"v\"/>\n"
	"  </method>\n"
	" </interface>\n"
	" <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
	"  <method name=\"Introspect\">\n"
	"   <arg name=\"data\" type=\"s\" direction=\"out\"/>\n"
	"  </method>\n"
	" </interface>\n"
	"</node>\n";

/* MakeThreadRealtime[WithPID] ([t process,] t thread, u priority) and
 * MakeThreadHighPriority[WithPID] ([t process,] t thread, i nice): the
 * thread-only calls act on the caller's own process (bus credentials). */
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
	request_start(
		d, m,
		&(RequestArgs){ .type = REQUEST_SCHED,
				.flavour = FLAVOUR_RTKIT,
				.kind = realtime ? GRANT_RR : GRANT_NICE,
				.compat_rt = realtime,
				.value = realtime ? (prio > INT_MAX ? INT_MAX : (int)prio) : nice,
				.pid = pid,
				.tid = tid });
}

/* ResetKnown and ResetAll: ResetAll demotes what realtimed granted too: it
 * supervises nothing else. */
static void method_reset(Daemon *d, DBusMessage *m, const BusObject *o)
{
	manager_reset_grants(d, 0, 0);
	bus_reply_empty(d->bus, m);
}

static void method_exit(Daemon *d, DBusMessage *m, const BusObject *o)
{
	bus_reply_empty(d->bus, m);
	log_info("Exit requested over the bus; grants stay and are adopted on restart");
	sd_event_exit(d->event, 0);
}

/* rtkit 0.13's methods; Exit, ResetKnown and ResetAll are root's, as
 * rtkit's bus policy says. */
static const BusMethod rtkit_methods[] = {
	{ "MakeThreadRealtime", "tu", BUS_CALLER_ANYONE, NULL, method_make },
	{ "MakeThreadRealtimeWithPID", "ttu", BUS_CALLER_ANYONE, NULL, method_make },
	{ "MakeThreadHighPriority", "ti", BUS_CALLER_ANYONE, NULL, method_make },
	{ "MakeThreadHighPriorityWithPID", "tti", BUS_CALLER_ANYONE, NULL, method_make },
	{ "ResetKnown", "", BUS_CALLER_ROOT, NULL, method_reset },
	{ "ResetAll", "", BUS_CALLER_ROOT, NULL, method_reset },
	{ "Exit", "", BUS_CALLER_ROOT, NULL, method_exit },
};

const BusObject bus_rtkit_object =
	BUS_OBJECT(RTKIT_PATH, RTKIT_IFACE, FLAVOUR_RTKIT, rtkit_methods, rtkit_introspection_xml);

/* The answer to the latest RequestName: the rtkit interface is served, or
 * (the name is taken: rtkit-daemon runs) not. An answer to an earlier
 * request, given up or asked again since, counts for nothing. */
static void on_request_name(DBusPendingCall *pending, void *userdata)
{
	_cleanup_msg_ DBusMessage *reply = dbus_pending_call_steal_reply(pending);
	Daemon *d = userdata;
	DBusError error;
	uint32_t r = 0;

	if (!reply || dbus_message_get_reply_serial(reply) != d->rtkit_request)
		return;
	d->rtkit_request = 0;
	dbus_error_init(&error);
	if (dbus_set_error_from_message(&error, reply) ||
	    !dbus_message_get_args(reply, &error, DBUS_TYPE_UINT32, &r, DBUS_TYPE_INVALID) ||
	    (r != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER &&
	     r != DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER)) {
		log_warning("Could not own %s (%s); is rtkit-daemon running? The rtkit interface "
			    "is not served",
			    RTKIT_NAME, dbus_error_is_set(&error) ? error.message : "name taken");
		dbus_error_free(&error);
		dbus_connection_unregister_object_path(d->bus, RTKIT_PATH);
		d->rtkit_served = false;
		return;
	}
	log_info("Serving %s (RtkitCompat=yes)", RTKIT_NAME);
}

static void on_release_name(DBusPendingCall *pending, void *userdata)
{
	_cleanup_msg_ DBusMessage *reply = dbus_pending_call_steal_reply(pending);
	DBusError error;

	dbus_error_init(&error);
	if (reply && dbus_set_error_from_message(&error, reply)) {
		log_warning("Failed to give up %s: %s", RTKIT_NAME, error.message);
		dbus_error_free(&error);
		return;
	}
	log_info("No longer serving %s (RtkitCompat=no)", RTKIT_NAME);
}

/* Sends the bus daemon RequestName or ReleaseName for the rtkit name, and
 * returns at once: notify gets the answer in the event loop. The bus
 * daemon handles one connection's calls in order, so a release sent after
 * a request leaves the name released, whatever the answers. */
static int rtkit_name_call(Daemon *d, const char *method, DBusPendingCallNotifyFunction notify,
			   uint32_t *ret_serial)
{
	_cleanup_msg_ DBusMessage *m = bus_driver_call_new(method, RTKIT_NAME);
	DBusPendingCall *pending = NULL;
	uint32_t flags = DBUS_NAME_FLAG_DO_NOT_QUEUE;
	DBusMessageIter it;

	if (!m)
		return -ENOMEM;
	/* after the name: RequestName's flags */
	dbus_message_iter_init_append(m, &it);
	if (streq(method, "RequestName") &&
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags))
		return -ENOMEM;
	if (!dbus_connection_send_with_reply(d->bus, m, &pending, DBUS_TIMEOUT_USE_DEFAULT))
		return -ENOMEM;
	if (!pending)
		return -ENOTCONN;
	/* The connection keeps its own reference until the answer came. */
	if (!dbus_pending_call_set_notify(pending, notify, d, NULL)) {
		dbus_pending_call_cancel(pending);
		dbus_pending_call_unref(pending);
		return -ENOMEM;
	}
	dbus_pending_call_unref(pending);
	if (ret_serial)
		*ret_serial = dbus_message_get_serial(m);
	return 0;
}

void bus_rtkit_serve(Daemon *d, bool serve)
{
	int r;

	if (serve == d->rtkit_served)
		return;
	if (!serve) {
		r = rtkit_name_call(d, "ReleaseName", on_release_name, NULL);
		if (r < 0)
			log_warning_errno(r, "Failed to give up %s: %m", RTKIT_NAME);
		dbus_connection_unregister_object_path(d->bus, RTKIT_PATH);
		d->rtkit_request = 0;
		d->rtkit_served = false;
		return;
	}
	/* The object first, so that calls find it once the name is ours. */
	if (bus_object_register(d, &bus_rtkit_object) < 0) {
		log_error("Out of memory serving %s", RTKIT_PATH);
		return;
	}
	r = rtkit_name_call(d, "RequestName", on_request_name, &d->rtkit_request);
	if (r < 0) {
		log_warning_errno(r, "Failed to ask for %s: %m; the rtkit interface is not served",
				  RTKIT_NAME);
		dbus_connection_unregister_object_path(d->bus, RTKIT_PATH);
		return;
	}
	d->rtkit_served = true;
}
