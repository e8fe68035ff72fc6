/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Logging for realtimed: structured entries to the journal (sd-journal) with
 * a MESSAGE_ID for the events an admin looks for (grant, refusal, demotion),
 * falling back to stderr when there is no journal (tests, a container) or
 * with --debug. Refusals and grants are logged at debug level only, so a busy
 * system does not flood the journal; warnings pass a rate limit.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <syslog.h>

#include "macro.h"

/* 128-bit ids, as journalctl MESSAGE_ID= filters for them. */
#define LOG_ID_STARTED "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a01"
#define LOG_ID_GRANT "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a02"
#define LOG_ID_REFUSAL "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a03"
#define LOG_ID_DEMOTION "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a04"
#define LOG_ID_RELOAD "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a05"
#define LOG_ID_IRQ "5b8b2c1e0c7a4d3f9a1e6d2b7c4f8a06"

void log_setup(bool debug, bool to_stderr);
bool log_debug_enabled(void);

/* Logs at priority; message_id may be NULL. Returns -abs(error) when error
 * is non-zero (for "return log_error_errno(r, ...)"), else 0. %m works. */
int log_internal(int priority, int error, const char *message_id, const char *format, ...)
	_printf_(4, 5);

#define log_debug(...) log_internal(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, NULL, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...) log_internal(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, (e), NULL, __VA_ARGS__)
#define log_error_errno(e, ...) log_internal(LOG_ERR, (e), NULL, __VA_ARGS__)
#define log_id(prio, id, ...) log_internal((prio), 0, (id), __VA_ARGS__)
