// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for librealtime's public calls where no service is needed:
 * arguments are checked as the kernel calls they stand for check them,
 * before any bus is touched; a thread that is not the process's is
 * -ESRCH; REALTIME_TIMEOUT_MSEC is parsed and bounded; with no system bus
 * a call fails at once, and with a bus that accepts the connection but
 * never answers it fails after REALTIME_TIMEOUT_MSEC, not libdbus's 25 s.
 * Each test runs in its own forked process (Check's fork mode), so each
 * starts without a connection.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check-main.h"
#include "realtime-internal.h"

static char socket_dir[] = "/tmp/test-librealtime-XXXXXX";

static void no_bus(void)
{
	/* nothing listens there */
	setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/librealtime-test", 1);
}

START_TEST(test_arguments)
{
	int v;
	int64_t t;

	no_bus();
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_OTHER, 10), -EINVAL);
	ck_assert_ptr_nonnull(strstr(realtime_error_message(), "SCHED_FIFO"));
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_FIFO, 0), -EINVAL);
	ck_assert_int_eq(realtime_make_thread_realtime(0, SCHED_RR, 100), -EINVAL);
	ck_assert_ptr_nonnull(strstr(realtime_error_message(), "1..99"));
	ck_assert_int_eq(realtime_make_thread_realtime(-1, SCHED_RR, 10), -EINVAL);
	ck_assert_int_eq(realtime_make_thread_high_priority(0, -21), -EINVAL);
	ck_assert_int_eq(realtime_make_thread_high_priority(0, 20), -EINVAL);
	ck_assert_ptr_nonnull(strstr(realtime_error_message(), "-20..19"));
	ck_assert_int_eq(realtime_reset_thread(-5), -EINVAL);
	ck_assert_int_eq(realtime_get_max_realtime_priority(NULL), -EINVAL);
	ck_assert_int_eq(realtime_get_min_nice_level(NULL), -EINVAL);
	ck_assert_int_eq(realtime_get_rttime_usec_max(NULL), -EINVAL);
	(void)v;
	(void)t;
}
END_TEST

START_TEST(test_not_our_thread)
{
	no_bus();
	/* pid 1 is no thread of this process */
	ck_assert_int_eq(realtime_make_thread_realtime(1, SCHED_FIFO, 10), -ESRCH);
	ck_assert_ptr_nonnull(strstr(realtime_error_message(), "not a thread of this process"));
	ck_assert_int_eq(realtime_make_thread_high_priority(1, -5), -ESRCH);
	ck_assert_int_eq(realtime_reset_thread(1), -ESRCH);
}
END_TEST

START_TEST(test_timeout_parse)
{
	ck_assert_int_eq(realtime_timeout_msec(NULL), REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec(""), REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec("250"), 250);
	ck_assert_int_eq(realtime_timeout_msec("1"), 1);
	ck_assert_int_eq(realtime_timeout_msec("0"), REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec("-5"), REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec("12x"), REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec("soon"), REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec("99999999999999999999"),
			 REALTIME_TIMEOUT_MSEC_DEFAULT);
	ck_assert_int_eq(realtime_timeout_msec("86400000"), REALTIME_TIMEOUT_MSEC_MAX);
}
END_TEST

START_TEST(test_no_bus)
{
	struct realtime_limits l;
	int r;

	no_bus();
	r = realtime_make_thread_realtime(0, SCHED_FIFO, 10);
	ck_assert_int_eq(r, -ECONNREFUSED);
	ck_assert_str_ne(realtime_error_message(), "");
	ck_assert_int_eq(realtime_service(), -ECONNREFUSED);
	ck_assert_int_eq(realtime_grant_limits(&l), -ECONNREFUSED);
	/* the thread is left as it was */
	ck_assert_int_eq(sched_getscheduler(0) & ~SCHED_RESET_ON_FORK, SCHED_OTHER);
}
END_TEST

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A socket that listens and is never accepted from: the kernel completes
 * the connection, nobody ever answers. */
START_TEST(test_hung_bus_times_out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char address[sizeof(sa.sun_path) + 16];
	double start, took;
	int fd, r;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/bus", socket_dir);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 16), 0);
	snprintf(address, sizeof(address), "unix:path=%s", sa.sun_path);
	setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1);
	setenv("REALTIME_TIMEOUT_MSEC", "300", 1);

	start = now_sec();
	r = realtime_make_thread_realtime(0, SCHED_FIFO, 10);
	took = now_sec() - start;
	ck_assert_int_eq(r, -ETIMEDOUT);
	ck_assert_str_ne(realtime_error_message(), "");
	ck_assert_msg(took >= 0.25 && took < 3.0, "the call took %.3f s, not about 0.3 s", took);
	close(fd);
	unlink(sa.sun_path);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("librealtime-calls");
	int r;

	if (!mkdtemp(socket_dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	check_add_case(s, "arguments",
		       CHECK_TESTS(test_arguments, test_not_our_thread, test_timeout_parse));
	check_add_case(s, "bus", CHECK_TESTS(test_no_bus, test_hung_bus_times_out));
	r = check_run_forked(s, "each test must start without a connection");
	rmdir(socket_dir);
	return r;
}
