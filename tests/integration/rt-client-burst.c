// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rt-client burst and flood: many calls on the wire before any answer, for
 * the tests that limits and polkit's slots hold under a burst
 * (test-burst.sh).
 *
 *   rt-client burst (--threads N | --procs N) [--policy P] [--prio P]
 *                   [--hold S] [--ready FILE]
 *	Starts N sleeping threads of its own (--threads) or N sleeping child
 *	processes (--procs), then sends one native MakeThreadRealtime per
 *	thread (per child's main thread) on one connection, all before it
 *	reads the first answer. Prints "granted N" and one "error NAME N" per
 *	error name, then creates FILE (if given) and keeps its threads and
 *	children, and so the grants, S seconds (default 0). Exit 0 when every
 *	call was answered, 2 on anything else.
 *
 *   rt-client flood CONNS CALLS METHOD [UID]
 *	Opens CONNS connections and sends CALLS native METHOD calls
 *	(ListAllGrants, Reload or Explain of UID) on each, all before it
 *	reads an answer; prints "ok N" and one "error NAME N" per error name.
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "rt-client.h"
#include "../system-bus.h"
#include "../sleeper.h"

#define CALL_TIMEOUT_MS 60000
#define NAMES_MAX 16

static int sleeper_pipe[2] = { -1, -1 };

typedef struct Tally {
	unsigned ok;
	size_t n;
	char *name[NAMES_MAX];
	unsigned count[NAMES_MAX];
} Tally;

static void tally_add(Tally *t, DBusPendingCall *call)
{
	DBusMessage *reply;
	const char *name;
	size_t i;

	dbus_pending_call_block(call);
	reply = dbus_pending_call_steal_reply(call);
	dbus_pending_call_unref(call);
	if (reply && dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_ERROR) {
		t->ok++;
		dbus_message_unref(reply);
		return;
	}
	name = reply ? dbus_message_get_error_name(reply) : "no-reply";
	if (reply && dbus_message_get_type(reply) == DBUS_MESSAGE_TYPE_ERROR &&
	    getenv("RT_CLIENT_VERBOSE")) {
		const char *text = "";

		(void)dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &text,
					    DBUS_TYPE_INVALID);
		fprintf(stderr, "%s: %s\n", name, text);
	}
	for (i = 0; i < t->n; i++)
		if (streq(t->name[i], name))
			break;
	if (i == t->n && t->n < NAMES_MAX)
		t->name[t->n++] = strdup(name);
	if (i < t->n)
		t->count[i]++;
	if (reply)
		dbus_message_unref(reply);
}

static void tally_print(const Tally *t, const char *ok)
{
	printf("%s %u\n", ok, t->ok);
	for (size_t i = 0; i < t->n; i++)
		printf("error %s %u\n", t->name[i], t->count[i]);
	fflush(stdout);
}

