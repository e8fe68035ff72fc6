/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What realtimectl check asks the system bus (ctl-check.h, CheckBus): who owns
 * realtimed's name and rtkit's, their pids, and realtimed's
 * MaxRealtimePriority for the caller and its Version, and the caller's
 * refusals (ListRefusals). Nothing is activated: names are
 * looked up with GetNameOwner, and the property is read with
 * NO_AUTO_START, so a stopped realtimed stays stopped. Also its
 * CpuDmaLatency and Shield, for cpu-dma-latency, shield and realtimectl
 * status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dbus/dbus.h>

#include "bus-names.h"
#include "bus.h"
#include "ctl-check.h"
#include "refusal.h"

#define CHECK_BUS_TIMEOUT_MS 5000

static DBusMessage *call(DBusConnection *bus, DBusMessage *m)
{
	DBusMessage *reply;
	DBusError error;

	dbus_message_set_auto_start(m, false);
	dbus_error_init(&error);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CHECK_BUS_TIMEOUT_MS, &error);
	dbus_error_free(&error);
	return reply;
}

/* The unique name that owns name, into buf; false when none. */
static bool name_owner(DBusConnection *bus, const char *name, char *buf, size_t size)
{
	_cleanup_bus_message_ DBusMessage *m = NULL, *reply = NULL;
	const char *owner;

	m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					 "GetNameOwner");
	if (!m || !dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID))
		return false;
	reply = call(bus, m);
	if (!reply || dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_METHOD_RETURN ||
	    !dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &owner, DBUS_TYPE_INVALID))
		return false;
	snprintf(buf, size, "%s", owner);
	return true;
}

static pid_t owner_pid(DBusConnection *bus, const char *unique)
{
	_cleanup_bus_message_ DBusMessage *m = NULL, *reply = NULL;
	dbus_uint32_t pid;

	m = dbus_message_new_method_call(DBUS_SERVICE_DBUS, DBUS_PATH_DBUS, DBUS_INTERFACE_DBUS,
					 "GetConnectionUnixProcessID");
	if (!m || !dbus_message_append_args(m, DBUS_TYPE_STRING, &unique, DBUS_TYPE_INVALID))
		return 0;
	reply = call(bus, m);
	if (!reply || dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_METHOD_RETURN ||
	    !dbus_message_get_args(reply, NULL, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID))
		return 0;
	return (pid_t)pid;
}

/* A property of realtimed's native interface, its variant opened in *v when
 * it holds type; false when there is no such answer. */
static bool get_property(DBusConnection *bus, const char *prop, int type, DBusMessage **ret_reply,
			 DBusMessageIter *v)
{
	_cleanup_bus_message_ DBusMessage *m = NULL, *reply = NULL;
	const char *iface = NATIVE_IFACE;
	DBusMessageIter it;

	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, DBUS_INTERFACE_PROPERTIES,
					 "Get");
	if (!m || !dbus_message_append_args(m, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &prop,
					    DBUS_TYPE_INVALID))
		return false;
	reply = call(bus, m);
	if (!reply || dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_METHOD_RETURN ||
	    !dbus_message_iter_init(reply, &it) ||
	    dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_VARIANT)
		return false;
	dbus_message_iter_recurse(&it, v);
	if (dbus_message_iter_get_arg_type(v) != type)
		return false;
	*ret_reply = TAKE_PTR(reply);
	return true;
}

static int max_priority(DBusConnection *bus)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	DBusMessageIter v;
	dbus_int32_t prio;

	if (!get_property(bus, "MaxRealtimePriority", DBUS_TYPE_INT32, &reply, &v))
		return -1;
	dbus_message_iter_get_basic(&v, &prio);
	return prio;
}

/* The running daemon's Version; "" from a realtimed older than it. */
static void daemon_version(DBusConnection *bus, char *buf, size_t size)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	DBusMessageIter v;
	const char *s;

	if (!get_property(bus, "Version", DBUS_TYPE_STRING, &reply, &v))
		return;
	dbus_message_iter_get_basic(&v, &s);
	snprintf(buf, size, "%s", s);
}

void check_bus_cpu_dma(DBusConnection *bus, CpuDmaHold *ret)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	DBusMessageIter v;
	const char *state, *error;
	dbus_int64_t usec;
	dbus_uint32_t grants;
	char *sig;
	bool ok;

	if (!get_property(bus, "CpuDmaLatency", DBUS_TYPE_STRUCT, &reply, &v))
		return;
	sig = dbus_message_iter_get_signature(&v);
	ok = sig && streq(sig, "(sxus)");
	dbus_free(sig);
	if (!ok)
		return;
	bus_iter_read_struct(&v, &state, &usec, &grants, &error, NULL);
	*ret = (CpuDmaHold){ .known = true, .usec = usec, .grants = grants };
	snprintf(ret->state, sizeof(ret->state), "%s", state);
	snprintf(ret->error, sizeof(ret->error), "%s", error);
}

