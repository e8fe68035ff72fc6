// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * librealtime against mock-realtimed on a private bus (no root, no real
 * daemon): the native calls are sent with pid 0 and the calling thread's
 * tid, GrantLimits' answer fills struct realtime_limits, a refusal keeps
 * the daemon's message, a child of fork() asks on a connection of its own
 * (the bus, not the library, tells the mock who called: the child's pid)
 * and has closed the parent's socket, but never an fd of the application's
 * that took the number of a socket libdbus closed, threads whose first
 * calls race share one connection, and when the service leaves the bus
 * the next call says so and the one after it finds the service again.
 *
 * usage: test-librealtime-bus PATH/mock-realtimed
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check-main.h"
#include "librealtime.h"

static char work[] = "/tmp/test-librealtime-bus-XXXXXX";
static const char *mock_path;
static char log_path[256], pid_path[256];
static pid_t bus_pid;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static bool name_has_owner(void)
{
	return system("dbus-send --system --print-reply --dest=org.freedesktop.DBus "
		      "/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "
		      "string:org.realtimed.Realtime1 2>/dev/null | grep -q 'boolean true'") == 0;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Starts mock-realtimed and waits until it owns its name; its pid goes to
 * pid_path, for whoever stops it. */
static pid_t mock_start(void)
{
	char *argv[] = { (char *)mock_path, log_path, NULL };
	pid_t pid = spawn(argv);
	FILE *f;

	for (int i = 0; i < 100 && !name_has_owner(); i++)
		usleep(50 * 1000);
	f = fopen(pid_path, "we");
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	return pid;
}

static void mock_stop(void)
{
	FILE *f = fopen(pid_path, "re");
	int pid = 0;

	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	if (pid > 0) {
		kill(pid, SIGTERM);
		/* not always our child: wait until the bus has seen it go */
		waitpid(pid, NULL, 0);
		for (int i = 0; i < 100 && name_has_owner(); i++)
			usleep(50 * 1000);
	}
}

/* The mock's log has exactly this line (its caller= included). */
static bool logged(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool logged(const char *fmt, ...)
{
	char want[256], line[256];
	bool found = false;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	f = fopen(log_path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = strcmp(line, want) == 0;
	}
	fclose(f);
	return found;
}

START_TEST(test_native_requests)
{
	int pid = getpid(), tid = gettid_();

	ck_assert_int_eq(realtime_service(), REALTIME_SERVICE_REALTIMED);
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 50), 0);
	ck_assert_msg(logged("MakeThreadRealtime caller=%d 0 %d fifo 50", pid, tid),
		      "MakeThreadRealtime(0, %d, fifo, 50) not sent", tid);
	ck_assert_int_eq(realtime_make_thread_realtime(tid, SCHED_RR, 40), 0);
	ck_assert(logged("MakeThreadRealtime caller=%d 0 %d rr 40", pid, tid));
	ck_assert_int_eq(realtime_make_thread_high_priority(0, -7), 0);
	ck_assert(logged("MakeThreadHighPriority caller=%d 0 %d -7", pid, tid));
	ck_assert_int_eq(realtime_reset_thread(0), 0);
	ck_assert(logged("ResetThread caller=%d 0 %d", pid, tid));
	ck_assert_str_eq(realtime_error_message(), "");
}
END_TEST

START_TEST(test_refusal_keeps_the_message)
{
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 95), -EPERM);
	ck_assert_str_eq(realtime_error_message(), "priority 95 exceeds the limit 90 for user mock "
						   "(/etc/realtime/realtime.conf:14)");
	/* the next call starts with no message */
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 5), 0);
	ck_assert_str_eq(realtime_error_message(), "");
	/* the mock has no Properties: an older service */
	int v;
	ck_assert_int_eq(realtime_get_max_realtime_priority(&v), -EOPNOTSUPP);
}
END_TEST

START_TEST(test_grant_limits)
{
	struct realtime_limits l;
	struct rlimit rl;

	memset(&l, 0xaa, sizeof(l));
	ck_assert_int_eq(realtime_grant_limits(&l), 0);
	ck_assert(logged("GrantLimits caller=%d 0", (int)getpid()));
	/* the mock sets RLIMIT_RTTIME only */
	ck_assert_int_eq(l.has_rttime, 1);
	ck_assert_uint_eq(l.rttime, 123456);
	ck_assert_int_eq(l.has_rtprio, 0);
	ck_assert_int_eq(l.has_memlock, 0);
	ck_assert_int_eq(l.has_nice, 0);
	ck_assert_int_eq(getrlimit(RLIMIT_RTTIME, &rl), 0);
	ck_assert_uint_eq(rl.rlim_max, 123456);
	ck_assert_int_eq(realtime_grant_limits(NULL), 0);
}
END_TEST

/* The inodes of the sockets this process holds, as "socket:[N]", and
 * their fd numbers into fds unless it is NULL. */
