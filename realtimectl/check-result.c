/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Filling a CheckResult (ctl-check.h): status, value and summary, the
 * hint, the skip for a file that cannot be read, and text appended to a
 * buffer as a check builds its value.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctl-check.h"

void strbuf_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t l = strnlen(buf, size);
	va_list ap;

	if (l + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, size - l, fmt, ap);
	va_end(ap);
}

void check_set(CheckResult *r, CheckStatus s, const char *value, const char *fmt, ...)
{
	va_list ap;

	r->status = s;
	snprintf(r->value, sizeof(r->value), "%s", value ?: "");
	va_start(ap, fmt);
	vsnprintf(r->summary, sizeof(r->summary), fmt, ap);
	va_end(ap);
}

void check_hint(CheckResult *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->hint, sizeof(r->hint), fmt, ap);
	va_end(ap);
}

void check_skip_errno(CheckResult *r, const char *path, int err)
{
	err = err < 0 ? -err : err;
	if (err == ESRCH)
		check_set(r, CHECK_SKIP, "",
			  "no process of the user runs: log in, then check again");
	else if (err == EACCES || err == EPERM)
		check_set(r, CHECK_SKIP, "",
			  "cannot read %s: permission denied (run as root to see it)", path);
	else
		check_set(r, CHECK_SKIP, "", "cannot read %s: %s", path, strerror(err));
}
