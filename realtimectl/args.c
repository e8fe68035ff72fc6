/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PID[/TID] and USER argument parsing for realtimectl (see args.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "macro.h"
#include "parse.h"
#include "policy.h"

/* The whole of s[0..len) as a decimal number of at most max. */
static int parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *ret)
{
	const char *end;
	uint64_t v;
	int r;

	r = parse_decimal_prefix(s, max, &v, &end);
	if (r < 0)
		return r;
	if (end != s + len)
		return -EINVAL;
	*ret = v;
	return 0;
}

int args_parse_target(const char *s, uint64_t *ret_pid, uint64_t *ret_tid)
{
	const char *slash;
	uint64_t pid, tid = 0;
	int r;

	if (!s)
		return -EINVAL;
	slash = strchr(s, '/');
	r = parse_decimal(s, slash ? (size_t)(slash - s) : strlen(s), INT32_MAX, &pid);
	if (r < 0 || pid == 0)
		return -EINVAL;
	if (slash) {
		r = parse_decimal(slash + 1, strlen(slash + 1), INT32_MAX, &tid);
		if (r < 0 || tid == 0)
			return -EINVAL;
	}
	*ret_pid = pid;
	*ret_tid = tid;
	return 0;
}

int args_parse_user(const char *s, uid_t *ret_uid)
{
	uint64_t v;
	uid_t uid;
	int r;

	if (isempty(s))
		return -EINVAL;
	if (s[0] == '#') {
		/* uid_t (uid_t)-1 is "no user" everywhere; refuse it. */
		r = parse_decimal(s + 1, strlen(s + 1), UINT32_MAX - 1, &v);
		if (r < 0)
			return -EINVAL;
		*ret_uid = (uid_t)v;
		return 0;
	}

	r = policy_user_name_to_uid(s, &uid);
	if (r >= 0) {
		*ret_uid = uid;
		return 0;
	}
	if (parse_decimal(s, strlen(s), UINT32_MAX - 1, &v) >= 0) {
		*ret_uid = (uid_t)v;
		return 0;
	}
	/* NSS answers "not found" with ENOENT, ESRCH and others too */
	if (r == -ENOMEM || r == -ERANGE)
		return r;
	return -ESRCH;
}
