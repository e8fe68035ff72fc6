// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fair-order FLOOD_USER VICTIM_USER CONNS CALLS: whether realtimed serves
 * one user's call behind another user's whole burst (test-fair.sh).
 * fair-order --close-at-once FLOOD_USER VICTIM_USER SECS CALLS: the same
 * against connections that close at once (below).
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
 *
 * --close-at-once: for SECS seconds, CLOSE_WORKERS processes of FLOOD_USER
 * each open a connection, send CALLS calls that want no reply
 * (MakeThreadRealtime rr 99 for a thread of their own, past any policy
 * without a [User] rule, so that a call served costs no polkit question)
 * and close it at once, again and again (issue 31: realtimed never learned
 * such senders' uid, served each call in a turn of its own and spent two
 * blocking bus round trips on it). Meanwhile VICTIM_USER asks for fifo 1
 * on its own thread every VICTIM_GAP_MS, CLOSE_VICTIM_CALLS times, each
 * call timed. Prints
 *	flood connections=N calls=N usec=T
 *	victim calls=N ok=N max_usec=T
 *	victim times_ms=T,T,...
 * Exit 0 when both sides ran to the end, 2 otherwise.
 */
#include <dbus/dbus.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "../close-flood.h"

#define CALL_TIMEOUT_MS 60000
#define VICTIM_CALLS 3
#define CLOSE_WORKERS 2
#define CLOSE_VICTIM_CALLS 25
#define VICTIM_GAP_MS 200
/* a victim's call past this is failed, not waited for; past
 * VICTIM_DEADLINE_MS from the flood's start it asks no more */
#define VICTIM_TIMEOUT_MS 5000
#define VICTIM_DEADLINE_MS (CLOSE_VICTIM_CALLS * VICTIM_GAP_MS + 15000)

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

static int flood(const char *user, int conns, int calls, int ready_fd)
{
	DBusConnection **bus = calloc((size_t)conns, sizeof(*bus));
	DBusPendingCall **p = calloc((size_t)conns * (size_t)calls, sizeof(*p));
	unsigned answered = 0;
	uint64_t t0;

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
	t0 = mono_usec();
	if (write(ready_fd, &t0, sizeof(t0)) != sizeof(t0))
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
	       (unsigned long long)(mono_usec() - t0));
	return 0;
}

/* MakeThreadRealtime(0, the calling thread, policy, prio), or NULL. */
static DBusMessage *grant_msg(const char *policy, dbus_uint32_t prio)
{
	dbus_uint64_t pid = 0, tid = (dbus_uint64_t)gettid();
	DBusMessage *m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
						      "MakeThreadRealtime");

	if (m && !dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
					   DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &prio,
					   DBUS_TYPE_INVALID)) {
		dbus_message_unref(m);
		m = NULL;
	}
	return m;
}

/* The victim's call i: fifo 1 on its own thread. 1 when granted, 0 when
 * not (said on stderr), -1 when it could not ask; *ret_usec how long the
 * answer took. */
static int victim_call(DBusConnection *bus, int i, int timeout_ms, uint64_t *ret_usec)
{
	DBusMessage *m = grant_msg("fifo", 1), *r;
	DBusError err;
	uint64_t a;

	if (!m)
		return -1;
	dbus_error_init(&err);
	a = mono_usec();
	r = dbus_connection_send_with_reply_and_block(bus, m, timeout_ms, &err);
	*ret_usec = mono_usec() - a;
	dbus_message_unref(m);
	if (!r) {
		fprintf(stderr, "fair-order: victim's call %d failed after %llu us: %s: %s\n", i,
			(unsigned long long)*ret_usec, err.name, err.message);
		dbus_error_free(&err);
		return 0;
	}
	dbus_message_unref(r);
	return 1;
}

static int victim(const char *user, int ready_fd)
{
	DBusConnection *bus;
	unsigned ok = 0;
	uint64_t t0, took;

	if (become(user) < 0 || !(bus = connect_bus()))
		return 2;
	if (read(ready_fd, &t0, sizeof(t0)) != sizeof(t0))
		return 2;
	for (int i = 0; i < VICTIM_CALLS; i++) {
		int k = victim_call(bus, i, CALL_TIMEOUT_MS, &took);

		if (k < 0)
			return 2;
		ok += (unsigned)k;
	}
	printf("victim calls=%d ok=%u usec=%llu\n", VICTIM_CALLS, ok,
	       (unsigned long long)(mono_usec() - t0));
	return 0;
}

static DBusMessage *flood_call(unsigned i, void *userdata)
{
	return grant_msg("rr", 99);
}

