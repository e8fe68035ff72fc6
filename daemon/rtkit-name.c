// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>

#include "bus-dispatch.h"
#include "bus-names.h"
#include "bus.h"
#include "log.h"
#include "rtkit-name.h"

struct RtkitName {
	DBusConnection *bus;
	const DBusObjectPathVTable *vtable;
	void *object;
	bool served;	  /* the object is registered, its name owned or asked for */
	uint32_t request; /* the RequestName whose answer is awaited, or 0 */
};

int rtkit_name_new(DBusConnection *bus, const DBusObjectPathVTable *vtable, void *object,
		   RtkitName **ret)
{
	RtkitName *n = calloc(1, sizeof(*n));

	if (!n)
		return -ENOMEM;
	*n = (RtkitName){ .bus = bus, .vtable = vtable, .object = object };
	*ret = n;
	return 0;
}

RtkitName *rtkit_name_free(RtkitName *n)
{
	free(n);
	return NULL;
}

/* Only the answer to the latest RequestName counts. */
static void on_request_name(DBusPendingCall *pending, void *userdata)
{
	_cleanup_msg_ DBusMessage *reply = dbus_pending_call_steal_reply(pending);
	RtkitName *n = userdata;
	DBusError error;
	uint32_t r = 0;

	if (!reply || dbus_message_get_reply_serial(reply) != n->request)
		return;
	n->request = 0;
	dbus_error_init(&error);
	if (dbus_set_error_from_message(&error, reply) ||
	    !dbus_message_get_args(reply, &error, DBUS_TYPE_UINT32, &r, DBUS_TYPE_INVALID) ||
	    (r != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER &&
	     r != DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER)) {
		log_warning("Could not own %s (%s); is rtkit-daemon running? The rtkit interface "
			    "is not served",
			    RTKIT_NAME, dbus_error_is_set(&error) ? error.message : "name taken");
		dbus_error_free(&error);
		bus_remove_path(n->bus, RTKIT_PATH);
		n->served = false;
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

/* RequestName or ReleaseName, answered to notify. The bus daemon handles a
 * connection's calls in order: a release after a request leaves it released. */
static int rtkit_name_call(RtkitName *n, const char *method, DBusPendingCallNotifyFunction notify,
			   uint32_t *ret_serial)
{
	_cleanup_msg_ DBusMessage *m = bus_driver_call_new(method, RTKIT_NAME);
	DBusPendingCall *pending = NULL;
	uint32_t flags = DBUS_NAME_FLAG_DO_NOT_QUEUE;
	DBusMessageIter it;

	if (!m)
		return -ENOMEM;
	dbus_message_iter_init_append(m, &it);
	if (streq(method, "RequestName") &&
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags))
		return -ENOMEM;
	if (!dbus_connection_send_with_reply(n->bus, m, &pending, DBUS_TIMEOUT_USE_DEFAULT))
		return -ENOMEM;
	if (!pending)
		return -ENOTCONN;
	if (!dbus_pending_call_set_notify(pending, notify, n, NULL)) {
		dbus_pending_call_cancel(pending);
		dbus_pending_call_unref(pending);
		return -ENOMEM;
	}
	dbus_pending_call_unref(pending);
	if (ret_serial)
		*ret_serial = dbus_message_get_serial(m);
	return 0;
}

void rtkit_name_serve(RtkitName *n, bool serve)
{
	int r;

	if (serve == n->served)
		return;
	if (!serve) {
		r = rtkit_name_call(n, "ReleaseName", on_release_name, NULL);
		if (r < 0)
			log_warning_errno(r, "Failed to give up %s: %m", RTKIT_NAME);
		bus_remove_path(n->bus, RTKIT_PATH);
		n->request = 0;
		n->served = false;
		return;
	}
	/* The object first, so that calls find it once the name is ours. */
	if (bus_add_path(n->bus, RTKIT_PATH, n->vtable, n->object) < 0) {
		log_error("Out of memory serving %s", RTKIT_PATH);
		return;
	}
	r = rtkit_name_call(n, "RequestName", on_request_name, &n->request);
	if (r < 0) {
		log_warning_errno(r, "Failed to ask for %s: %m; the rtkit interface is not served",
				  RTKIT_NAME);
		bus_remove_path(n->bus, RTKIT_PATH);
		return;
	}
	n->served = true;
}
