// SPDX-License-Identifier: GPL-2.0-or-later
/* ListRefusals and ListAllRefusals, oldest first. */

#include "bus-native-refusals.h"
#include "bus.h"
#include "refusals.h"

/* uid (uid_t)-1: every user's */
static void reply_refusals(Daemon *d, DBusMessage *m, uid_t uid)
{
	_cleanup_free_ const Refusal **list = NULL;
	DBusMessage *reply = NULL;
	DBusMessageIter it, arr;
	bool built = true;
	size_t n = 0;

	if (refusals_list(d->users, uid, 0, &list, &n) < 0) {
		bus_reply_error(d->bus, m, DBUS_ERROR_NO_MEMORY, "Out of memory");
		return;
	}
	if (!bus_reply_open_array(d, m, "(tuttsssssu)", &reply, &it, &arr))
		return;
	for (size_t i = 0; i < n && built; i++) {
		const Refusal *f = list[i];
		uint64_t time = f->time_usec, pid = (uint64_t)f->pid, tid = (uint64_t)f->tid;
		uint32_t fuid = f->uid, count = f->count;
		DBusMessageIter st;

		built = dbus_message_iter_open_container(&arr, DBUS_TYPE_STRUCT, NULL, &st) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &time) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &fuid) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &pid) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT64, &tid) &&
			bus_append_string(&st, f->comm) && bus_append_string(&st, f->asked) &&
			bus_append_string(&st, f->error) && bus_append_string(&st, f->reason) &&
			bus_append_string(&st, f->source) &&
			dbus_message_iter_append_basic(&st, DBUS_TYPE_UINT32, &count) &&
			dbus_message_iter_close_container(&arr, &st);
	}
	bus_reply_close_array(d, m, reply, &it, &arr, built);
}

void bus_native_list_refusals(Daemon *d, DBusMessage *m, const BusObject *o)
{
	uid_t uid;

	if (bus_get_caller_uid(d, m, &uid) < 0)
		return;
	reply_refusals(d, m, uid == 0 ? (uid_t)-1 : uid);
}

void bus_native_list_all_refusals(Daemon *d, DBusMessage *m, const BusObject *o)
{
	reply_refusals(d, m, (uid_t)-1);
}
