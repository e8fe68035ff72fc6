// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libcap mechanics of pam_realtime's ambient capabilities; see pam-ambient.h.
 * The PAM side (pam_set_data, logging) lives in pam_realtime.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>

#include "macro.h"
#include "pam-ambient.h"

static inline void cap_freep(cap_t *c)
{
	if (*c)
		cap_free(*c);
}
#define _cleanup_cap_ _cleanup_(cap_freep)

_Static_assert(AMBIENT_ALLOWED_CAPS ==
		       ((UINT64_C(1) << CAP_SYS_NICE) | (UINT64_C(1) << CAP_IPC_LOCK)),
	       "capability numbers");

int ambient_prepare(uint64_t caps, int *ret_old_keepcaps)
{
	_cleanup_cap_ cap_t c = NULL;
	int keep;

	if (caps & ~AMBIENT_ALLOWED_CAPS)
		return -EINVAL;
	if (!CAP_AMBIENT_SUPPORTED())
		return -EOPNOTSUPP;
	if (cap_get_secbits() & SECBIT_NO_CAP_AMBIENT_RAISE)
		return -EPERM;

	c = cap_get_proc();
	if (!c)
		return -errno;

	for (cap_value_t v = 0; v < 64; v++) {
		cap_flag_value_t have = CAP_CLEAR;

		if (!(caps & (UINT64_C(1) << v)))
			continue;
		if (cap_get_bound(v) != 1)
			return -EPERM;
		if (cap_get_flag(c, v, CAP_PERMITTED, &have) < 0)
			return -errno;
		if (have != CAP_SET)
			return -EPERM;
	}

	keep = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
	if (keep < 0)
		return -errno;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return -errno;

	*ret_old_keepcaps = keep;
	return 0;
}

int ambient_raise(uint64_t caps)
{
	_cleanup_cap_ cap_t c = NULL;

	if (caps & ~AMBIENT_ALLOWED_CAPS)
		return -EINVAL;

	c = cap_get_proc();
	if (!c)
		return -errno;

	/* A capability can be ambient only while it is both permitted and
	 * inheritable; the keepcaps flag kept it permitted across setuid. */
	for (cap_value_t v = 0; v < 64; v++) {
		if (!(caps & (UINT64_C(1) << v)))
			continue;
		if (cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_SET) < 0)
			return -errno;
	}
	if (cap_set_proc(c) < 0)
		return -errno;

	for (cap_value_t v = 0; v < 64; v++) {
		if (!(caps & (UINT64_C(1) << v)))
			continue;
		if (cap_set_ambient(v, CAP_SET) < 0)
			return -errno;
	}
	return 0;
}

int ambient_restore_keepcaps(int old_keepcaps)
{
	return RET_NERRNO(prctl(PR_SET_KEEPCAPS, old_keepcaps ? 1 : 0, 0, 0, 0));
}

void ambient_format(uint64_t caps, char *buf, size_t size)
{
	size_t n = 0;

	if (size == 0)
		return;
	buf[0] = '\0';

	for (cap_value_t v = 0; v < 64; v++) {
		char *name;
		int k;

		if (!(caps & (UINT64_C(1) << v)))
			continue;
		name = cap_to_name(v);
		if (!name)
			return;
		k = snprintf(buf + n, size - n, "%s%s", n > 0 ? " " : "", name);
		cap_free(name);
		if (k < 0 || (size_t)k >= size - n)
			return;
		n += (size_t)k;
	}
}
