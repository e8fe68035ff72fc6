/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging for realtimed: structured entries to the journal (sd-journal) with
 * a MESSAGE_ID for the events an admin looks for (grant, refusal, demotion),
 * falling back to stderr when there is no journal (tests, a container) or
 * with --debug. Grants are logged at debug level only, so a busy system
 * does not flood the journal; a refused grant request gets one line
 * (LOG_ID_REFUSED, log_fields()), paced per user by refusals.h.
 *
 * Rate limits are per call site: each log macro below keeps its own LogSite,
 * so a warning that a client can trigger at will is limited on its own and
 * never hides another line. Errors (LOG_ERR and more urgent) and demotions
 * (LOG_ID_DEMOTION) are never limited. How many lines of a site were
 * dropped is logged once its window has passed, with the next line that is
 * logged. Logging is safe from any thread.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <syslog.h>

#include "macro.h"
#include "ratelimit.h"

/* 128-bit ids, as journalctl MESSAGE_ID= filters for them. */
#define LOG_ID_STARTED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a01"
#define LOG_ID_GRANT "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a02"
/* a request not served that has no LOG_ID_REFUSED line: a reset refused, a
 * refusal paced out (debug level), a lookup of its user that failed */
#define LOG_ID_NOT_SERVED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a03"
#define LOG_ID_DEMOTION "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a04"
#define LOG_ID_RELOAD "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a05"
#define LOG_ID_IRQ "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a06"
/* a refusal, one line each, paced per user (refusals.h); its fields say
 * who asked what and what decided it (realtimed(8), LOGGING) */
#define LOG_ID_REFUSED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a07"

/* Each call site: at most LOG_BURST lines per LOG_INTERVAL_USEC. */
#define LOG_INTERVAL_USEC (10ULL * 1000000ULL)
#define LOG_BURST 20

/* The state of one call site, a static in each log macro's expansion.
 * Owned by log.c, under its lock. */
typedef struct LogSite {
	RateLimit rl;
	const char *file;
	int line;
	unsigned suppressed;  /* lines dropped in rl's current window */
	bool listed;	      /* on log.c's list of sites to report */
	struct LogSite *next; /* in that list */
} LogSite;

#define LOG_SITE_INIT                                                             \
	{                                                                         \
		.rl = { .interval_usec = LOG_INTERVAL_USEC, .burst = LOG_BURST }, \
		.file = __FILE__, .line = __LINE__                                \
	}

void log_setup(bool debug, bool to_stderr);

/* Logs at priority through site's rate limit (site NULL: a limit shared by
 * all such calls); message_id may be NULL. Text that is not valid UTF-8,
 * and control characters but newline and tab, are logged as \xNN. Returns
 * -abs(error) when error is non-zero (for "return log_error_errno(r, ...)"),
 * else 0. %m works. Thread-safe. */
int log_internal_site(LogSite *site, int priority, int error, const char *message_id,
		      const char *format, ...) _printf_(5, 6);
#define log_internal(priority, error, message_id, ...) \
	log_internal_site(NULL, (priority), (error), (message_id), __VA_ARGS__)

/* At most this many fields for log_fields(). */
#define LOG_FIELDS_MAX 12

/* Logs one line that its caller paces itself (refusals.h: per user), so no
 * call site's limit applies, with further journal fields: fields holds
 * "NAME=value" strings (valid UTF-8, NAME in capitals), NULL-terminated,
 * at most LOG_FIELDS_MAX. On stderr the fields follow the message, in
 * braces. The message is escaped as log_internal_site()'s. Thread-safe. */
void log_fields(int priority, const char *message_id, const char *const *fields, const char *format,
		...) _printf_(4, 5);

#define log_full(priority, error, message_id, ...)                                              \
	({                                                                                      \
		static LogSite _log_site_ = LOG_SITE_INIT;                                      \
		log_internal_site(&_log_site_, (priority), (error), (message_id), __VA_ARGS__); \
	})

#define log_debug(...) log_full(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, 0, NULL, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full(LOG_WARNING, (e), NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_full(LOG_ERR, (e), NULL, __VA_ARGS__)
#define log_id(prio, id, ...) log_full((prio), 0, (id), __VA_ARGS__)