static size_t sockets_of_fds(char out[][64], int fds[], size_t max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		char path[300], target[64];
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		k = readlink(path, target, sizeof(target) - 1);
		if (k <= 0)
			continue;
		target[k] = '\0';
		if (strncmp(target, "socket:", 7) != 0)
			continue;
		if (fds)
			fds[n] = atoi(de->d_name);
		snprintf(out[n++], 64, "%s", target);
	}
	closedir(d);
	return n;
}

static size_t sockets_of_self(char out[][64], size_t max)
{
	return sockets_of_fds(out, NULL, max);
}

static bool holds_socket(const char *inode)
{
	char now[64][64];
	size_t n = sockets_of_self(now, 64);

	for (size_t i = 0; i < n; i++)
		if (strcmp(now[i], inode) == 0)
			return true;
	return false;
}

START_TEST(test_fork_child_opens_its_own)
{
	char before[64][64], after[64][64], bus_socket[64] = "";
	size_t nb, na;
	int status = -1;
	pid_t child;

	nb = sockets_of_self(before, 64);
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 10), 0);
	na = sockets_of_self(after, 64);
	for (size_t i = 0; i < na && !*bus_socket; i++) {
		bool old = false;

		for (size_t j = 0; j < nb; j++)
			old = old || strcmp(after[i], before[j]) == 0;
		if (!old)
			snprintf(bus_socket, sizeof(bus_socket), "%s", after[i]);
	}
	ck_assert_msg(*bus_socket, "the first call opened no socket");

	child = fork();
	if (child == 0) {
		/* the parent's socket is closed at once, before any call */
		if (holds_socket(bus_socket))
			_exit(10);
		if (realtime_make_thread_realtime(0, SCHED_FIFO, 11) != 0)
			_exit(11);
		if (!logged("MakeThreadRealtime caller=%d 0 %d fifo 11", (int)getpid(), gettid_()))
			_exit(12);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status), "the child died");
	ck_assert_msg(WEXITSTATUS(status) != 10, "the child still holds the parent's bus socket");
	ck_assert_msg(WEXITSTATUS(status) != 11, "the child's call failed");
	ck_assert_msg(WEXITSTATUS(status) != 12, "the bus did not see the child as the caller");
	ck_assert_int_eq(WEXITSTATUS(status), 0);

	/* and the parent's connection is as it was */
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 12), 0);
	ck_assert(logged("MakeThreadRealtime caller=%d 0 %d fifo 12", (int)getpid(), gettid_()));
	ck_assert(holds_socket(bus_socket));
}
END_TEST

/* The bus drops the connection; libdbus closes its socket when the next
 * call finds out; the application opens a file that gets the socket's
 * number; then it forks. The child must still have the application's
 * file: the fork handler may close only the bus socket itself. */
START_TEST(test_fork_after_disconnect_keeps_app_fd)
{
	char before[64][64], after[64][64];
	int fds[64], bus_fd = -1, app_fd, status = -1;
	size_t nb, na;
	struct stat want;
	pid_t child;

	nb = sockets_of_self(before, 64);
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 10), 0);
	na = sockets_of_fds(after, fds, 64);
	for (size_t i = 0; i < na && bus_fd < 0; i++) {
		bool old = false;

		for (size_t j = 0; j < nb; j++)
			old = old || strcmp(after[i], before[j]) == 0;
		if (!old)
			bus_fd = fds[i];
	}
	ck_assert_msg(bus_fd >= 0, "the first call opened no socket");

	/* the bus hangs up; the next call finds out, and libdbus closes the fd */
	ck_assert_int_eq(shutdown(bus_fd, SHUT_RDWR), 0);
	ck_assert_int_ne(realtime_make_thread_realtime(0, SCHED_FIFO, 11), 0);
	ck_assert_msg(fcntl(bus_fd, F_GETFD) < 0 && errno == EBADF,
		      "libdbus did not close fd %d of the dropped connection", bus_fd);

	/* the application's next file gets that number */
	app_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(app_fd, 0);
	if (app_fd != bus_fd) {
		ck_assert_int_eq(dup2(app_fd, bus_fd), bus_fd);
		close(app_fd);
	}
	ck_assert_int_eq(fstat(bus_fd, &want), 0);

	child = fork();
	if (child == 0) {
		struct stat st;

		if (fstat(bus_fd, &st) < 0)
			_exit(10);
		if (st.st_dev != want.st_dev || st.st_ino != want.st_ino)
			_exit(11);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status), "the child died");
	ck_assert_msg(WEXITSTATUS(status) != 10,
		      "the fork handler closed fd %d, the application's /dev/null", bus_fd);
	ck_assert_msg(WEXITSTATUS(status) != 11, "fd %d is another file in the child", bus_fd);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	/* and the parent connects afresh */
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 12), 0);
	ck_assert(logged("MakeThreadRealtime caller=%d 0 %d fifo 12", (int)getpid(), gettid_()));
}
END_TEST

