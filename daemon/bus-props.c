// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Properties of both interfaces, answered for the calling user's policy, so
 * PipeWire asks for its real priority. A caller whose user is not known yet
 * is parked until the lookup ends: a guess without its groups would be wrong.
 */
#include <stdio.h>
#include <string.h>

#include "bus-props.h"
#include "bus.h"
#include "config.h"
#include "cpu-dma.h"
#include "creds.h"
#include "daemon-policy.h"
#include "log.h"
#include "request-sched.h"
#include "shield.h"
#include "user-wait.h"

typedef struct CallerProperties {
	int32_t max_realtime_priority;
	int32_t min_nice_level;
	int64_t rttime_usec_max;
} CallerProperties;

/* -EINPROGRESS: *ret_uid's user is not known yet. */
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
		/* rtkit clients set RLIMIT_RTTIME to this */
		.rttime_usec_max = !g->set[POLICY_KEY_RTTIME] || g->rttime_usec > INT64_MAX
					   ? INT64_MAX
					   : (int64_t)g->rttime_usec,
	};
	/* the canary watchdog may cap what a grant can get */
	if (ret->max_realtime_priority > supervise_max_priority(d))
		ret->max_realtime_priority = supervise_max_priority(d);
	return 0;
}

/* CpuDmaLatency (sxus): state, usec (-1: unset), grants, last failure. */
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

/* Shield (ssuua(uss)ss): the state (shield_state_to_string()), the
 * shielded CPUs ("" while not held), the realtime grants it is held for,
 * the IRQs moved off them, those that stay (irq, action, why), irqbalance
 * ("" when it does not run, "told (pid N)" or why it could not be), and
 * why it is not held or what it left undone (""). The same for every
 * caller. */
static bool append_shield(DBusMessageIter *it, Daemon *d)
{
	ShieldStatus st = { .state = SHIELD_UNSET };
	dbus_uint32_t grants = cpu_dma_n_grants(d), moved;
	DBusMessageIter v, s, arr, l;
	bool ok;

	if (d->shield)
		shield_status(d->shield, &st);
	moved = st.moved;
	if (!dbus_message_iter_open_container(it, DBUS_TYPE_VARIANT, "(ssuua(uss)ss)", &v))
		return false;
	ok = dbus_message_iter_open_container(&v, DBUS_TYPE_STRUCT, NULL, &s) &&
	     bus_append_string(&s, shield_state_to_string(st.state)) &&
	     bus_append_string(&s, st.cpus) &&
	     dbus_message_iter_append_basic(&s, DBUS_TYPE_UINT32, &grants) &&
	     dbus_message_iter_append_basic(&s, DBUS_TYPE_UINT32, &moved) &&
	     dbus_message_iter_open_container(&s, DBUS_TYPE_ARRAY, "(uss)", &arr);
	for (size_t i = 0; ok && i < st.n_left; i++) {
		dbus_uint32_t irq = st.left[i].irq;

		ok = dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &l) &&
		     dbus_message_iter_append_basic(&l, DBUS_TYPE_UINT32, &irq) &&
		     bus_append_string(&l, st.left[i].name) &&
		     bus_append_string(&l, st.left[i].why) &&
		     dbus_message_iter_close_container(&arr, &l);
	}
	ok = ok && dbus_message_iter_close_container(&s, &arr) &&
	     bus_append_string(&s, st.irqbalance) && bus_append_string(&s, st.problem) &&
	     dbus_message_iter_close_container(&v, &s);
	if (!ok) {
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
	} else if (streq(name, "CpuDmaLatency") || streq(name, "Shield")) {
		bool (*append)(DBusMessageIter *, Daemon *) =
			streq(name, "Shield") ? append_shield : append_cpu_dma;
		DBusMessageIter e;

		if (!dict)
			return append(it, d);
		if (!dbus_message_iter_open_container(it, DBUS_TYPE_DICT_ENTRY, NULL, &e))
			return false;
		if (!bus_append_string(&e, name) || !append(&e, d)) {
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
					      "MinNiceLevel",  "Version",
					      "CpuDmaLatency", "Shield" };
#define RTKIT_N_PROPERTIES 3

static void properties_get(Daemon *d, DBusMessage *m, const BusObject *o);

static void reply_unresolved(Daemon *d, DBusMessage *m, uid_t uid, int error)
{
	char text[256];

	bus_reply_error(d->bus, m, DBUS_ERROR_FAILED,
			"Could not evaluate the policy for the caller: %s",
			daemon_resolve_error(uid, error, text, sizeof(text)));
}

static void on_properties_user(int error, uid_t uid, void *userdata)
{
	BusParkedCall *p = userdata;

	if (error < 0)
		reply_unresolved(p->d, p->m, uid, error);
	else
		properties_get(p->d, p->m, p->o);
	bus_parked_call_free(p);
}

static const UserWaitOps properties_wait = { .done = on_properties_user,
					     .free_userdata = bus_parked_call_free };

static void properties_park(Daemon *d, DBusMessage *m, const BusObject *o, uid_t uid)
{
	BusParkedCall *p = bus_parked_call_new(d, m, o, NULL, uid);
	int r;

	r = p ? user_wait_one(d, uid, &properties_wait, p) : -ENOMEM;
	if (r >= 0)
		return;
	bus_parked_call_free(p);
	reply_unresolved(d, m, uid, r);
}

/* Get and GetAll (no name) */
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
