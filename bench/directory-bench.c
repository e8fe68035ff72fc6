/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * directory-bench: the clients of bench/directory-bench.sh, which compares
 * users of an LDAP directory with users of /etc. Each user is a process of
 * its own, forked here and switched to the user's uid (no NSS lookup on
 * this side: realtimed resolves the uid itself), so that every request is
 * realtimed's first of that user, not one its per-user cache answers.
 * Grants go to a thread that only sleeps (blocked on a pipe).
 *
 *   directory-bench grant POLICY PRIO UID...
 *       one user after another: connect, then time MakeThreadRealtime of
 *       the native interface alone; prints n, ok, refused, p50/p99/max (us)
 *   directory-bench hold POLICY PRIO UID...
 *       one process per uid, each holding one granted thread, started one
 *       after another; prints how many were granted, then waits for a line
 *       on stdin (or its end) and lets them all go
 */
#include <dbus/dbus.h>
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bus-names.h"
#include "macro.h"
#include "percentile.h"
#include "../tests/sleeper.h"

static int sleeper_pipe[2];
/* hold's write end of the release pipe: no child may keep it open */
static int release_write = -1;

/* A sleeping thread with a small stack (2,048 of them must fit). */
static pid_t sleeper_start(void)
{
	static SleeperThread s;
	pthread_attr_t a;

	if (pipe(sleeper_pipe) < 0)
		return -1;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	if (sleeper_thread_start(&s, sleeper_pipe[0], &a) != 0)
		return -1;
	return s.tid;
}

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* In the child: become uid (and a gid of the same number, no supplementary
 * groups), connect, make a sleeping thread realtime. Writes "USEC ok" or
 * "USEC ERROR.NAME" to fd. */
static void child_grant(uid_t uid, const char *policy, unsigned prio, int fd)
{
	struct rlimit rl = { 200000, 200000 };
	dbus_uint64_t pid, tid;
	dbus_uint32_t p = prio;
	DBusConnection *bus;
	DBusMessage *m, *reply;
	DBusError err;
	uint64_t t0, t1;
	char line[256];

	/* realtimed's [Default] RTTime=200ms: a thread asks within it */
	(void)setrlimit(RLIMIT_RTTIME, &rl);
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		_exit(3);
	dbus_error_init(&err);
	bus = dbus_bus_get_private(DBUS_BUS_SYSTEM, &err);
	if (!bus) {
		dprintf(fd, "0 connect:%s\n", err.message);
		_exit(2);
	}
	dbus_connection_set_exit_on_disconnect(bus, false);
	tid = (dbus_uint64_t)sleeper_start();
	pid = (dbus_uint64_t)getpid();
	m = dbus_message_new_method_call(NATIVE_NAME, NATIVE_PATH, NATIVE_IFACE,
					 "MakeThreadRealtime");
	if (!m || !dbus_message_append_args(m, DBUS_TYPE_UINT64, &pid, DBUS_TYPE_UINT64, &tid,
					    DBUS_TYPE_STRING, &policy, DBUS_TYPE_UINT32, &p,
					    DBUS_TYPE_INVALID))
		_exit(2);
	t0 = now_usec();
	reply = dbus_connection_send_with_reply_and_block(bus, m, 60000, &err);
	t1 = now_usec();
	snprintf(line, sizeof(line), "%llu %s\n", (unsigned long long)(t1 - t0),
		 reply ? "ok" : (err.name ? err.name : "?"));
	if (write(fd, line, strlen(line)) < 0)
		_exit(2);
	if (reply)
		dbus_message_unref(reply);
	dbus_error_free(&err);
	dbus_message_unref(m);
	/* the connection stays open while the grant is held, as a JACK
	 * client's does; exit closes it */
}

/* Fork a child for uid; returns its pid, and the read end of its pipe. */
static pid_t spawn(uid_t uid, const char *policy, unsigned prio, int release_fd, int *ret_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;

		close(p[0]);
		if (release_write >= 0)
			close(release_write);
		child_grant(uid, policy, prio, p[1]);
		close(p[1]);
		if (release_fd >= 0)
			while (read(release_fd, &c, 1) < 0 && errno == EINTR)
				;
		_exit(0);
	}
	close(p[1]);
	*ret_fd = p[0];
	return pid;
}

/* The child's answer line: microseconds, and whether it was granted. */
static int answer(int fd, uint64_t *ret_usec, char *error, size_t size)
{
	char buf[256];
	ssize_t n;
	unsigned long long us;

	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (sscanf(buf, "%llu %255s", &us, error) != 2)
		return -EIO;
	error[size - 1] = '\0';
	*ret_usec = us;
	return streq(error, "ok") ? 0 : 1;
}

static int cmd_grant(const char *policy, unsigned prio, int n, char **uids)
{
	uint64_t *v = calloc(n, sizeof(uint64_t));
	int ok = 0, refused = 0, failed = 0;
	char first[256] = "";

	if (!v)
		return 2;
	for (int i = 0; i < n; i++) {
		char error[256];
		uint64_t us;
		int fd, r, status;
		pid_t pid = spawn((uid_t)strtoul(uids[i], NULL, 10), policy, prio, -1, &fd);

		if (pid < 0)
			return 2;
		r = answer(fd, &us, error, sizeof(error));
		waitpid(pid, &status, 0);
		if (r < 0) {
			failed++;
			continue;
		}
		if (r > 0) {
			refused++;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", error);
			continue;
		}
		v[ok++] = us;
	}
	uint64_t max = 0;
	for (int i = 0; i < ok; i++)
		max = v[i] > max ? v[i] : max;
	printf("grant n=%d ok=%d refused=%d failed=%d p50_us=%llu p99_us=%llu max_us=%llu%s%s\n", n,
	       ok, refused, failed, (unsigned long long)percentile(v, ok, 50),
	       (unsigned long long)percentile(v, ok, 99), (unsigned long long)max,
	       first[0] ? " first_refusal=" : "", first);
	free(v);
	return failed ? 1 : 0;
}

static int cmd_hold(const char *policy, unsigned prio, int n, char **uids)
{
	pid_t *pids = calloc(n, sizeof(pid_t));
	int release[2], ok = 0, refused = 0, failed = 0;
	char first[256] = "", c;
	uint64_t t0 = now_usec();

	if (!pids || pipe(release) < 0)
		return 2;
	release_write = release[1];
	for (int i = 0; i < n; i++) {
		char error[256];
		uint64_t us;
		int fd, r;

		pids[i] = spawn((uid_t)strtoul(uids[i], NULL, 10), policy, prio, release[0], &fd);
		if (pids[i] < 0) {
			failed++;
			continue;
		}
		r = answer(fd, &us, error, sizeof(error));
		if (r == 0)
			ok++;
		else if (r > 0) {
			refused++;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", error);
		} else
			failed++;
	}
	printf("hold n=%d granted=%d refused=%d failed=%d secs=%.1f%s%s\n", n, ok, refused, failed,
	       (double)(now_usec() - t0) / 1e6, first[0] ? " first_refusal=" : "", first);
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0 && c != '\n')
		;
	close(release[1]);
	close(release[0]);
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	free(pids);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && streq(argv[1], "grant"))
		return cmd_grant(argv[2], (unsigned)atoi(argv[3]), argc - 4, argv + 4);
	if (argc >= 5 && streq(argv[1], "hold"))
		return cmd_hold(argv[2], (unsigned)atoi(argv[3]), argc - 4, argv + 4);
	fprintf(stderr, "usage: directory-bench grant|hold POLICY PRIO UID...\n");
	return 2;
}
