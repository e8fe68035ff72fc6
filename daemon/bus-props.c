// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Properties shared by both interfaces, answered for the caller: what the
 * calling user's policy allows (a member of audio reads 95, not 20), so
 * PipeWire asks for its real priority instead of the default's. A caller
 * whose user is not known yet waits for the lookup (its message parked,
 * never the loop: user-wait.h): a guess without its groups would be the
 * default's. The native interface also has Version, the running daemon's
 * (realtimectl check tells it from the installed package's: an upgrade not
 * yet restarted), and CpuDmaLatency, whether realtimed holds the CPUs
 * awake (cpu-dma.h; realtimectl status and check show it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-props.h"
#include "bus.h"
#include "config.h"
#include "cpu-dma.h"
#include "creds.h"
#include "daemon-policy.h"
#include "log.h"
#include "request-sched.h"
#include "user-wait.h"

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
	if (ret->max_realtime_priority > supervise_max_priority(d))
		ret->max_realtime_priority = supervise_max_priority(d);
	return 0;
}

/* CpuDmaLatency (sxus): the state ("unset", "released", "held", "failed"),
 * the microseconds held or to hold (-1: unset), the realtime grants it is
 * held for, and the last failure to take hold ("" since a success). The
 * same for every caller. */
static bool append_cpu_dma(DBusMessageIter *it, Daemon *d)
{
	CpuDmaStatus st = { .state = CPU_DMA_UNSET, .usec = POLICY_INFINITY };
	const char *state;
	dbus_int64_t usec;
	dbus_uint32_t grants = cpu_dma_n_grants(d);
	char error[256] = "";
	DBusMessageIter v, s;

	if (d->cpu_dma)
		cpu_dma_status(d->cpu_dma, &st);
	state = cpu_dma_state_to_string(st.state);
	usec = st.usec == POLICY_INFINITY ? -1 : (dbus_int64_t)st.usec;
	if (st.error)
		snprintf(error, sizeof(error), "%s: %s", st.path, strerror(-st.error));
	if (!dbus_message_iter_open_container(it, DBUS_TYPE_VARIANT, "(sxus)", &v))
		return false;
	if (!dbus_message_iter_open_container(&v, DBUS_TYPE_STRUCT, NULL, &s) ||
	    !bus_append_string(&s, state) ||
	    !dbus_message_iter_append_basic(&s, DBUS_TYPE_INT64, &usec) ||
	    !dbus_message_iter_append_basic(&s, DBUS_TYPE_UINT32, &grants) ||
	    !bus_append_string(&s, error) || !dbus_message_iter_close_container(&v, &s)) {
		dbus_message_iter_abandon_container(it, &v);
		return false;
	}
	return dbus_message_iter_close_container(it, &v);
}

static bool append_property(Daemon *d, DBusMessageIter *it, const CallerProperties *p,
			    const char *name, bool dict)
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
	} else if (streq(name, "CpuDmaLatency")) {
		DBusMessageIter e;

		if (!dict)
			return append_cpu_dma(it, d);
		if (!dbus_message_iter_open_container(it, DBUS_TYPE_DICT_ENTRY, NULL, &e))
			return false;
		if (!bus_append_string(&e, name) || !append_cpu_dma(&e, d)) {
			dbus_message_iter_abandon_container(it, &e);
			return false;
		}
		return dbus_message_iter_close_container(it, &e);
	} else
		return false;
	return dict ? bus_append_dict_variant(it, name, type, v) : bus_append_variant(it, type, v);
}

/* RealtimeKit1's three, then the native interface's own */
static const char *const property_names[] = { "RTTimeUSecMax", "MaxRealtimePriority",
					      "MinNiceLevel", "Version", "CpuDmaLatency" };
#define RTKIT_N_PROPERTIES 3

static void properties_get(Daemon *d, DBusMessage *m, const BusObject *o);

