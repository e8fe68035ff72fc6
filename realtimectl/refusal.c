// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words of a kept refusal; see refusal.h.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bus-error.h"
#include "bus-names.h"
#include "macro.h"
#include "refusal.h"

void ctl_refusal_format(const CtlRefusal *f, char *buf, size_t size)
{
	const char *source = f->source ?: "", *reason = f->reason ?: "";
	int n;

	n = snprintf(buf, size, "%s asked %s: %s", isempty(f->comm) ? "a thread" : f->comm,
		     f->asked ?: "?", reason);
	if (n >= 0 && (size_t)n < size && source[0] && !strstr(reason, source))
		n += snprintf(buf + n, size - n, " (%s)", source);
	if (n >= 0 && (size_t)n < size && f->count > 1)
		snprintf(buf + n, size - n, " (%u times)", f->count);
}

void ctl_refusal_fix(const CtlRefusal *f, char *buf, size_t size)
{
	char name[128];
	const char *hint;

	snprintf(name, sizeof(name), NATIVE_ERROR "%s", f->error ?: "");
	hint = bus_error_hint(name);
	if (f->error && streq(f->error, "PolicyDenied") && !isempty(f->source))
		snprintf(buf, size,
			 "ask for no more than the policy allows ('realtimectl explain' shows it), "
			 "or raise the limit at %s as root",
			 f->source);
	else
		snprintf(buf, size, "%s", hint ?: "the reason says what to change");
}

void ctl_format_time(uint64_t usec, char *buf, size_t size)
{
	time_t sec = (time_t)(usec / 1000000);
	struct tm tm;

	if (usec == 0 || !localtime_r(&sec, &tm) ||
	    strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		snprintf(buf, size, "-");
}
