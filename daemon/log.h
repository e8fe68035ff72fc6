/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging: the journal with a MESSAGE_ID for the events an admin looks for,
 * stderr without a journal or with --debug. Each log macro's call site has
 * its own rate limit, so a line a client can trigger at will hides no other;
 * errors and demotions are never limited, and a site's dropped lines are
 * counted once its window has passed. Thread-safe.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <syslog.h>

#include "macro.h"
#include "ratelimit.h"

#define LOG_ID_STARTED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a01"
#define LOG_ID_GRANT "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a02"
/* a request not served without a LOG_ID_REFUSED line */
#define LOG_ID_NOT_SERVED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a03"
#define LOG_ID_DEMOTION "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a04"
#define LOG_ID_RELOAD "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a05"
#define LOG_ID_IRQ "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a06"
/* a refusal, paced per user (refusals.h); realtimed(8), LOGGING */
#define LOG_ID_REFUSED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a07"

#define LOG_BURST 20 /* lines per call site in 10 s */

/* One call site's state, a static in each log macro; under log.c's lock. */
typedef struct LogSite {
	RateLimit rl;
	const char *file;
	int line;
	unsigned suppressed;  /* lines dropped in rl's current window */
	bool listed;	      /* on log.c's list of sites to report */
	struct LogSite *next; /* in that list */
} LogSite;

#define LOG_SITE_INIT                                                                         \
	{                                                                                     \
		.rl = { .interval_usec = 10000000ULL, .burst = LOG_BURST }, .file = __FILE__, \
		.line = __LINE__                                                              \
	}

void log_setup(bool debug, bool to_stderr);

/* Logs through site's rate limit; message_id may be NULL. Invalid UTF-8 and
 * control characters but newline and tab become \xNN. %m works. Returns
 * -abs(error), 0 when error is 0. */
int log_internal_site(LogSite *site, int priority, int error, const char *message_id,
		      const char *format, ...) _printf_(5, 6);
#define LOG_FIELDS_MAX 12

/* One line that its caller paces, with journal fields: NULL-terminated
 * "NAME=value" strings (valid UTF-8), at most LOG_FIELDS_MAX; on stderr
 * they follow the message in braces. Escaped as log_internal_site(). */
void log_fields(int priority, const char *message_id, const char *const *fields, const char *format,
		...) _printf_(4, 5);

#define log_full(priority, error, message_id, ...)                                              \
	({                                                                                      \
		static LogSite _log_site_ = LOG_SITE_INIT;                                      \
		log_internal_site(&_log_site_, (priority), (error), (message_id), __VA_ARGS__); \
	})

#define log_debug(...) log_full(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full(LOG_WARNING, (e), NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_full(LOG_ERR, (e), NULL, __VA_ARGS__)
#define log_id(prio, id, ...) log_full((prio), 0, (id), __VA_ARGS__)
