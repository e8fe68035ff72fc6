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
#include "rtkit-name.h"

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
