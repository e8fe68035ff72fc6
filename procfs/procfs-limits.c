// SPDX-License-Identifier: GPL-2.0-or-later
/* The limits file's parser and reader; see procfs-limits.h. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "parse.h"
#include "procfs-limits.h"
#include "procfs-stat.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* One limit at s, "unlimited" or a number, ended by a blank or the line's
 * end. */
static int limit_parse(const char *s, const char **ret_end, uint64_t *ret)
{
	const char *end = startswith(s, "unlimited");
	uint64_t v = UINT64_MAX;

	if (!end && parse_decimal_prefix(s, UINT64_MAX, &v, &end) < 0)
		return -EBADMSG;
	if (!is_blank(*end) && *end != '\n' && *end != '\0')
		return -EBADMSG;
	*ret = v;
	*ret_end = end;
	return 0;
}

int procfs_limits_parse(const char *text, const char *name, uint64_t *ret_soft, uint64_t *ret_hard)
{
	size_t l = strlen(name);

	for (const char *p = text; p; p = next_line(p)) {
		const char *v = p + l;
		uint64_t soft, hard;

		if (strncmp(p, name, l) != 0 || !is_blank(*v))
			continue;
		v += strspn(v, " \t");
		/* a longer name goes on with a word, a row with its limits */
		if (!isdigit((unsigned char)*v) && !startswith(v, "unlimited"))
			continue;
		if (limit_parse(v, &v, &soft) < 0 ||
		    limit_parse(v + strspn(v, " \t"), &v, &hard) < 0)
			return -EBADMSG;
		*ret_soft = soft;
		*ret_hard = hard;
		return 0;
	}
	return -ENODATA;
}

int procfs_limits_read(const char *proc, pid_t pid, const char *name, uint64_t *ret_soft,
		       uint64_t *ret_hard)
{
	/* 17 rows of 80 columns */
	char buf[4096];
	int r;

	r = procfs_read_task_file(proc, pid, 0, "limits", buf, sizeof(buf));
	if (r < 0)
		return r;
	return procfs_limits_parse(buf, name, ret_soft, ret_hard);
}
