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
#include <unistd.h>

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

/* Whether any of the real, effective and saved uids is 0. */
static int any_uid_root(bool *ret)
{
	uid_t r, e, s;

	if (getresuid(&r, &e, &s) < 0)
		return -errno;
	*ret = r == 0 || e == 0 || s == 0;
	return 0;
}

int ambient_prepare(uint64_t caps, AmbientSaved *ret)
{
	_cleanup_cap_ cap_t c = NULL;
	bool root;
	int keep, k;

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

	k = any_uid_root(&root);
	if (k < 0)
		return k;
	keep = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
	if (keep < 0)
		return -errno;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return -errno;

	*ret = (AmbientSaved){ .old_keepcaps = keep, .was_root = root };
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

/* Cuts the permitted set to what of keep it holds and empties the effective
 * set, as the setuid() left it (the inheritable set stays; the kernel drops
 * from the ambient set what is no longer permitted). Cleared whole, not bit
 * by bit: the kernel may know capabilities that this libcap does not. */
static int cut_permitted(uint64_t keep)
{
	_cleanup_cap_ cap_t c = cap_get_proc();
	uint64_t held = 0;

	if (!c)
		return -errno;
	for (cap_value_t v = 0; v < 64; v++) {
		cap_flag_value_t have = CAP_CLEAR;

		if ((keep & (UINT64_C(1) << v)) && cap_get_flag(c, v, CAP_PERMITTED, &have) == 0 &&
		    have == CAP_SET)
			held |= UINT64_C(1) << v;
	}
	if (cap_clear_flag(c, CAP_PERMITTED) < 0 || cap_clear_flag(c, CAP_EFFECTIVE) < 0)
		return -errno;
	for (cap_value_t v = 0; v < 64; v++)
		if ((held & (UINT64_C(1) << v)) &&
		    cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET) < 0)
			return -errno;
	return RET_NERRNO(cap_set_proc(c));
}

int ambient_release(const AmbientSaved *saved, uint64_t keep)
{
	bool root;
	int k = 0;

	/* Root's permitted set outlived a setuid() away from root only
	 * because keepcaps was set here: without it the kernel would have
	 * cleared it, so all but keep goes now, not at the execve(). A flag
	 * the application had set itself was its own wish: left alone. */
	if (saved->was_root && !saved->old_keepcaps) {
		k = any_uid_root(&root);
		if (k == 0 && !root)
			k = cut_permitted(keep);
	}
	if (prctl(PR_SET_KEEPCAPS, saved->old_keepcaps ? 1 : 0, 0, 0, 0) < 0 && k == 0)
		k = -errno;
	return k;
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
