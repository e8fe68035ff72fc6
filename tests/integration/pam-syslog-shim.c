// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LD_PRELOAD shim for the PAM tests: catches what PAM modules log through
 * syslog(3) and appends it, one line per message, "LEVEL MESSAGE", to the
 * file named by $PAM_TEST_SYSLOG, so a test can assert the documented log
 * lines without a syslog daemon and without touching the host's journal.
 * Without $PAM_TEST_SYSLOG the messages go to stderr.
 */
/* Fortified builds turn syslog() into an inline wrapper; this file defines it. */
#undef _FORTIFY_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

/* glibc's fortified entry points (what libpam calls); syslog.h declares
 * the plain ones. */
void __syslog_chk(int priority, int flag, const char *format, ...)
	__attribute__((format(printf, 3, 4)));
void __vsyslog_chk(int priority, int flag, const char *format, va_list ap)
	__attribute__((format(printf, 3, 0)));

static const char *const levels[] = { "emerg",	 "alert",  "crit", "err",
				      "warning", "notice", "info", "debug" };

__attribute__((format(printf, 2, 0))) static void shim_log(int priority, const char *format,
							   va_list ap)
{
	const char *path = getenv("PAM_TEST_SYSLOG");
	char msg[4096];
	int fd = STDERR_FILENO;

	vsnprintf(msg, sizeof(msg), format, ap);
	if (path) {
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return;
	}
	dprintf(fd, "%s %s\n", levels[LOG_PRI(priority)], msg);
	if (fd != STDERR_FILENO)
		close(fd);
}

void openlog(const char *ident, int option, int facility)
{
}

void closelog(void)
{
}

void vsyslog(int priority, const char *format, va_list ap)
{
	shim_log(priority, format, ap);
}

void syslog(int priority, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	shim_log(priority, format, ap);
	va_end(ap);
}

void __vsyslog_chk(int priority, int flag, const char *format, va_list ap)
{
	shim_log(priority, format, ap);
}

void __syslog_chk(int priority, int flag, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	shim_log(priority, format, ap);
	va_end(ap);
}
