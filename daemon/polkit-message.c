// SPDX-License-Identifier: GPL-2.0-or-later
/* The question to polkitd (CheckAuthorization) and its answer; see
 * polkit.h. */
#include <errno.h>
#include <stdint.h>

#include "bus.h"
#include "log.h"
#include "macro.h"
#include "polkit.h"

static bool append_subject(DBusMessageIter *it, const PolkitCacheEntry *key)
{
	DBusMessageIter st, dict;
	uint32_t p = (uint32_t)key->pid, u = (uint32_t)key->uid;
	uint64_t start_time = key->start_time;
	const char *name = key->bus_name;

	if (!dbus_message_iter_open_container(it, DBUS_TYPE_STRUCT, NULL, &st))
		return false;
	if (name[0]) {
		/* polkitd asks dbus-daemon who the connection is, now */
		if (!bus_append_string(&st, "system-bus-name") ||
		    !dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "{sv}", &dict) ||
		    !bus_append_dict_variant(&dict, "name", DBUS_TYPE_STRING, &name))
			return false;
	} else if (!bus_append_string(&st, "unix-process") ||
		   !dbus_message_iter_open_container(&st, DBUS_TYPE_ARRAY, "{sv}", &dict) ||
		   !bus_append_dict_variant(&dict, "pid", DBUS_TYPE_UINT32, &p) ||
		   !bus_append_dict_variant(&dict, "start-time", DBUS_TYPE_UINT64, &start_time) ||
		   !bus_append_dict_variant(&dict, "uid", DBUS_TYPE_UINT32, &u))
		return false;
	return dbus_message_iter_close_container(&st, &dict) &&
	       dbus_message_iter_close_container(it, &st);
}

int polkit_message_new(const PolkitCacheEntry *key, DBusMessage **ret)
{
	_cleanup_msg_ DBusMessage *m = NULL;
	DBusMessageIter it, details;
	const char *cancel = "";
	/* CheckAuthorizationFlags: 1 is AllowUserInteraction */
	uint32_t flags = key->interactive ? 1 : 0;

	m = dbus_message_new_method_call(POLKIT_NAME, POLKIT_PATH, POLKIT_IFACE,
					 "CheckAuthorization");
	if (!m)
		return -ENOMEM;
	dbus_message_iter_init_append(m, &it);
	if (!append_subject(&it, key) || !bus_append_string(&it, key->action) ||
	    !dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{ss}", &details) ||
	    !dbus_message_iter_close_container(&it, &details) ||
	    !dbus_message_iter_append_basic(&it, DBUS_TYPE_UINT32, &flags) ||
	    !bus_append_string(&it, cancel))
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int polkit_reply_parse(DBusMessage *reply)
{
	DBusMessageIter it, st;
	dbus_bool_t authorized = FALSE;

	if (dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR) {
		const char *name = dbus_message_get_error_name(reply);

		log_warning("polkit check failed: %s", name);
		if (streq_ptr(name, DBUS_ERROR_SERVICE_UNKNOWN) ||
		    streq_ptr(name, DBUS_ERROR_NAME_HAS_NO_OWNER))
			return -EHOSTUNREACH;
		return -EIO;
	}
	if (!dbus_message_iter_init(reply, &it) ||
	    dbus_message_iter_get_arg_type(&it) != DBUS_TYPE_STRUCT)
		return -EBADMSG;
	dbus_message_iter_recurse(&it, &st);
	if (dbus_message_iter_get_arg_type(&st) != DBUS_TYPE_BOOLEAN)
		return -EBADMSG;
	dbus_message_iter_get_basic(&st, &authorized);
	return authorized ? 1 : 0;
}
