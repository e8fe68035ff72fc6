// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Journal logging with MESSAGE_ID, stderr fallback, and a rate limit on
 * everything above debug level so that no client can make the daemon flood
 * the journal (at most LOG_BURST lines per LOG_INTERVAL).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "ratelimit.h"

#define LOG_INTERVAL_USEC (10ULL * 1000000ULL)
#define LOG_BURST 50

static bool log_debug_on;
static bool log_stderr;
static RateLimit log_ratelimit = { .interval_usec = LOG_INTERVAL_USEC, .burst = LOG_BURST };
static unsigned log_suppressed;

void log_setup(bool debug, bool to_stderr)
{
	log_debug_on = debug;
	log_stderr = to_stderr;
}

bool log_debug_enabled(void)
{
	return log_debug_on;
}

static void log_to_stderr(int priority, const char *msg)
{
	static const char *const names[] = { "emerg",	"alert",  "crit", "error",
					     "warning", "notice", "info", "debug" };

	fprintf(stderr, "realtimed[%s]: %s\n", names[priority & 7], msg);
}

int log_internal(int priority, int error, const char *message_id, const char *format, ...)
{
	char msg[1024];
	va_list ap;
	int saved = errno;

	if (priority == LOG_DEBUG && !log_debug_on)
		return error ? -abs(error) : 0;

	if (priority != LOG_DEBUG && !log_debug_on) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!ratelimit_below(&log_ratelimit,
				     (uint64_t)ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000)) {
			log_suppressed++;
			return error ? -abs(error) : 0;
		}
	}

	errno = error ? abs(error) : saved;
	va_start(ap, format);
	vsnprintf(msg, sizeof(msg), format, ap);
	va_end(ap);

	if (log_suppressed > 0 && priority != LOG_DEBUG) {
		unsigned n = log_suppressed;

		log_suppressed = 0;
		if (log_stderr || sd_journal_send("MESSAGE=Suppressed %u log messages", n,
						  "PRIORITY=%i", LOG_NOTICE, NULL) < 0) {
			char s[64];

			snprintf(s, sizeof(s), "Suppressed %u log messages", n);
			log_to_stderr(LOG_NOTICE, s);
		}
	}

	if (log_stderr ||
	    sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", priority,
			    "SYSLOG_IDENTIFIER=realtimed", message_id ? "MESSAGE_ID=%s" : NULL,
			    message_id, NULL) < 0)
		log_to_stderr(priority, msg);

	errno = saved;
	return error ? -abs(error) : 0;
}