/* A Get or GetAll that waited for the caller's user (user-wait.h). */
static void on_properties_user(int error, uid_t uid, void *userdata)
{
	BusParkedCall *p = userdata;
	char text[256];

	if (error < 0)
		bus_reply_error(p->d->bus, p->m, DBUS_ERROR_FAILED,
				"Could not evaluate the policy for the caller: %s",
				daemon_resolve_error(uid, error, text, sizeof(text)));
	else
		properties_get(p->d, p->m, p->o);
	bus_parked_call_free(p);
}

static const UserWaitOps properties_wait = { .done = on_properties_user,
					     .free_userdata = bus_parked_call_free };

static void properties_park(Daemon *d, DBusMessage *m, const BusObject *o, uid_t uid)
{
	BusParkedCall *p = bus_parked_call_new(d, m, o, NULL, uid);
	char text[256];
	int r;

	r = p ? user_wait_one(d, uid, &properties_wait, p) : -ENOMEM;
	if (r >= 0)
		return;
	bus_parked_call_free(p);
	bus_reply_error(d->bus, m, DBUS_ERROR_FAILED,
			"Could not evaluate the policy for the caller: %s",
			daemon_resolve_error(uid, r, text, sizeof(text)));
}

/* Get (name) and GetAll (no name), answered for the caller. */
static void properties_get(Daemon *d, DBusMessage *m, const BusObject *o)
{
	_cleanup_msg_ DBusMessage *reply = NULL;
	const char *in_iface = NULL, *name = NULL;
	size_t n = o->flavour == FLAVOUR_NATIVE ? ELEMENTSOF(property_names) : RTKIT_N_PROPERTIES;
	CallerProperties p;
	uid_t uid = 0;
	DBusMessageIter it, arr;
	bool built = true;
	int r;

	/* (s interface) or (s interface, s property) */
	dbus_message_iter_init(m, &it);
	dbus_message_iter_get_basic(&it, &in_iface);
	if (dbus_message_iter_next(&it))
		dbus_message_iter_get_basic(&it, &name);
	if (!streq(in_iface, o->iface) && !(name == NULL && isempty(in_iface))) {
		bus_reply_error(d->bus, m, DBUS_ERROR_UNKNOWN_INTERFACE, "Unknown interface %s",
				in_iface);
		return;
	}
	r = bus_caller_properties(d, m, &p, &uid);
	if (r == -EINPROGRESS) {
		properties_park(d, m, o, uid);
		return;
	}
	if (r < 0) {
		bus_reply_error(d->bus, m, DBUS_ERROR_FAILED,
				"Could not evaluate the policy for the caller: %s", strerror(-r));
		return;
	}
	if (!name) {
		if (!bus_reply_open_array(d, m, "{sv}", &reply, &it, &arr))
			return;
		for (size_t i = 0; i < n && built; i++)
			built = append_property(d, &arr, &p, property_names[i], true);
		bus_reply_close_array(d, m, TAKE_PTR(reply), &it, &arr, built);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (streq(name, property_names[i])) {
			reply = dbus_message_new_method_return(m);
			if (reply)
				dbus_message_iter_init_append(reply, &it);
			if (!reply || !append_property(d, &it, &p, name, false))
				bus_reply_error(d->bus, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
			else
				bus_send(d->bus, reply);
			return;
		}
	bus_reply_error(d->bus, m, DBUS_ERROR_UNKNOWN_PROPERTY, "Unknown property %s", name);
}

static void properties_set(Daemon *d, DBusMessage *m, const BusObject *o)
{
	bus_reply_error(d->bus, m, DBUS_ERROR_PROPERTY_READ_ONLY, "The properties are read-only");
}

const BusMethod bus_properties_methods[] = {
	{ "Get", "ss", BUS_CALLER_ANYONE, NULL, properties_get },
	{ "GetAll", "s", BUS_CALLER_ANYONE, NULL, properties_get },
	{ "Set", "ssv", BUS_CALLER_ANYONE, NULL, properties_set },
};
const size_t bus_properties_n_methods = ELEMENTSOF(bus_properties_methods);