/* Threads whose first calls race: one connection is opened, and each
 * request names its own thread. */
#define N_RACERS 8
static pthread_barrier_t racers_ready;
static int racer_result[N_RACERS];
static pid_t racer_tid[N_RACERS];

static void *racer(void *arg)
{
	int i = (int)(long)arg;

	racer_tid[i] = gettid_();
	pthread_barrier_wait(&racers_ready);
	racer_result[i] = realtime_make_thread_realtime(0, SCHED_FIFO, 30 + i);
	return NULL;
}

START_TEST(test_threads_race_to_connect)
{
	char before[64][64];
	size_t nb = sockets_of_self(before, 64);
	pthread_t t[N_RACERS];

	ck_assert_int_eq(pthread_barrier_init(&racers_ready, NULL, N_RACERS), 0);
	for (long i = 0; i < N_RACERS; i++)
		ck_assert_int_eq(pthread_create(&t[i], NULL, racer, (void *)i), 0);
	for (int i = 0; i < N_RACERS; i++) {
		ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		ck_assert_msg(racer_result[i] == 0, "thread %d: %d", i, racer_result[i]);
		ck_assert_msg(logged("MakeThreadRealtime caller=%d 0 %d fifo %d", (int)getpid(),
				     (int)racer_tid[i], 30 + i),
			      "thread %d's request not sent as its own", i);
	}
	char after[64][64];
	ck_assert_uint_eq(sockets_of_self(after, 64), nb + 1);
}
END_TEST

START_TEST(test_service_leaves_and_returns)
{
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_RR, 20), 0);
	mock_stop();
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_RR, 21), -ENXIO);
	ck_assert_ptr_nonnull(strstr(realtime_error_message(), "Neither realtimed"));
	mock_start();
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_RR, 22), 0);
	ck_assert(logged("MakeThreadRealtime caller=%d 0 %d rr 22", (int)getpid(), gettid_()));
}
END_TEST

static int bus_start(void)
{
	char conf[300], address[300], flag[320], sock[300];
	char *argv[] = { "dbus-daemon", flag, "--nofork", "--nopidfile", NULL };
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/bus.conf", work);
	f = fopen(conf, "we");
	if (!f)
		return -errno;
	fprintf(f,
		"<!DOCTYPE busconfig PUBLIC \"-//freedesktop//DTD D-Bus Bus Configuration "
		"1.0//EN\"\n"
		" \"http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd\">\n"
		"<busconfig>\n"
		"  <type>system</type>\n"
		"  <listen>unix:path=%s/bus</listen>\n"
		"  <auth>EXTERNAL</auth>\n"
		"  <policy context=\"default\">\n"
		"    <allow user=\"*\"/><allow own=\"*\"/>\n"
		"    <allow send_type=\"method_call\"/><allow send_destination=\"*\"/>\n"
		"    <allow receive_type=\"method_call\"/><allow receive_type=\"method_return\"/>\n"
		"    <allow receive_type=\"error\"/><allow receive_type=\"signal\"/>\n"
		"  </policy>\n"
		"</busconfig>\n",
		work);
	fclose(f);
	snprintf(address, sizeof(address), "unix:path=%s/bus", work);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	snprintf(flag, sizeof(flag), "--config-file=%s", conf);
	bus_pid = spawn(argv);
	snprintf(sock, sizeof(sock), "%s/bus", work);
	for (int i = 0; i < 100; i++) {
		if (access(sock, F_OK) == 0)
			return 0;
		usleep(50 * 1000);
	}
	return -ETIMEDOUT;
}

int main(int argc, char **argv)
{
	Suite *s;
	char cmd[400];
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH/mock-realtimed\n", argv[0]);
		return EXIT_FAILURE;
	}
	mock_path = argv[1];
	if (system("command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null") != 0) {
		printf("SKIP: dbus-daemon and dbus-send are needed for a private bus\n");
		return 77;
	}
	if (!mkdtemp(work)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(log_path, sizeof(log_path), "%s/mock.log", work);
	snprintf(pid_path, sizeof(pid_path), "%s/mock.pid", work);
	if (bus_start() < 0 || (mock_start(), !name_has_owner())) {
		fprintf(stderr, "the private bus or mock-realtimed did not start\n");
		r = EXIT_FAILURE;
		goto out;
	}

	s = suite_create("librealtime-bus");
	check_add_case(s, "native",
		       CHECK_TESTS(test_native_requests, test_refusal_keeps_the_message,
				   test_grant_limits));
	check_add_case(s, "connection",
		       CHECK_TESTS(test_fork_child_opens_its_own,
				   test_fork_after_disconnect_keeps_app_fd,
				   test_threads_race_to_connect, test_service_leaves_and_returns));
	r = check_run_forked(s, "each test must start without a connection");
out:
	mock_stop();
	if (bus_pid > 0) {
		kill(bus_pid, SIGTERM);
		waitpid(bus_pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
	(void)!system(cmd);
	return r;
}