void check_bus_shield(DBusConnection *bus, ShieldHold *ret)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	const char *state, *cpus, *irqbalance, *problem;
	dbus_uint32_t grants, moved;
	DBusMessageIter v, s, arr;
	ShieldHold h = { .known = true };
	char *sig;
	bool ok;

	if (!get_property(bus, "Shield", DBUS_TYPE_STRUCT, &reply, &v))
		return;
	sig = dbus_message_iter_get_signature(&v);
	ok = sig && streq(sig, "(ssuua(uss)ss)");
	dbus_free(sig);
	if (!ok)
		return;
	dbus_message_iter_recurse(&v, &s);
	dbus_message_iter_get_basic(&s, &state);
	dbus_message_iter_next(&s);
	dbus_message_iter_get_basic(&s, &cpus);
	dbus_message_iter_next(&s);
	dbus_message_iter_get_basic(&s, &grants);
	dbus_message_iter_next(&s);
	dbus_message_iter_get_basic(&s, &moved);
	dbus_message_iter_next(&s);
	dbus_message_iter_recurse(&s, &arr);
	while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
		dbus_uint32_t irq;
		const char *name, *why;

		bus_iter_read_struct(&arr, &irq, &name, &why, NULL);
		if (h.n_left < SHIELD_LEFT_SHOWN) {
			h.left[h.n_left].irq = irq;
			snprintf(h.left[h.n_left].name, sizeof(h.left[0].name), "%s", name);
			snprintf(h.left[h.n_left].why, sizeof(h.left[0].why), "%s", why);
		}
		h.n_left++;
	}
	dbus_message_iter_next(&s);
	dbus_message_iter_get_basic(&s, &irqbalance);
	dbus_message_iter_next(&s);
	dbus_message_iter_get_basic(&s, &problem);
	h.grants = grants;
	h.moved = moved;
	snprintf(h.state, sizeof(h.state), "%s", state);
	snprintf(h.cpus, sizeof(h.cpus), "%s", cpus);
	snprintf(h.irqbalance, sizeof(h.irqbalance), "%s", irqbalance);
	snprintf(h.problem, sizeof(h.problem), "%s", problem);
	*ret = h;
}

void check_bus_query(CheckBus *ret)
{
	_cleanup_bus_connection_ DBusConnection *bus = NULL;
	char realtimed[256] = "", rtkit[256] = "";
	DBusError error;

	*ret = (CheckBus){ .max_priority = -1 };
	dbus_error_init(&error);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error);
	if (!bus) {
		snprintf(ret->error, sizeof(ret->error), "%s",
			 error.message ?: error.name ?: "unknown error");
		dbus_error_free(&error);
		return;
	}
	dbus_connection_set_exit_on_disconnect(bus, false);
	ret->reachable = true;
	ret->realtimed = name_owner(bus, NATIVE_NAME, realtimed, sizeof(realtimed));
	if (ret->realtimed) {
		ret->realtimed_pid = owner_pid(bus, realtimed);
		ret->max_priority = max_priority(bus);
		daemon_version(bus, ret->version, sizeof(ret->version));
		check_bus_cpu_dma(bus, &ret->cpu_dma);
		check_bus_shield(bus, &ret->shield);
	}
	ret->rtkit_owned = name_owner(bus, RTKIT_NAME, rtkit, sizeof(rtkit));
	if (ret->rtkit_owned) {
		ret->rtkit_pid = owner_pid(bus, rtkit);
		ret->rtkit_is_realtimed = ret->realtimed && streq(rtkit, realtimed);
	}
}

int check_refusals_query(uid_t uid, uint64_t since_usec, CheckRefusals *ret)
{
	_cleanup_bus_connection_ DBusConnection *bus = NULL;
	_cleanup_bus_message_ DBusMessage *m = NULL, *reply = NULL;
	char owner[256];
	DBusMessageIter it, arr;
	DBusError error;

	*ret = (CheckRefusals){};
	/* ListRefusals answers with the caller's own, root's with everyone's */
	if (getuid() != 0 && getuid() != uid)
		return -EACCES;
	dbus_error_init(&error);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error);
	dbus_error_free(&error);
	if (!bus)
		return -ECONNREFUSED;
	dbus_connection_set_exit_on_disconnect(bus, false);
	if (!name_owner(bus, NATIVE_NAME, owner, sizeof(owner)))
		return -EHOSTDOWN;
	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ListRefusals");
	if (!m)
		return -ENOMEM;
	reply = call(bus, m);
	if (!reply || dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_METHOD_RETURN)
		return reply && dbus_message_is_error(reply, DBUS_ERROR_UNKNOWN_METHOD)
			       ? -EOPNOTSUPP
			       : -EIO;
	if (!dbus_message_has_signature(reply, "a(tuttsssssu)"))
		return -EOPNOTSUPP;
	dbus_message_iter_init(reply, &it);
	dbus_message_iter_recurse(&it, &arr);
	while (dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT) {
		CtlRefusal f;
		size_t slot;

		ctl_refusal_read(&arr, &f);
		if (f.uid != uid || f.time_usec < since_usec)
			continue;
		ret->n++;
		/* keep the newest CHECK_REFUSALS_SHOWN, oldest first */
		if (ret->n_shown == CHECK_REFUSALS_SHOWN)
			memmove(ret->shown[0], ret->shown[1],
				sizeof(ret->shown[0]) * (CHECK_REFUSALS_SHOWN - 1));
		else
			ret->n_shown++;
		slot = ret->n_shown - 1;
		ctl_refusal_format(&f, ret->shown[slot], sizeof(ret->shown[slot]));
		ctl_refusal_fix(&f, ret->fix, sizeof(ret->fix));
	}
	return 0;
}
