// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rt-client crowd: many uids, each asking realtimed once from a pid
 * namespace below realtimed's, for the test that such a crowd takes no
 * one's place (test-crowd.sh; rt-client.c lists the other subcommands).
 *
 *   rt-client crowd FIRST_UID N [--jobs J]
 *	Started as root: makes a new pid namespace and, in it, N processes,
 *	J at a time (default 8), the i-th of them running as uid FIRST_UID+i
 *	(a uid the bus must take: dbus-daemon takes only uids that NSS
 *	knows). Each connects to
 *	the system bus and asks MakeThreadHighPriority of pid 1 of its
 *	namespace (the crowd's first process, root's): an id that realtimed
 *	searches the caller's namespace for before it looks at any policy.
 *	Prints "NAME COUNT" for each answer given (an error name, "ok",
 *	"no-connection" or "other"; each other error is told on stderr);
 *	exit 0 when every process ran, 2 on anything else.
 */
#include <dbus/dbus.h>
#include <grp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "rt-client.h"
#include "../system-bus.h"

/* The answers a member can give, as its exit status. */
enum { ANSWER_NO_SUCH_PROCESS, ANSWER_RATE_LIMITED, ANSWER_OK, ANSWER_NO_CONNECTION, ANSWER_OTHER };
static const char *const answers[] = {
	[ANSWER_NO_SUCH_PROCESS] = NATIVE_ERROR "NoSuchProcess",
	[ANSWER_RATE_LIMITED] = NATIVE_ERROR "RateLimited",
	[ANSWER_OK] = "ok",
	[ANSWER_NO_CONNECTION] = "no-connection",
	[ANSWER_OTHER] = "other",
};

/* One member of the crowd, as uid: its answer's index in answers[]. */
static int member(uid_t uid)
{
	uint64_t pid = 1, tid = 0;
	int32_t nice = 0;
	DBusConnection *bus;
	DBusError err;
	DBusMessage *m;

	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		return ANSWER_NO_CONNECTION;
	bus = system_bus_open("rt-client crowd");
	if (!bus)
		return ANSWER_NO_CONNECTION;
	m = bus_method(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE, "MakeThreadHighPriority",
		       DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid, DBUS_TYPE_INT32, &nice,
		       DBUS_TYPE_INVALID);
	if (bus_call(bus, m, 60000, &err))
		return ANSWER_OK;
	if (err.name && streq(err.name, answers[ANSWER_NO_SUCH_PROCESS]))
		return ANSWER_NO_SUCH_PROCESS;
	if (err.name && streq(err.name, answers[ANSWER_RATE_LIMITED]))
		return ANSWER_RATE_LIMITED;
	fprintf(stderr, "rt-client crowd: uid %u: %s: %s\n", (unsigned)uid, err.name ?: "?",
		err.message ?: "");
	return ANSWER_OTHER;
}

/* Reaps one member into count[]; false when none is left. */
static bool reap(unsigned count[])
{
	int status;

	if (wait(&status) < 0)
		return false;
	if (WIFEXITED(status) && (size_t)WEXITSTATUS(status) < ELEMENTSOF(answers))
		count[WEXITSTATUS(status)]++;
	else
		count[ANSWER_OTHER]++;
	return true;
}

/* pid 1 of the crowd's namespace: starts the members, J at a time. */
static int crowd(uid_t first, unsigned n, unsigned jobs)
{
	unsigned count[ELEMENTSOF(answers)] = { 0 }, running = 0;

	for (unsigned i = 0; i < n; i++) {
		pid_t p;

		if (running == jobs && reap(count))
			running--;
		p = fork();
		if (p < 0) {
			perror("rt-client crowd: fork");
			return 2;
		}
		if (p == 0)
			_exit(member(first + i));
		running++;
	}
	while (reap(count))
		;
	for (size_t i = 0; i < ELEMENTSOF(answers); i++)
		if (count[i])
			printf("%s %u\n", answers[i], count[i]);
	fflush(stdout);
	return 0;
}

int cmd_crowd(int argc, char **argv)
{
	unsigned jobs = 8;
	int status;
	pid_t p;

	if (argc < 4)
		return 2;
	for (int i = 4; i + 1 < argc; i++)
		if (streq(argv[i], "--jobs"))
			jobs = (unsigned)atoi(argv[++i]);
	if (jobs == 0)
		jobs = 1;
	if (unshare(CLONE_NEWPID) < 0) {
		perror("rt-client crowd: unshare(CLONE_NEWPID)");
		return 2;
	}
	p = fork();
	if (p < 0)
		return 2;
	if (p == 0)
		_exit(crowd((uid_t)strtoul(argv[2], NULL, 10), (unsigned)atoi(argv[3]), jobs));
	if (waitpid(p, &status, 0) < 0 || !WIFEXITED(status))
		return 2;
	return WEXITSTATUS(status);
}
