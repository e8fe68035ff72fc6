// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The RealtimeKit 0.13 compatible interface, org.freedesktop.RealtimeKit1 at
 * /org/freedesktop/RealtimeKit1, served when RtkitCompat=yes: the same
 * methods, properties and error names as rtkit-daemon, so PipeWire,
 * PulseAudio and rtkit's own tools work unmodified. The grants go through
 * the same checks as the native ones (request.c); the scheduling policy
 * comes from CompatPolicy= (SCHED_RR unless policy allows fifo and says so).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "bus-props.h"
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
	" </interface>\n"
	" <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
	"  <method name=\"Introspect\">\n"
	"   <arg name=\"data\" type=\"s\" direction=\"out\"/>\n"
	"  </method>\n"
	" </interface>\n"
	"</node>\n";

/* rtkit's thread-only calls act on the caller's own process (bus credentials). */
static void method_make(Daemon *d, DBusConnection *c, DBusMessage *m, bool with_pid, bool realtime)
{
	uint64_t pid = 0, tid;
	uint32_t prio = 0;
	int32_t nice = 0;
	int value;

	if (realtime) {
		if (!bus_check_signature(c, m, with_pid ? "ttu" : "tu"))
			return;
		if (with_pid)
			dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64,
					      &tid, DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID);
		else
			dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_UINT32,
					      &prio, DBUS_TYPE_INVALID);
		value = prio > INT_MAX ? INT_MAX : (int)prio;
	} else {
		if (!bus_check_signature(c, m, with_pid ? "tti" : "ti"))
			return;
		if (with_pid)
			dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64,
					      &tid, DBUS_TYPE_INT32, &nice, DBUS_TYPE_INVALID);
		else
			dbus_message_get_args(m, NULL, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32,
					      &nice, DBUS_TYPE_INVALID);
		value = nice;
	}
	request_start(d, m,
		      &(RequestArgs){ .type = REQUEST_SCHED,
				      .flavour = FLAVOUR_RTKIT,
				      .kind = realtime ? GRANT_RR : GRANT_NICE,
				      .compat_rt = realtime,
				      .value = value,
				      .pid = pid,
				      .tid = tid });
}

/* Exit, ResetKnown and ResetAll: root only, as rtkit's bus policy says. */
static bool caller_is_root(Daemon *d, DBusConnection *c, DBusMessage *m)
{
	uid_t uid;
	pid_t pid;

	if (bus_get_creds(d, m, &uid, &pid) < 0 || uid != 0) {
		bus_reply_error(c, m,
				request_error_name(REQUEST_E_PERMISSION_DENIED, FLAVOUR_RTKIT),
				"Only root may call %s", dbus_message_get_member(m));
		return false;
	}
	return true;
}

static DBusHandlerResult rtkit_message(DBusConnection *c, DBusMessage *m, void *userdata)
{
	Daemon *d = userdata;

	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL)
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;

	if (dbus_message_is_method_call(m, RTKIT_IFACE, "MakeThreadRealtime"))
		method_make(d, c, m, false, true);
	else if (dbus_message_is_method_call(m, RTKIT_IFACE, "MakeThreadRealtimeWithPID"))
		method_make(d, c, m, true, true);
	else if (dbus_message_is_method_call(m, RTKIT_IFACE, "MakeThreadHighPriority"))
		method_make(d, c, m, false, false);
	else if (dbus_message_is_method_call(m, RTKIT_IFACE, "MakeThreadHighPriorityWithPID"))
		method_make(d, c, m, true, false);
	else if (dbus_message_is_method_call(m, RTKIT_IFACE, "ResetKnown") ||
		 dbus_message_is_method_call(m, RTKIT_IFACE, "ResetAll")) {
		/* ResetAll demotes what realtimed granted too: it supervises nothing else. */
		if (bus_check_signature(c, m, "") && caller_is_root(d, c, m)) {
			manager_reset_grants(d, 0, 0);
			bus_reply_empty(c, m);
		}
	} else if (dbus_message_is_method_call(m, RTKIT_IFACE, "Exit")) {
		if (bus_check_signature(c, m, "") && caller_is_root(d, c, m)) {
			bus_reply_empty(c, m);
			log_info("Exit requested over the bus; grants stay and are adopted on "
				 "restart");
			sd_event_exit(d->event, 0);
		}
	} else if (dbus_message_has_interface(m, DBUS_INTERFACE_PROPERTIES))
		return bus_properties_handle(d, c, m, RTKIT_IFACE, FLAVOUR_RTKIT);
	else if (dbus_message_is_method_call(m, DBUS_INTERFACE_INTROSPECTABLE, "Introspect")) {
		_cleanup_msg_ DBusMessage *reply = dbus_message_new_method_return(m);
		DBusMessageIter it;

		if (!reply)
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
		dbus_message_iter_init_append(reply, &it);
		if (!bus_append_text(&it, rtkit_introspection_xml))
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
		bus_send(c, reply);
	} else
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
	return DBUS_HANDLER_RESULT_HANDLED;
}

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
		bus_unregister_object(d->bus, RTKIT_PATH);
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
	_cleanup_msg_ DBusMessage *m = NULL;
	DBusPendingCall *pending = NULL;
	uint32_t flags = DBUS_NAME_FLAG_DO_NOT_QUEUE;
	DBusMessageIter it;

	m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					 method);
	if (!m)
		return -ENOMEM;
	dbus_message_iter_init_append(m, &it);
	if (!bus_append_string(&it, RTKIT_NAME) ||
	    (streq(method, "RequestName") &&
	     !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags)))
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
	static const DBusObjectPathVTable vtable = { .message_function = rtkit_message };
	int r;

	if (serve == d->rtkit_served)
		return;
	if (!serve) {
		r = rtkit_name_call(d, "ReleaseName", on_release_name, NULL);
		if (r < 0)
			log_warning_errno(r, "Failed to give up %s: %m", RTKIT_NAME);
		bus_unregister_object(d->bus, RTKIT_PATH);
		d->rtkit_request = 0;
		d->rtkit_served = false;
		return;
	}
	/* The object first, so that calls find it once the name is ours. */
	if (bus_register_object(d->bus, RTKIT_PATH, &vtable, d) < 0) {
		log_error("Out of memory serving %s", RTKIT_PATH);
		return;
	}
	r = rtkit_name_call(d, "RequestName", on_request_name, &d->rtkit_request);
	if (r < 0) {
		log_warning_errno(r, "Failed to ask for %s: %m; the rtkit interface is not served",
				  RTKIT_NAME);
		bus_unregister_object(d->bus, RTKIT_PATH);
		return;
	}
	d->rtkit_served = true;
}