int cmd_burst(int argc, char **argv)
{
	const char *policy = "rr", *ready = NULL;
	struct rlimit rl = { 200000, 200000 };
	int n = 0, hold = 0, procs = 0;
	uint32_t prio = 1;
	DBusPendingCall **calls;
	DBusConnection *bus;
	pid_t *tids;
	Tally t = {};

	for (int i = 2; i < argc; i++)
		if (streq(argv[i], "--threads") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (streq(argv[i], "--procs") && i + 1 < argc) {
			n = atoi(argv[++i]);
			procs = 1;
		} else if (streq(argv[i], "--policy") && i + 1 < argc)
			policy = argv[++i];
		else if (streq(argv[i], "--prio") && i + 1 < argc)
			prio = (uint32_t)atoi(argv[++i]);
		else if (streq(argv[i], "--hold") && i + 1 < argc)
			hold = atoi(argv[++i]);
		else if (streq(argv[i], "--ready") && i + 1 < argc)
			ready = argv[++i];
		else {
			fprintf(stderr, "rt-client: unknown argument %s\n", argv[i]);
			return 2;
		}
	if (n <= 0 || n > 1000) {
		fprintf(stderr, "usage: rt-client burst (--threads N | --procs N) ...\n");
		return 2;
	}
	(void)setrlimit(RLIMIT_RTTIME, &rl);
	tids = calloc(n, sizeof(*tids));
	calls = calloc(n, sizeof(*calls));
	if (!tids || !calls || pipe2(sleeper_pipe, O_CLOEXEC) < 0)
		return 2;
	for (int i = 0; i < n; i++) {
		if (procs) {
			pid_t p = fork();

			if (p < 0)
				return 2;
			if (p == 0) {
				char c;

				/* until the parent exits: its end of the pipe closes */
				close(sleeper_pipe[1]);
				while (read(sleeper_pipe[0], &c, 1) < 0 && errno == EINTR)
					;
				_exit(0);
			}
			tids[i] = p;
		} else {
			SleeperThread *s = calloc(1, sizeof(*s));

			/* lives as long as the thread, to the end */
			if (!s || sleeper_thread_start(s, sleeper_pipe[0], NULL) != 0)
				return 2;
			tids[i] = s->tid;
		}
	}

	bus = system_bus_open("rt-client");
	if (!bus)
		return 2;
	for (int i = 0; i < n; i++) {
		uint64_t pid = procs ? (uint64_t)tids[i] : (uint64_t)getpid();
		uint64_t tid = (uint64_t)tids[i];
		DBusMessage *m;

		m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
						 "MakeThreadRealtime");
		if (!m ||
		    !dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
					      DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
					      DBUS_TYPE_INVALID) ||
		    !dbus_connection_send_with_reply(bus, m, &calls[i], CALL_TIMEOUT_MS) ||
		    !calls[i])
			return 2;
		dbus_message_unref(m);
	}
	dbus_connection_flush(bus);
	for (int i = 0; i < n; i++)
		tally_add(&t, calls[i]);
	tally_print(&t, "granted");
	if (ready)
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	if (hold > 0)
		sleep((unsigned)hold);
	close(sleeper_pipe[1]);
	if (procs)
		while (wait(NULL) > 0 || errno == EINTR)
			;
	dbus_connection_close(bus);
	dbus_connection_unref(bus);
	return 0;
}

int cmd_flood(int argc, char **argv)
{
	int conns, n;
	uint32_t uid = 0;
	const char *method;
	DBusConnection **buses;
	DBusPendingCall **calls;
	Tally t = {};

	if (argc < 5 || (conns = atoi(argv[2])) <= 0 || (n = atoi(argv[3])) <= 0 || conns > 64 ||
	    n > 1000) {
		fprintf(stderr, "usage: rt-client flood CONNS CALLS METHOD [UID]\n");
		return 2;
	}
	method = argv[4];
	if (argc > 5)
		uid = (uint32_t)strtoul(argv[5], NULL, 10);
	buses = calloc(conns, sizeof(*buses));
	calls = calloc((size_t)conns * n, sizeof(*calls));
	if (!buses || !calls)
		return 2;
	for (int c = 0; c < conns; c++) {
		buses[c] = system_bus_open("rt-client");
		if (!buses[c])
			return 2;
	}
	for (int i = 0; i < n; i++)
		for (int c = 0; c < conns; c++) {
			DBusMessage *m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH,
								      NATIVE_IFACE, method);

			if (!m ||
			    (streq(method, "Explain") &&
			     !dbus_message_append_args(m, DBUS_TYPE_UINT32, &uid,
						       DBUS_TYPE_INVALID)) ||
			    !dbus_connection_send_with_reply(buses[c], m, &calls[(size_t)c * n + i],
							     CALL_TIMEOUT_MS) ||
			    !calls[(size_t)c * n + i])
				return 2;
			dbus_message_unref(m);
		}
	for (int c = 0; c < conns; c++)
		dbus_connection_flush(buses[c]);
	for (size_t i = 0; i < (size_t)conns * n; i++)
		tally_add(&t, calls[i]);
	tally_print(&t, "ok");
	for (int c = 0; c < conns; c++) {
		dbus_connection_close(buses[c]);
		dbus_connection_unref(buses[c]);
	}
	return 0;
}
