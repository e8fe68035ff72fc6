// SPDX-License-Identifier: GPL-2.0-or-later
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-admin.h"
#include "bus-dispatch.h"
#include "bus-props.h"
#include "bus.h"
#include "creds.h"
#include "request.h"

const BusMethod *bus_method_find(const BusMethod *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (streq(table[i].name, name))
			return &table[i];
	return NULL;
}

/* Whether m's caller is root, or (self) the user its first argument names. */
static bool caller_is(Daemon *d, DBusMessage *m, bool self)
{
	uint32_t arg = 0;
	uid_t uid;
	pid_t pid;

	if (self)
		dbus_message_get_args(m, NULL, DBUS_TYPE_UINT32, &arg, DBUS_TYPE_INVALID);
	return bus_get_creds(d, m, &uid, &pid) >= 0 && uid == arg;
}

static void method_call(Daemon *d, const BusObject *o, const BusMethod *method, DBusMessage *m)
{
	if (!bus_check_signature(d->bus, m, method->signature))
		return;
	switch (method->caller) {
	case BUS_CALLER_ANYONE:
		method->run(d, m, o);
		return;
	case BUS_CALLER_ROOT:
		if (caller_is(d, m, false))
			method->run(d, m, o);
		else
			bus_reply_error(d->bus, m,
					bus_error_name(REQUEST_E_PERMISSION_DENIED, o->flavour),
					"Only root may call %s", method->name);
		return;
	case BUS_CALLER_SELF_OR_MANAGE:
		/* one's own policy is no secret; another user's is an admin's business */
		if (caller_is(d, m, true)) {
			method->run(d, m, o);
			return;
		}
		bus_authorize_manage(d, m, o, method);
		return;
	case BUS_CALLER_MANAGE:
		bus_authorize_manage(d, m, o, method);
		return;
	case _BUS_CALLER_MAX:
	case _BUS_CALLER_INVALID:
		break;
	}
	bus_reply_error(d->bus, m, DBUS_ERROR_FAILED, "%s has no caller rule", method->name);
}

static DBusHandlerResult introspect(Daemon *d, const BusObject *o, DBusMessage *m)
{
	_cleanup_msg_ DBusMessage *reply = dbus_message_new_method_return(m);
	DBusMessageIter it;

	if (!reply)
		return DBUS_HANDLER_RESULT_NEED_MEMORY;
	dbus_message_iter_init_append(reply, &it);
	if (!bus_append_text(&it, o->introspection_xml))
		return DBUS_HANDLER_RESULT_NEED_MEMORY;
	bus_send(d->bus, reply);
	return DBUS_HANDLER_RESULT_HANDLED;
}

DBusHandlerResult bus_dispatch(Daemon *d, const BusObject *o, DBusMessage *m)
{
	const char *iface = dbus_message_get_interface(m), *member = dbus_message_get_member(m);
	/* a call without interface may name any; the object's own come first */
	bool own = !iface || streq(iface, o->iface);
	const BusMethod *method = NULL;

	if (dbus_message_get_type(m) != DBUS_MESSAGE_TYPE_METHOD_CALL || !member)
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
	if (own)
		method = bus_method_find(o->methods, o->n_methods, member);
	else if (streq(iface, DBUS_INTERFACE_PROPERTIES))
		method = bus_method_find(bus_properties_methods, bus_properties_n_methods, member);
	if (method) {
		method_call(d, o, method, m);
		return DBUS_HANDLER_RESULT_HANDLED;
	}
	if (streq(member, "Introspect") && (!iface || streq(iface, DBUS_INTERFACE_INTROSPECTABLE)))
		return introspect(d, o, m);
	if (!own)
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
	bus_reply_error(d->bus, m, DBUS_ERROR_UNKNOWN_METHOD,
			"Unknown method %s or wrong interface", member);
	return DBUS_HANDLER_RESULT_HANDLED;
}

/* NoMemory is the bus's own error in both flavours. */
#define NATIVE_ERROR_NAME(code, word, ...) [REQUEST_E_##code] = NATIVE_ERROR word,
#define RTKIT_ERROR_NAME(code, word, rtkit, ...) [REQUEST_E_##code] = rtkit,
#define ONE(...) +1
static_assert(0 NATIVE_ERRORS(ONE) == _REQUEST_E_MAX - 2,
	      "each RequestError but NoMemory is one of NATIVE_ERRORS");

/* clang-format off */
static const char *const native_errors[_REQUEST_E_MAX] = {
	NATIVE_ERRORS(NATIVE_ERROR_NAME)
	[REQUEST_E_NO_MEMORY] = DBUS_ERROR_NO_MEMORY,
};

static const char *const rtkit_errors[_REQUEST_E_MAX] = {
	NATIVE_ERRORS(RTKIT_ERROR_NAME)
	[REQUEST_E_NO_MEMORY] = DBUS_ERROR_NO_MEMORY,
};
/* clang-format on */

