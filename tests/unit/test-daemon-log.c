/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for daemon/log.c: rate limits per call site (a flood at one
 * site leaves another site's line alone), errors and demotions never
 * limited, the count of dropped lines reported once the window passed, text
 * that is not UTF-8 escaped, and two threads logging at once without losing
 * a count. Lines go to stderr (log_setup(false, true)), which each test
 * sends to a file and reads back.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check-main.h"
#include "log-fixture.h"
#include "log.h"

static void flood_a(int i)
{
	log_warning("flood at site A, line %d", i);
}

static void line_b(void)
{
	log_warning("a line at site B");
}

START_TEST(test_flood_leaves_other_sites_alone)
{
	log_capture();
	for (int i = 0; i < 1000; i++)
		flood_a(i);
	line_b();
	ck_assert_uint_eq(log_count_lines("flood at site A"), LOG_BURST);
	ck_assert_uint_eq(log_count_lines("a line at site B"), 1);
	log_info("and an info line at site C");
	ck_assert_uint_eq(log_count_lines("site C"), 1);
}
END_TEST

START_TEST(test_errors_and_demotions_never_limited)
{
	log_capture();
	for (int i = 0; i < 1000; i++) {
		log_error("plain error %d", i);
		(void)log_error_errno(EIO, "an error with errno %d: %m", i);
		log_id(LOG_WARNING, LOG_ID_DEMOTION, "a demotion %d", i);
		log_id(LOG_NOTICE, LOG_ID_DEMOTION, "a policy demotion %d", i);
	}
	ck_assert_uint_eq(log_count_lines("plain error "), 1000);
	ck_assert_uint_eq(log_count_lines("Input/output error"), 1000);
	ck_assert_uint_eq(log_count_lines("a demotion"), 1000);
	ck_assert_uint_eq(log_count_lines("a policy demotion"), 1000);
	/* nothing was counted against the warnings */
	line_b();
	ck_assert_uint_eq(log_count_lines("a line at site B"), 1);
}
END_TEST

START_TEST(test_suppressed_count_is_reported)
{
	static LogSite site = { .rl = { .interval_usec = 200000, .burst = 3 },
				.file = "flood.c",
				.line = 7 };

	log_capture();
	for (int i = 0; i < 10; i++)
		log_internal_site(&site, LOG_WARNING, 0, NULL, "short-window flood %d", i);
	ck_assert_uint_eq(log_count_lines("short-window flood"), 3);
	ck_assert_uint_eq(log_count_lines("Suppressed"), 0);
	usleep(300000);
	/* reported with the next line, from any site, once */
	line_b();
	ck_assert_uint_eq(
		log_count_lines("Suppressed 7 messages from flood.c:7 (more than 3 in 200 ms)"), 1);
	line_b();
	ck_assert_uint_eq(log_count_lines("Suppressed"), 1);
	/* the site's new window lets lines through again */
	log_internal_site(&site, LOG_WARNING, 0, NULL, "short-window flood, later");
	ck_assert_uint_eq(log_count_lines("short-window flood, later"), 1);
}
END_TEST

START_TEST(test_text_escaped)
{
	log_capture();
	log_warning("thread \xff\xfe named \x1b[31m, file %s", "r\xfft.conf");
	ck_assert_uint_eq(log_count_lines("thread \\xff\\xfe named \\x1b[31m, file r\\xfft.conf"),
			  1);
}
END_TEST

START_TEST(test_fields)
{
	log_capture();
	/* paced by its caller: no call site's limit, however many */
	for (int i = 0; i < 3 * LOG_BURST; i++)
		log_fields(LOG_NOTICE, LOG_ID_REFUSED,
			   (const char *const[]){ "REALTIMED_UID=1000", "REALTIMED_ASKED=FIFO 95",
						  NULL },
			   "Refused %s \xff%d", "FIFO 95", i);
	ck_assert_uint_eq(log_count_lines("Refused FIFO 95 \\xff"), 3 * LOG_BURST);
	ck_assert_uint_eq(log_count_lines("Refused FIFO 95 \\xff0 {MESSAGE_ID=" LOG_ID_REFUSED
					  " REALTIMED_UID=1000 REALTIMED_ASKED=FIFO 95}"),
			  1);
}
END_TEST

#define THREAD_LINES 200000
#define SHARED_BURST 100

static LogSite shared_site = { .rl = { .interval_usec = 3600ULL * 1000000ULL,
				       .burst = SHARED_BURST },
			       .file = "shared.c",
			       .line = 1 };

static pthread_barrier_t start_together;

static void *log_thread(void *arg)
{
	const char *name = arg;

	pthread_barrier_wait(&start_together);
	for (int i = 0; i < THREAD_LINES; i++) {
		log_internal_site(&shared_site, LOG_WARNING, 0, NULL, "shared site, %s %d", name,
				  i);
		if (i % 1000 == 0)
			log_error("error from %s %d", name, i);
	}
	return NULL;
}

START_TEST(test_two_threads)
{
	pthread_t t[2];

	log_capture();
	pthread_barrier_init(&start_together, NULL, 2);
	ck_assert_int_eq(pthread_create(&t[0], NULL, log_thread, "main-loop"), 0);
	ck_assert_int_eq(pthread_create(&t[1], NULL, log_thread, "watchdog"), 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	/* every line counted exactly once: passed or suppressed */
	ck_assert_uint_eq(shared_site.rl.n, SHARED_BURST);
	ck_assert_uint_eq(shared_site.suppressed, 2 * THREAD_LINES - SHARED_BURST);
	ck_assert_uint_eq(log_count_lines("shared site, "), SHARED_BURST);
	ck_assert_uint_eq(log_count_lines("error from main-loop"), THREAD_LINES / 1000);
	ck_assert_uint_eq(log_count_lines("error from watchdog"), THREAD_LINES / 1000);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("daemon-log");
	TCase *tc;

	tc = check_add_case(s, "log",
			    CHECK_TESTS(test_flood_leaves_other_sites_alone,
					test_errors_and_demotions_never_limited,
					test_suppressed_count_is_reported, test_text_escaped,
					test_fields, test_two_threads));
	tcase_set_timeout(tc, 60);
	return check_run(s);
}
