/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connecting to the system bus and calling realtimed (see bus.h). Error
 * names are turned into exit statuses and hints by bus-error.c.
 */
#include <stdarg.h>
#include <stdio.h>

#include "bus-error.h"
#include "bus-names.h"
#include "bus.h"
#include "ctl.h"
#include "macro.h"

/* Polkit may prompt for a password on Reload: give the user time to type it. */
#define BUS_INTERACTIVE_TIMEOUT_MS (120 * 1000)

static int bus_report(const DBusError *error, const char *what)
{
	const char *hint = bus_error_hint(error->name);

	fprintf(stderr, "Failed to %s: %s\n", what, error->message ? error->message : error->name);
	if (hint)
		fprintf(stderr, "%s\n", hint);
	return bus_error_exit_status(error->name);
}

int bus_open(DBusConnection **ret)
{
	DBusError error;
	DBusConnection *c;
	int r;

	dbus_error_init(&error);
	c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error);
	if (!c) {
		r = bus_report(&error, "connect to the system bus");
		dbus_error_free(&error);
		/* Whatever failed, realtimed cannot be reached. */
		return r == CTL_EXIT_FAILED ? CTL_EXIT_UNREACHABLE : r;
	}
	/* A command that exits must not take the process with it on a bus hangup. */
	dbus_connection_set_exit_on_disconnect(c, false);
	*ret = c;
	return 0;
}

int bus_call(DBusConnection *c, const char *method, const char *what, bool interactive,
	     DBusMessage **ret_reply, int first_arg_type, ...)
{
	_cleanup_bus_message_ DBusMessage *m = NULL;
	DBusMessage *reply;
	DBusError error;
	va_list ap;
	bool ok;
	int r;

	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, method);
	if (!m)
		return ctl_oom();
	va_start(ap, first_arg_type);
	ok = dbus_message_append_args_valist(m, first_arg_type, ap);
	va_end(ap);
	if (!ok)
		return ctl_oom();
	if (interactive)
		dbus_message_set_allow_interactive_authorization(m, true);

	dbus_error_init(&error);
	reply = dbus_connection_send_with_reply_and_block(
		c, m, interactive ? BUS_INTERACTIVE_TIMEOUT_MS : DBUS_TIMEOUT_USE_DEFAULT, &error);
	if (!reply) {
		r = bus_report(&error, what);
		dbus_error_free(&error);
		return r;
	}
	*ret_reply = reply;
	return 0;
}

int bus_check_reply_signature(DBusMessage *reply, const char *signature)
{
	if (dbus_message_has_signature(reply, signature))
		return 0;
	fprintf(stderr,
		"realtimed answered with signature '%s' where '%s' was expected: "
		"realtimectl and realtimed are of different versions.\n",
		dbus_message_get_signature(reply), signature);
	return CTL_EXIT_FAILED;
}