const char *bus_error_name(int code, BusFlavour f)
{
	if (code <= _REQUEST_E_SUCCESS || code >= _REQUEST_E_MAX)
		code = REQUEST_E_FAILED;
	return f == FLAVOUR_RTKIT ? rtkit_errors[code] : native_errors[code];
}

void bus_answer(Daemon *d, DBusMessage *m, BusFlavour flavour, int code, const char *why,
		DBusMessage *reply)
{
	if (code != 0)
		bus_reply_error(d->bus, m, bus_error_name(code, flavour), "%s", why);
	else if (reply)
		bus_send(d->bus, reply);
	else
		bus_reply_empty(d->bus, m);
}

void bus_request_start(Daemon *d, DBusMessage *m, const BusObject *o, RequestArgs *args)
{
	int r;

	r = bus_get_creds(d, m, &args->uid, &args->caller_pid);
	if (r < 0) {
		bus_reply_error(d->bus, m, bus_error_name(r, o->flavour),
				"could not get the caller's credentials from the bus: %s",
				strerror(-r));
		return;
	}
	args->flavour = o->flavour;
	request_start(d, m, args);
}

int bus_get_caller_uid(Daemon *d, DBusMessage *m, uid_t *ret_uid)
{
	pid_t pid;
	int r = bus_get_creds(d, m, ret_uid, &pid);

	if (r < 0)
		bus_reply_error(d->bus, m, bus_error_name(REQUEST_E_FAILED, FLAVOUR_NATIVE),
				"Could not get the caller's credentials: %s", strerror(-r));
	return r;
}

typedef struct BusBinding {
	Daemon *d;
	const BusObject *o;
} BusBinding;

static DBusHandlerResult object_message(DBusConnection *c, DBusMessage *m, void *userdata)
{
	BusBinding *b = userdata;

	return bus_dispatch(b->d, b->o, m);
}

static void object_unregistered(DBusConnection *c, void *userdata)
{
	free(userdata);
}

bool bus_object_counts(const BusObject *o, DBusMessage *m)
{
	const char *member = dbus_message_get_member(m), *iface = dbus_message_get_interface(m);
	const BusMethod *method;

	if (!member || !dbus_message_has_path(m, o->path) || (iface && !streq(iface, o->iface)))
		return false;
	method = bus_method_find(o->methods, o->n_methods, member);
	return method && method->counted;
}

int bus_object_register(Daemon *d, const BusObject *o)
{
	static const DBusObjectPathVTable vtable = { .unregister_function = object_unregistered,
						     .message_function = object_message };
	BusBinding *b = malloc(sizeof(*b));
	int r;

	if (!b)
		return -ENOMEM;
	*b = (BusBinding){ .d = d, .o = o };
	r = bus_add_path(d->bus, o->path, &vtable, b);
	if (r < 0)
		free(b);
	return r;
}

BusParkedCall *bus_parked_call_new(Daemon *d, DBusMessage *m, const BusObject *o,
				   const BusMethod *method, uid_t uid)
{
	BusParkedCall *p = calloc(1, sizeof(*p));

	if (p)
		*p = (BusParkedCall){
			.d = d, .m = dbus_message_ref(m), .o = o, .method = method, .uid = uid
		};
	return p;
}

void bus_parked_call_free(void *p)
{
	BusParkedCall *call = p;

	if (!call)
		return;
	dbus_message_unref(call->m);
	free(call);
}

bool bus_reply_open_array(Daemon *d, DBusMessage *m, const char *sig, DBusMessage **ret_reply,
			  DBusMessageIter *ret_it, DBusMessageIter *ret_arr)
{
	DBusMessage *reply = dbus_message_new_method_return(m);

	if (reply) {
		dbus_message_iter_init_append(reply, ret_it);
		if (dbus_message_iter_open_container(ret_it, DBUS_TYPE_ARRAY, sig, ret_arr)) {
			*ret_reply = reply;
			return true;
		}
		dbus_message_unref(reply);
	}
	bus_reply_error(d->bus, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
	return false;
}

void bus_reply_close_array(Daemon *d, DBusMessage *m, DBusMessage *reply, DBusMessageIter *it,
			   DBusMessageIter *arr, bool built)
{
	if (built && dbus_message_iter_close_container(it, arr))
		bus_send(d->bus, reply);
	else
		bus_reply_error(d->bus, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
	dbus_message_unref(reply);
}

DBusMessage *bus_driver_call_new(const char *method, const char *arg)
{
	DBusMessage *m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS,
						      DBUS_INTERFACE_DBUS, method);
	DBusMessageIter it;

	if (m) {
		dbus_message_iter_init_append(m, &it);
		if (bus_append_string(&it, arg))
			return m;
		dbus_message_unref(m);
	}
	return NULL;
}
