// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A client that listens for realtimed's Demoted signal as any program may:
 * one connection with a match rule for it (test-demoted.sh). Optionally
 * it first calls SubscribeDemoted (--subscribe), or asks realtimed on this
 * very connection for a grant to a thread of its own that only sleeps
 * (--grant POLICY PRIORITY), so that it is the asking connection.
 *
 * Prints, one line each and flushed at once: "subscribed" or
 * "subscribe-error NAME MESSAGE", "granted PID TID" or "grant-error NAME
 * MESSAGE", then "ready"; then "demoted REASON PID TID" for each thread of
 * each Demoted signal that arrives, until it is killed.
 *
 * usage: demoted-listen [--subscribe] [--grant fifo|rr PRIORITY]
 */
#include <dbus/dbus.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../system-bus.h"

#define NAME "org.realtimed.Realtime1"
#define PATH "/org/realtimed/Realtime1"
#define IFACE "org.realtimed.Realtime1"

static pid_t sleeper_tid;

static void *sleeper(void *arg)
{
	__atomic_store_n(&sleeper_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	for (;;)
		pause();
	return NULL;
}

/* Calls method with the arguments appended by the caller (m), prints
 * "OK-LINE" on success or "ERR-PREFIX NAME MESSAGE". */
static int call(DBusConnection *c, DBusMessage *m, const char *ok, const char *err)
{
	DBusMessage *reply;
	DBusError e;

	dbus_error_init(&e);
	reply = dbus_connection_send_with_reply_and_block(c, m, 10000, &e);
	dbus_message_unref(m);
	if (!reply) {
		printf("%s %s %s\n", err, e.name, e.message);
		dbus_error_free(&e);
		return -1;
	}
	dbus_message_unref(reply);
	printf("%s\n", ok);
	return 0;
}

static void print_demoted(DBusMessage *m)
{
	DBusMessageIter it, arr, st;
	const char *reason = "";
	int n = 0;

	if (!dbus_message_has_signature(m, "a(tt)s"))
		return;
	dbus_message_iter_init(m, &it);
	dbus_message_iter_next(&it);
	dbus_message_iter_get_basic(&it, &reason);
	dbus_message_iter_init(m, &it);
	for (dbus_message_iter_recurse(&it, &arr);
	     dbus_message_iter_get_arg_type(&arr) == DBUS_TYPE_STRUCT;
	     dbus_message_iter_next(&arr), n++) {
		uint64_t pid, tid;

		dbus_message_iter_recurse(&arr, &st);
		dbus_message_iter_get_basic(&st, &pid);
		dbus_message_iter_next(&st);
		dbus_message_iter_get_basic(&st, &tid);
		printf("demoted %s %" PRIu64 " %" PRIu64 "\n", reason, pid, tid);
	}
	if (n == 0)
		printf("demoted %s none\n", reason);
}

int main(int argc, char **argv)
{
	const char *policy = NULL;
	uint32_t prio = 0;
	bool subscribe = false;
	DBusConnection *c;
	DBusError e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--subscribe") == 0)
			subscribe = true;
		else if (strcmp(argv[i], "--grant") == 0 && i + 2 < argc) {
			policy = argv[++i];
			prio = (uint32_t)strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "usage: %s [--subscribe] [--grant fifo|rr PRIORITY]\n",
				argv[0]);
			return 2;
		}
	}

	c = system_bus_open("demoted-listen");
	if (!c)
		return 1;
	dbus_error_init(&e);
	dbus_bus_add_match(c, "type='signal',interface='" IFACE "',member='Demoted'", &e);
	if (dbus_error_is_set(&e)) {
		fprintf(stderr, "AddMatch: %s\n", e.message);
		return 1;
	}

	if (subscribe)
		(void)call(c, dbus_message_new_method_call(NAME, PATH, IFACE, "SubscribeDemoted"),
			   "subscribed", "subscribe-error");
	if (policy) {
		pthread_t th;
		uint64_t pid = 0, tid;
		DBusMessage *m;
		char ok[64];

		if (pthread_create(&th, NULL, sleeper, NULL) != 0)
			return 1;
		while (__atomic_load_n(&sleeper_tid, __ATOMIC_SEQ_CST) == 0)
			usleep(1000);
		tid = (uint64_t)sleeper_tid;
		m = dbus_message_new_method_call(NAME, PATH, IFACE, "MakeThreadRealtime");
		dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
					 DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
					 DBUS_TYPE_INVALID);
		snprintf(ok, sizeof(ok), "granted %d %d", (int)getpid(), (int)sleeper_tid);
		(void)call(c, m, ok, "grant-error");
	}
	printf("ready\n");

	while (dbus_connection_read_write(c, -1)) {
		DBusMessage *m;

		while ((m = dbus_connection_pop_message(c))) {
			if (dbus_message_is_signal(m, IFACE, "Demoted"))
				print_demoted(m);
			dbus_message_unref(m);
		}
	}
	return 0;
}
