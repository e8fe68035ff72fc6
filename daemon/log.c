// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sites' rate-limit state is shared by every thread that logs: it is
 * changed only under log_lock, never held across I/O. The lock inherits
 * priority, so a realtime thread waiting for it cannot starve its holder.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <systemd/sd-journal.h>

#include "log.h"
#include "time-util.h"
#include "utf8.h"

/* sites whose suppressed lines were reported at once, at most, per line */
#define LOG_REPORTS_MAX 8

static bool log_debug_on;
static bool log_stderr;

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t log_lock;
static LogSite *log_pending; /* sites with suppressed > 0 */

typedef struct LogReport {
	const char *file;
	int line;
	unsigned n, burst;
	uint64_t interval_usec;
} LogReport;

static void log_lock_init(void)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&log_lock, &attr);
	pthread_mutexattr_destroy(&attr);
}

void log_setup(bool debug, bool to_stderr)
{
	pthread_once(&log_once, log_lock_init);
	log_debug_on = debug;
	log_stderr = to_stderr;
}

/* Under log_lock: takes at most max counts of sites whose window has passed. */
static size_t log_take_reports(uint64_t now, LogReport *reports, size_t max)
{
	size_t n = 0;

	for (LogSite **p = &log_pending; *p && n < max;) {
		LogSite *s = *p;

		if (!ratelimit_idle(&s->rl, now)) {
			p = &s->next;
			continue;
		}
		reports[n++] = (LogReport){ .file = s->file,
					    .line = s->line,
					    .n = s->suppressed,
					    .burst = s->rl.burst,
					    .interval_usec = s->rl.interval_usec };
		s->suppressed = 0;
		s->listed = false;
		*p = s->next;
	}
	return n;
}

/* Under log_lock: counts one line of site; false when it is dropped. */
static bool log_site_allow(LogSite *site, uint64_t now)
{
	if (ratelimit_below(&site->rl, now))
		return true;
	site->suppressed++;
	if (!site->listed) {
		site->next = log_pending;
		log_pending = site;
		site->listed = true;
	}
	return false;
}

static void log_to_stderr(int priority, const char *msg)
{
	static const char *const names[] = { "emerg",	"alert",  "crit", "error",
					     "warning", "notice", "info", "debug" };

	fprintf(stderr, "realtimed[%s]: %s\n", names[priority & 7], msg);
}

static void log_write(int priority, const char *message_id, const char *file, int line,
		      const char *msg)
{
	/* CODE_FILE/CODE_LINE before MESSAGE_ID: a NULL id ends the list */
	if (log_stderr ||
	    sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", priority,
			    "SYSLOG_IDENTIFIER=realtimed", "CODE_FILE=%s", file ?: "?",
			    "CODE_LINE=%i", line, message_id ? "MESSAGE_ID=%s" : NULL, message_id,
			    NULL) < 0)
		log_to_stderr(priority, msg);
}

int log_internal_site(LogSite *site, int priority, int error, const char *message_id,
		      const char *format, ...)
{
	LogReport reports[LOG_REPORTS_MAX];
	char msg[1024], escaped[sizeof(msg) * 4];
	size_t n_reports;
	bool allow = true;
	uint64_t now;
	va_list ap;
	int saved = errno;

	if (priority == LOG_DEBUG && !log_debug_on)
		return -abs(error);

	pthread_once(&log_once, log_lock_init);
	now = now_usec(CLOCK_MONOTONIC);
	pthread_mutex_lock(&log_lock);
	n_reports = log_take_reports(now, reports, ELEMENTSOF(reports));
	if (priority > LOG_ERR && !log_debug_on &&
	    !(message_id && streq(message_id, LOG_ID_DEMOTION)))
		allow = log_site_allow(site, now);
	pthread_mutex_unlock(&log_lock);

	for (size_t i = 0; i < n_reports; i++) {
		char s[256];

		utf8_snprintf(s, sizeof(s),
			      "Suppressed %u messages from %s:%d (more than %u in %" PRIu64 " ms)",
			      reports[i].n, reports[i].file, reports[i].line, reports[i].burst,
			      reports[i].interval_usec / 1000);
		log_write(LOG_NOTICE, NULL, reports[i].file, reports[i].line, s);
	}
	if (!allow)
		return -abs(error);

	errno = error ? abs(error) : saved;
	va_start(ap, format);
	utf8_vsnprintf(msg, sizeof(msg), format, ap);
	va_end(ap);
	/* journalctl does not show a message that is not UTF-8 */
	utf8_escape(msg, UTF8_ESCAPE_KEEP_NEWLINE, escaped, sizeof(escaped));
	log_write(priority, message_id, site->file, site->line, escaped);

	errno = saved;
	return -abs(error);
}

void log_fields(int priority, const char *message_id, const char *const *fields, const char *format,
		...)
{
	char msg[1024], escaped[sizeof(msg) * 4], line[sizeof(escaped) + 1024];
	char prio[16], id[64];
	struct iovec iov[LOG_FIELDS_MAX + 5];
	size_t n = 0, l;
	va_list ap;

	if (priority == LOG_DEBUG && !log_debug_on)
		return;
	va_start(ap, format);
	utf8_vsnprintf(msg, sizeof(msg), format, ap);
	va_end(ap);
	utf8_escape(msg, UTF8_ESCAPE_KEEP_NEWLINE, escaped, sizeof(escaped));

	if (!log_stderr) {
		/* MESSAGE= as a field of its own: the text may hold a % */
		utf8_snprintf(line, sizeof(line), "MESSAGE=%s", escaped);
		iov[n++] = (struct iovec){ line, strlen(line) };
		snprintf(prio, sizeof(prio), "PRIORITY=%i", priority);
		iov[n++] = (struct iovec){ prio, strlen(prio) };
		iov[n++] = (struct iovec){ (char *)"SYSLOG_IDENTIFIER=realtimed",
					   strlen("SYSLOG_IDENTIFIER=realtimed") };
		if (message_id) {
			snprintf(id, sizeof(id), "MESSAGE_ID=%s", message_id);
			iov[n++] = (struct iovec){ id, strlen(id) };
		}
		for (size_t i = 0; fields && i < LOG_FIELDS_MAX && fields[i]; i++)
			iov[n++] = (struct iovec){ (char *)fields[i], strlen(fields[i]) };
		if (sd_journal_sendv(iov, (int)n) >= 0)
			return;
	}
	utf8_snprintf(line, sizeof(line), "%s {MESSAGE_ID=%s", escaped, message_id ?: "");
	for (size_t i = 0; fields && i < LOG_FIELDS_MAX && fields[i]; i++) {
		l = strlen(line);
		utf8_snprintf(line + l, sizeof(line) - l, " %s", fields[i]);
	}
	l = strlen(line);
	utf8_snprintf(line + l, sizeof(line) - l, "}");
	log_to_stderr(priority, line);
}
