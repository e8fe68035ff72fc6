// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fair-order FLOOD_USER VICTIM_USER CONNS CALLS: whether realtimed serves
 * one user's call behind another user's whole burst (test-fair.sh).
 *
 * As FLOOD_USER, CONNS connections put CALLS ListAllGrants calls each on
 * the wire before reading an answer. As VICTIM_USER (with its groups), once
 * the burst is written, one connection asks MakeThreadRealtime for its own
 * thread (fifo 1) three times, one call after the other. Prints
 *	flood calls=N answered=N usec=T
 *	victim calls=3 ok=N usec=T
 * both times counted from the moment the burst was written. Served in
 * arrival order, the victim's first answer comes after most of the burst's;
 * served fairly, its three answers come long before the burst's last.
 * Exit 0 when both sides ran to the end, 2 otherwise.
 */
#include <dbus/dbus.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"

#define CALL_TIMEOUT_MS 60000
#define VICTIM_CALLS 3

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Becomes USER with its groups (the victim must count as an audio member). */
static int become(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (!pw) {
		fprintf(stderr, "fair-order: no user %s\n", user);
		return -1;
	}
	if (initgroups(user, pw->pw_gid) < 0 || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0) {
		perror("fair-order: cannot change user");
		return -1;
	}
	return 0;
}

static DBusConnection *connect_bus(void)
{
	DBusError err;
	DBusConnection *c;

	dbus_error_init(&err);
	c = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
	if (!c) {
		fprintf(stderr, "fair-order: cannot connect: %s\n", err.message);
		dbus_error_free(&err);
		return NULL;
	}
	dbus_connection_set_exit_on_disconnect(c, FALSE);
	return c;
}

static int flood(const char *user, int conns, int calls, int ready_fd, uint64_t *t0)
{
	DBusConnection **bus = calloc((size_t)conns, sizeof(*bus));
	DBusPendingCall **p = calloc((size_t)conns * (size_t)calls, sizeof(*p));
	unsigned answered = 0;

	if (!bus || !p || become(user) < 0)
		return 2;
	for (int c = 0; c < conns; c++)
		if (!(bus[c] = connect_bus()))
			return 2;
	for (int i = 0; i < calls; i++)
		for (int c = 0; c < conns; c++) {
			DBusMessage *m = dbus_message_new_method_call(
				NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "ListAllGrants");

			if (!m || !dbus_connection_send_with_reply(
					  bus[c], m, &p[(size_t)c * calls + i], CALL_TIMEOUT_MS))
				return 2;
			dbus_message_unref(m);
		}
	for (int c = 0; c < conns; c++)
		dbus_connection_flush(bus[c]);
	*t0 = mono_usec();
	if (write(ready_fd, t0, sizeof(*t0)) != sizeof(*t0))
		return 2;
	for (size_t i = 0; i < (size_t)conns * calls; i++) {
		DBusMessage *r;

		dbus_pending_call_block(p[i]);
		r = dbus_pending_call_steal_reply(p[i]);
		if (r) {
			answered++;
			dbus_message_unref(r);
		}
		dbus_pending_call_unref(p[i]);
	}
	printf("flood calls=%d answered=%u usec=%llu\n", conns * calls, answered,
	       (unsigned long long)(mono_usec() - *t0));
	return 0;
}

static int victim(const char *user, int ready_fd)
{
	dbus_uint64_t pid = 0, tid = (dbus_uint64_t)gettid();
	const char *policy = "fifo";
	dbus_uint32_t prio = 1;
	DBusConnection *bus;
	unsigned ok = 0;
	uint64_t t0;

	if (become(user) < 0 || !(bus = connect_bus()))
		return 2;
	if (read(ready_fd, &t0, sizeof(t0)) != sizeof(t0))
		return 2;
	for (int i = 0; i < VICTIM_CALLS; i++) {
		DBusMessage *m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH,
							      NATIVE_IFACE, "MakeThreadRealtime");
		DBusMessage *r;
		DBusError err;

		if (!m || !dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64,
						    &tid, DBUS_TYPE_STRING, &policy,
						    DBUS_TYPE_UINT32, &prio, DBUS_TYPE_INVALID))
			return 2;
		dbus_error_init(&err);
		r = dbus_connection_send_with_reply_and_block(bus, m, CALL_TIMEOUT_MS, &err);
		dbus_message_unref(m);
		if (r) {
			ok++;
			dbus_message_unref(r);
		} else {
			fprintf(stderr, "fair-order: victim's call failed: %s\n", err.message);
			dbus_error_free(&err);
		}
	}
	printf("victim calls=%d ok=%u usec=%llu\n", VICTIM_CALLS, ok,
	       (unsigned long long)(mono_usec() - t0));
	return 0;
}

int main(int argc, char **argv)
{
	int ready[2], conns, calls, status, rc = 0;
	pid_t flooder, vic;
	uint64_t t0 = 0;

	if (argc != 5 || (conns = atoi(argv[3])) <= 0 || conns > 64 ||
	    (calls = atoi(argv[4])) <= 0 || calls > 120) {
		fprintf(stderr,
			"usage: fair-order FLOOD_USER VICTIM_USER CONNS(1-64) CALLS(1-120)\n");
		return 2;
	}
	if (pipe(ready) < 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	vic = fork();
	if (vic == 0) {
		close(ready[1]);
		_exit(victim(argv[2], ready[0]));
	}
	flooder = fork();
	if (flooder == 0) {
		close(ready[0]);
		_exit(flood(argv[1], conns, calls, ready[1], &t0));
	}
	close(ready[0]);
	close(ready[1]);
	if (vic < 0 || flooder < 0)
		return 2;
	if (waitpid(vic, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = 2;
	if (waitpid(flooder, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rc = 2;
	return rc;
}
