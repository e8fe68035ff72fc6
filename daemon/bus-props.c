// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Properties shared by both interfaces, answered for the caller: what the
 * calling user's policy allows (a member of audio reads 95, not 20), so
 * PipeWire asks for its real priority instead of the default's. A caller
 * whose user is not known yet waits for the lookup (its message parked,
 * never the loop): a guess without its groups would be the default's. The native
 * interface also has Version, the running daemon's (realtimectl check tells
 * it from the installed package's: an upgrade not yet restarted).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-props.h"
#include "config.h"
#include "bus.h"
#include "log.h"
#include "manager.h"
#include "daemon-policy.h"

/* The three properties, evaluated for the calling user. */
typedef struct CallerProperties {
	int32_t max_realtime_priority;
	int32_t min_nice_level;
	int64_t rttime_usec_max;
} CallerProperties;

/* -EINPROGRESS: *ret_uid's user is not known yet (daemon-policy.h). */
static int bus_caller_properties(Daemon *d, DBusMessage *m, CallerProperties *ret, uid_t *ret_uid)
{
	PolicyEval e;
	const PolicyGrant *g = &e.grant;
	uid_t uid;
	pid_t pid;
	int r;

	r = bus_get_creds(d, m, &uid, &pid);
	if (r < 0)
		return r;
	*ret_uid = uid;
	r = daemon_policy_eval(d, uid, &e);
	if (r < 0)
		return r;
	*ret = (CallerProperties){
		.max_realtime_priority =
			g->set[POLICY_KEY_REALTIME_PRIORITY] ? g->realtime_priority : 0,
		.min_nice_level = g->set[POLICY_KEY_NICE] ? g->nice : 0,
		/* rtkit clients set RLIMIT_RTTIME to this; "no limit" is INT64_MAX. */
		.rttime_usec_max = !g->set[POLICY_KEY_RTTIME] || g->rttime_usec > INT64_MAX
					   ? INT64_MAX
					   : (int64_t)g->rttime_usec,
	};
	/* what a grant can get: the canary watchdog may cap it (realtimed(8)) */
	if (ret->max_realtime_priority > manager_canary_max_priority(d))
		ret->max_realtime_priority = manager_canary_max_priority(d);
	return 0;
}

static bool append_property(DBusMessageIter *it, const CallerProperties *p, const char *name,
			    bool dict)
{
	static const char *const version = PACKAGE_VERSION;
	int type;
	const void *v;

	if (streq(name, "Version")) {
		type = DBUS_TYPE_STRING;
		v = &version;
	} else if (streq(name, "MaxRealtimePriority")) {
		type = DBUS_TYPE_INT32;
		v = &p->max_realtime_priority;
	} else if (streq(name, "MinNiceLevel")) {
		type = DBUS_TYPE_INT32;
		v = &p->min_nice_level;
	} else if (streq(name, "RTTimeUSecMax")) {
		type = DBUS_TYPE_INT64;
		v = &p->rttime_usec_max;
	} else
		return false;
	return dict ? bus_append_dict_variant(it, name, type, v) : bus_append_variant(it, type, v);
}

/* RealtimeKit1's three, then the native interface's own */
static const char *const property_names[] = { "RTTimeUSecMax", "MaxRealtimePriority",
					      "MinNiceLevel", "Version" };

static size_t n_properties(BusFlavour f)
{
	return f == FLAVOUR_NATIVE ? ELEMENTSOF(property_names) : ELEMENTSOF(property_names) - 1;
}

/* A Get or GetAll that waits for the caller's user (resolver.h): the
 * message is parked, the loop goes on, and it is answered when the lookup
 * ends. */
typedef struct PropertiesWait {
	Daemon *d;
	DBusMessage *m;
	const char *iface; /* a constant */
	BusFlavour f;
} PropertiesWait;

static void properties_wait_free(void *userdata)
{
	PropertiesWait *w = userdata;

	dbus_message_unref(w->m);
	free(w);
}

static void on_properties_resolved(uid_t uid, int error, const PolicyUser *u, void *userdata)
{
	PropertiesWait *w = userdata;
	char text[256];

	if (error < 0 && error != -ESRCH)
		bus_reply_error(w->d->bus, w->m, DBUS_ERROR_FAILED,
				"Could not evaluate the policy for the caller: %s",
				daemon_resolve_error(uid, error, text, sizeof(text)));
	else
		(void)bus_properties_handle(w->d, w->d->bus, w->m, w->iface, w->f);
	properties_wait_free(w);
}

