// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The calls of bus-fuzz: the kinds of call (their names for --calls and how
 * often each comes up), picking one for a worker, and sending it. A single
 * call is built in call-build.c and its outcome checked in call-check.c;
 * worker_call() also picks the client behaviours of clients.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-fuzz.h"

/* Each kind's name (for --calls) and how often it comes up, out of about
 * 100: grants most, then what surrounds them. */
static struct {
	const char *name;
	unsigned weight;
} kinds[_CALL_KIND_MAX] = {
	[CALL_MAKE_RT] = { "make-rt", 12 },
	[CALL_MAKE_HIGH] = { "make-high", 8 },
	[CALL_RESET_THREAD] = { "reset-thread", 5 },
	[CALL_RESET_PROCESS] = { "reset-process", 3 },
	[CALL_GRANT_LIMITS] = { "grant-limits", 4 },
	[CALL_EXPLAIN] = { "explain", 3 },
	[CALL_LIST_GRANTS] = { "list-grants", 5 },
	[CALL_LIST_IRQ] = { "list-irq", 1 },
	[CALL_RELOAD] = { "reload", 1 },
	[CALL_RTKIT_RT] = { "rtkit-rt", 6 },
	[CALL_RTKIT_RT_PID] = { "rtkit-rt-pid", 6 },
	[CALL_RTKIT_HIGH] = { "rtkit-high", 4 },
	[CALL_RTKIT_HIGH_PID] = { "rtkit-high-pid", 4 },
	[CALL_RTKIT_ROOT] = { "rtkit-root", 1 },
	[CALL_PROP_GET] = { "prop-get", 5 },
	[CALL_PROP_GET_ALL] = { "prop-get-all", 3 },
	[CALL_PROP_SET] = { "prop-set", 2 },
	[CALL_INTROSPECT] = { "introspect", 2 },
	[CALL_PEER] = { "peer", 2 },
	[CALL_UNKNOWN] = { "unknown", 3 },
	[CALL_LONG_STRING] = { "long-string", 4 },
	[CALL_RENAME_LIST] = { "rename-list", 5 },
	[CALL_DISCONNECT] = { "disconnect", 4 },
	[CALL_MANY_CONNECTIONS] = { "many-connections", 1 },
	[CALL_RACE] = { "race", 2 },
	/* every few seconds, from the controller (batches.c), not by weight:
	 * the weight only says whether --calls left it in */
	[CALL_BURST] = { "burst", 1 },
	[CALL_MANAGE_FLOOD] = { "manage-flood", 1 },
	[CALL_SPIN_OTHER] = { "spin-other", 2 },
	[CALL_TID_CHURN] = { "tid-churn", 2 },
};

bool call_kind_enabled(CallKind k)
{
	return kinds[k].weight > 0;
}

int calls_select(const char *list)
{
	bool keep[_CALL_KIND_MAX] = { false }, any = false;
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
		int k;

		for (k = 0; k < _CALL_KIND_MAX; k++)
			if (streq(w, kinds[k].name))
				break;
		if (k == _CALL_KIND_MAX) {
			fprintf(stderr, "bus-fuzz: unknown call kind '%s'; known:", w);
			for (k = 0; k < _CALL_KIND_MAX; k++)
				fprintf(stderr, " %s", kinds[k].name);
			fprintf(stderr, "\n");
			return -EINVAL;
		}
		keep[k] = any = true;
	}
	if (!any) {
		fprintf(stderr, "bus-fuzz: --calls names no kind of call\n");
		return -EINVAL;
	}
	for (int k = 0; k < _CALL_KIND_MAX; k++)
		if (!keep[k])
			kinds[k].weight = 0;
	return 0;
}

void call_record(Worker *w, const Desc *d)
{
	unsigned i = w->n_recent++ % ELEMENTSOF(w->recent);

	w->recent[i] = *d;
	w->recent_usec[i] = now_usec();
}

void call_note_error(const char *name)
{
	count_error(name);
	if (streq(name, DBUS_ERROR_NO_REPLY) || streq(name, DBUS_ERROR_SERVICE_UNKNOWN) ||
	    streq(name, DBUS_ERROR_NAME_HAS_NO_OWNER) || streq(name, DBUS_ERROR_DISCONNECTED))
		daemon_suspect = true;
}

/* Sends m on bus, waits for the answer, counts it. */
DBusMessage *call_send(Worker *w, DBusConnection *bus, DBusMessage *m, const Desc *d)
{
	DBusMessage *reply;
	DBusError e;

	call_record(w, d);
	stats.calls++;
	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &e);
	if (reply)
		stats.ok++;
	else {
		call_note_error(e.name ? e.name : "(no error name)");
		/* NoReply: the timeout, or the daemon gone before it answered */
		if (streq_ptr(e.name, DBUS_ERROR_NO_REPLY)) {
			if (!strstr(e.message, "disconnected"))
				stats.timeouts++;
			note("no reply (%.80s): %s", e.message, d->text);
		}
		dbus_error_free(&e);
	}
	/* a fuzzer thread that was made realtime never stays so: the host's safety */
	self_drop_realtime();
	return reply;
}

DBusMessage *call_new(const char *dest, const char *path, const char *iface, const char *member)
{
	DBusMessage *m = dbus_message_new_method_call(dest, path, iface, member);

	if (!m)
		abort();
	return m;
}

void call_append(DBusMessage *m, int first_type, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, first_type);
	ok = dbus_message_append_args_valist(m, first_type, ap);
	va_end(ap);
	if (!ok)
		abort();
}

/* Builds, sends, checks one call of kind k on the worker's connection. */
void call_run(Worker *w, CallKind k)
{
	DBusMessage *reply;
	Call c;

	call_build(w, k, &c);
	call_prepare(&c);
	reply = call_send(w, w->bus, c.m, &c.d);
	if (reply) {
		call_check(&c, reply);
		dbus_message_unref(reply);
	}
	dbus_message_unref(c.m);
}

CallKind call_pick_single(Rng *r)
{
	static const CallKind singles[] = {
		CALL_MAKE_RT,	  CALL_MAKE_HIGH,    CALL_RESET_THREAD, CALL_GRANT_LIMITS,
		CALL_LIST_GRANTS, CALL_RTKIT_RT_PID, CALL_RTKIT_HIGH,	CALL_PROP_GET,
		CALL_LONG_STRING, CALL_PEER,	     CALL_EXPLAIN,	CALL_RESET_PROCESS,
	};

	return singles[rng_below(r, ELEMENTSOF(singles))];
}

void worker_call(Worker *w)
{
	unsigned total = 0, x;
	int k;

	for (k = 0; k < _CALL_KIND_MAX; k++)
		total += kinds[k].weight;
	x = (unsigned)rng_below(&w->rng, total);
	for (k = 0; k < _CALL_KIND_MAX && x >= kinds[k].weight; k++)
		x -= kinds[k].weight;

	switch ((CallKind)k) {
	case CALL_RENAME_LIST:
		client_rename_and_list(w);
		break;
	case CALL_DISCONNECT:
		client_hang_up(w);
		break;
	case CALL_MANY_CONNECTIONS:
		client_many_connections(w);
		break;
	case CALL_RACE:
		client_race_read_back(w);
		break;
	case CALL_BURST:
		/* the controller's to start */
		call_run(w, CALL_MAKE_RT);
		break;
	case CALL_MANAGE_FLOOD:
		client_manage_flood(w);
		break;
	case CALL_SPIN_OTHER:
		client_spin_other(w);
		break;
	case CALL_TID_CHURN:
		client_tid_churn(w);
		break;
	default:
		call_run(w, (CallKind)k);
		break;
	}
}
