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

int args_parse_target(const char *s, uint64_t *ret_pid, uint64_t *ret_tid)
{
	const char *end;
	uint64_t pid, tid = 0;
	int r;

	if (!s)
		return -EINVAL;
	r = parse_decimal_prefix(s, INT32_MAX, &pid, &end);
	if (r < 0 || pid == 0 || (*end != '\0' && *end != '/'))
		return -EINVAL;
	if (*end == '/') {
		r = parse_decimal(end + 1, INT32_MAX, &tid);
		if (r < 0 || tid == 0)
			return -EINVAL;
	}
	*ret_pid = pid;
	*ret_tid = tid;
	return 0;
}

int args_parse_user(const char *s, uid_t *ret_uid)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	uint64_t v;
	int r;

	if (isempty(s))
		return -EINVAL;
	if (s[0] == '#') {
		/* uid_t (uid_t)-1 is "no user" everywhere; refuse it. */
		r = parse_decimal(s + 1, UINT32_MAX - 1, &v);
		if (r < 0)
			return -EINVAL;
		*ret_uid = (uid_t)v;
		return 0;
	}

	r = policy_user_resolve(s, &u);
	if (r >= 0) {
		*ret_uid = u->uid;
		return 0;
	}
	if (parse_decimal(s, UINT32_MAX - 1, &v) >= 0) {
		*ret_uid = (uid_t)v;
		return 0;
	}
	/* NSS answers "not found" with ENOENT, ESRCH and others too */
	if (r == -ENOMEM || r == -ERANGE)
		return r;
	return -ESRCH;
}