static void properties_park(Daemon *d, DBusMessage *m, uid_t uid, const char *iface, BusFlavour f)
{
	PropertiesWait *w = calloc(1, sizeof(*w));
	char text[256];
	int r = -ENOMEM;

	if (w) {
		*w = (PropertiesWait){ .d = d, .m = dbus_message_ref(m), .iface = iface, .f = f };
		r = daemon_policy_wait(d, uid, on_properties_resolved, w, properties_wait_free);
		if (r >= 0)
			return;
		properties_wait_free(w);
	}
	bus_reply_error(d->bus, m, DBUS_ERROR_FAILED,
			"Could not evaluate the policy for the caller: %s",
			daemon_resolve_error(uid, r, text, sizeof(text)));
}

DBusHandlerResult bus_properties_handle(Daemon *d, DBusConnection *c, DBusMessage *m,
					const char *iface, BusFlavour f)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	const char *in_iface = NULL, *name = NULL;
	CallerProperties p;
	uid_t uid = 0;
	DBusMessageIter it, arr;
	int r;

	if (dbus_message_is_method_call(m, DBUS_INTERFACE_PROPERTIES, "Set")) {
		if (bus_check_signature(c, m, "ssv"))
			bus_reply_error(c, m, DBUS_ERROR_PROPERTY_READ_ONLY,
					"The properties are read-only");
		return DBUS_HANDLER_RESULT_HANDLED;
	}
	if (dbus_message_is_method_call(m, DBUS_INTERFACE_PROPERTIES, "Get")) {
		if (!bus_check_signature(c, m, "ss"))
			return DBUS_HANDLER_RESULT_HANDLED;
		dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &in_iface, DBUS_TYPE_STRING, &name,
				      DBUS_TYPE_INVALID);
	} else if (dbus_message_is_method_call(m, DBUS_INTERFACE_PROPERTIES, "GetAll")) {
		if (!bus_check_signature(c, m, "s"))
			return DBUS_HANDLER_RESULT_HANDLED;
		dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &in_iface, DBUS_TYPE_INVALID);
	} else
		return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;

	if (!streq(in_iface, iface) && !(name == NULL && isempty(in_iface))) {
		bus_reply_error(c, m, DBUS_ERROR_UNKNOWN_INTERFACE, "Unknown interface %s",
				in_iface);
		return DBUS_HANDLER_RESULT_HANDLED;
	}
	r = bus_caller_properties(d, m, &p, &uid);
	if (r == -EINPROGRESS) {
		properties_park(d, m, uid, iface, f);
		return DBUS_HANDLER_RESULT_HANDLED;
	}
	if (r < 0) {
		bus_reply_error(c, m, DBUS_ERROR_FAILED,
				"Could not evaluate the policy for the caller: %s", strerror(-r));
		return DBUS_HANDLER_RESULT_HANDLED;
	}
	reply = dbus_message_new_method_return(m);
	if (!reply)
		return DBUS_HANDLER_RESULT_NEED_MEMORY;
	dbus_message_iter_init_append(reply, &it);
	if (name) {
		bool known = false;

		for (size_t i = 0; i < n_properties(f); i++)
			known = known || streq(name, property_names[i]);
		if (!known) {
			bus_reply_error(c, m, DBUS_ERROR_UNKNOWN_PROPERTY, "Unknown property %s",
					name);
			return DBUS_HANDLER_RESULT_HANDLED;
		}
		if (!append_property(&it, &p, name, false))
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
	} else {
		if (!dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &arr))
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
		for (size_t i = 0; i < n_properties(f); i++)
			if (!append_property(&arr, &p, property_names[i], true)) {
				dbus_message_iter_abandon_container(&it, &arr);
				return DBUS_HANDLER_RESULT_NEED_MEMORY;
			}
		if (!dbus_message_iter_close_container(&it, &arr))
			return DBUS_HANDLER_RESULT_NEED_MEMORY;
	}
	bus_send(c, reply);
	return DBUS_HANDLER_RESULT_HANDLED;
}