/* Counted by the flood's workers, read by its parent. */
typedef struct Counts {
	long connections, calls;
} Counts;

static int close_flood(const char *user, int secs, int calls, int ready_fd)
{
	Counts *all = mmap(NULL, sizeof(Counts) * CLOSE_WORKERS, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t t0 = mono_usec(), end = t0 + (uint64_t)secs * 1000000;
	long connections = 0, sent = 0;
	pid_t workers[CLOSE_WORKERS];
	int rc = 0, status;

	if (all == MAP_FAILED || become(user) < 0)
		return 2;
	for (int w = 0; w < CLOSE_WORKERS; w++) {
		workers[w] = fork();
		if (workers[w] < 0)
			return 2;
		if (workers[w] > 0)
			continue;
		while (mono_usec() < end) {
			long n = close_flood_round((unsigned)calls, flood_call, NULL);

			if (n < 0)
				_exit(2);
			all[w].connections++;
			all[w].calls += n;
			/* the first round is on the wire: the victim may start */
			if (w == 0 && all[w].connections == 1 &&
			    write(ready_fd, &t0, sizeof(t0)) != sizeof(t0))
				_exit(2);
		}
		_exit(0);
	}
	close(ready_fd);
	for (int w = 0; w < CLOSE_WORKERS; w++) {
		if (waitpid(workers[w], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			rc = 2;
		connections += all[w].connections;
		sent += all[w].calls;
	}
	printf("flood connections=%ld calls=%ld usec=%llu\n", connections, sent,
	       (unsigned long long)(mono_usec() - t0));
	return rc;
}

/* fifo 1 on the caller's own thread every VICTIM_GAP_MS while the flood
 * runs, each call timed. */
static int close_victim(const char *user, int ready_fd)
{
	char times[CLOSE_VICTIM_CALLS * 8] = "";
	uint64_t t0, max = 0, took;
	DBusConnection *bus;
	unsigned ok = 0;
	size_t len = 0;
	int i;

	if (become(user) < 0 || !(bus = connect_bus()))
		return 2;
	if (read(ready_fd, &t0, sizeof(t0)) != sizeof(t0))
		return 2;
	for (i = 0; i < CLOSE_VICTIM_CALLS && mono_usec() - t0 < VICTIM_DEADLINE_MS * 1000ULL;
	     i++) {
		int k = victim_call(bus, i, VICTIM_TIMEOUT_MS, &took);

		if (k < 0)
			return 2;
		ok += (unsigned)k;
		if (took > max)
			max = took;
		if (len < sizeof(times))
			len += (size_t)snprintf(times + len, sizeof(times) - len, "%s%llu",
						i ? "," : "", (unsigned long long)took / 1000);
		usleep(VICTIM_GAP_MS * 1000);
	}
	printf("victim calls=%d ok=%u max_usec=%llu\n", i, ok, (unsigned long long)max);
	printf("victim times_ms=%s\n", times);
	return 0;
}

/* Runs victim_fn as victim_user and flood_fn(flood_user, a, b) side by
 * side; the flood tells the victim through the pipe when it has begun. */
static int run_both(int (*victim_fn)(const char *, int),
		    int (*flood_fn)(const char *, int, int, int), const char *flood_user,
		    const char *victim_user, int a, int b)
{
	int ready[2], status, rc = 0;
	pid_t flooder, vic;

	if (pipe(ready) < 0)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	vic = fork();
	if (vic == 0) {
		close(ready[1]);
		_exit(victim_fn(victim_user, ready[0]));
	}
	flooder = fork();
	if (flooder == 0) {
		close(ready[0]);
		_exit(flood_fn(flood_user, a, b, ready[1]));
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

int main(int argc, char **argv)
{
	int a, b;

	if (argc == 6 && strcmp(argv[1], "--close-at-once") == 0 && (a = atoi(argv[4])) > 0 &&
	    a <= 600 && (b = atoi(argv[5])) > 0 && b <= 256)
		return run_both(close_victim, close_flood, argv[2], argv[3], a, b);
	if (argc != 5 || (a = atoi(argv[3])) <= 0 || a > 64 || (b = atoi(argv[4])) <= 0 ||
	    b > 120) {
		fprintf(stderr,
			"usage: fair-order FLOOD_USER VICTIM_USER CONNS(1-64) CALLS(1-120)\n"
			"       fair-order --close-at-once FLOOD_USER VICTIM_USER SECS(1-600) "
			"CALLS(1-256)\n");
		return 2;
	}
	return run_both(victim, flood, argv[1], argv[2], a, b);
}
