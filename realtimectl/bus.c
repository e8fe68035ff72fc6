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
#include "polkit-agent.h"

/* Polkit may prompt for a password: give the user time to type it. */
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

/* 0 if realtimed's reply has the signature, else CTL_EXIT_FAILED after
 * saying so. */
static int reply_check_signature(DBusMessage *reply, const char *signature)
{
	if (dbus_message_has_signature(reply, signature))
		return 0;
	fprintf(stderr,
		"realtimed answered with signature '%s' where '%s' was expected: "
		"realtimectl and realtimed are of different versions.\n",
		dbus_message_get_signature(reply), signature);
	return CTL_EXIT_FAILED;
}

static int bus_call_valist(DBusConnection *c, const char *method, const char *what,
			   bool interactive, const char *signature, DBusMessage **ret_reply,
			   int first_arg_type, va_list ap)
{
	_cleanup_bus_message_ DBusMessage *m = NULL, *reply = NULL;
	DBusError error;
	pid_t agent = 0;
	int r;

	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, method);
	if (!m || !dbus_message_append_args_valist(m, first_arg_type, ap))
		return ctl_oom();
	if (interactive) {
		dbus_message_set_allow_interactive_authorization(m, true);
		/* polkit may ask for an administrator's password: on a terminal, let it */
		if (polkit_agent_open(&agent) < 0)
			agent = 0; /* the refusal, if any, says what to do */
	}

	dbus_error_init(&error);
	reply = dbus_connection_send_with_reply_and_block(
		c, m, interactive ? BUS_INTERACTIVE_TIMEOUT_MS : DBUS_TIMEOUT_USE_DEFAULT, &error);
	polkit_agent_close(agent);
	if (!reply) {
		r = bus_report(&error, what);
		dbus_error_free(&error);
		return r;
	}
	if (signature) {
		r = reply_check_signature(reply, signature);
		if (r > 0)
			return r;
	}
	*ret_reply = TAKE_PTR(reply);
	return 0;
}

int bus_call(DBusConnection *c, const char *method, const char *what, bool interactive,
	     const char *signature, DBusMessage **ret_reply, int first_arg_type, ...)
{
	va_list ap;
	int r;

	va_start(ap, first_arg_type);
	r = bus_call_valist(c, method, what, interactive, signature, ret_reply, first_arg_type, ap);
	va_end(ap);
	return r;
}

int bus_call_once(const char *method, const char *what, bool interactive, const char *signature,
		  DBusMessage **ret_reply, int first_arg_type, ...)
{
	_cleanup_bus_connection_ DBusConnection *c = NULL;
	va_list ap;
	int r;

	r = bus_open(&c);
	if (r > 0)
		return r;
	va_start(ap, first_arg_type);
	r = bus_call_valist(c, method, what, interactive, signature, ret_reply, first_arg_type, ap);
	va_end(ap);
	return r;
}

int bus_make_thread_realtime(DBusConnection *c, uint64_t pid, uint64_t tid, const char *policy,
			     int priority, const char *what)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	dbus_uint64_t p = pid, t = tid;
	dbus_uint32_t prio = (dbus_uint32_t)priority;

	return bus_call(c, "MakeThreadRealtime", what, false, NULL, &reply, DBUS_TYPE_UINT64, &p,
			DBUS_TYPE_UINT64, &t, DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
			DBUS_TYPE_INVALID);
}

int bus_make_thread_high_priority(DBusConnection *c, uint64_t pid, uint64_t tid, int nice,
				  const char *what)
{
	_cleanup_bus_message_ DBusMessage *reply = NULL;
	dbus_uint64_t p = pid, t = tid;
	dbus_int32_t n = nice;

	return bus_call(c, "MakeThreadHighPriority", what, false, NULL, &reply, DBUS_TYPE_UINT64,
			&p, DBUS_TYPE_UINT64, &t, DBUS_TYPE_INT32, &n, DBUS_TYPE_INVALID);
}

void bus_iter_read_explain(DBusMessageIter *it, const char **ret_key, const char **ret_value,
			   const char **ret_source)
{
	DBusMessageIter entry, pair;

	dbus_message_iter_recurse(it, &entry);
	dbus_message_iter_get_basic(&entry, ret_key);
	dbus_message_iter_next(&entry);
	dbus_message_iter_recurse(&entry, &pair);
	dbus_message_iter_get_basic(&pair, ret_value);
	dbus_message_iter_next(&pair);
	dbus_message_iter_get_basic(&pair, ret_source);
	dbus_message_iter_next(it);
}

void bus_iter_read_struct(DBusMessageIter *it, ...)
{
	DBusMessageIter s;
	va_list ap;

	dbus_message_iter_recurse(it, &s);
	va_start(ap, it);
	for (void *v; (v = va_arg(ap, void *)); dbus_message_iter_next(&s))
		dbus_message_iter_get_basic(&s, v);
	va_end(ap);
	dbus_message_iter_next(it);
}
