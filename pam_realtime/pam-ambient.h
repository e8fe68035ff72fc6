/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Ambient capabilities for the session (policy's Capabilities=, only
 * cap_sys_nice and cap_ipc_lock), with libcap. A setuid() away from root
 * clears the ambient set, so they are raised only after the application's
 * setuid, at the pam_end() it then calls with PAM_DATA_SILENT (the
 * technique pam_cap documents as "defer" + "keepcaps"): at open_session
 * ambient_prepare() checks the capabilities can be had and sets keepcaps so
 * the permitted set survives the setuid; ambient_raise() runs at pam_end(),
 * and ambient_release() at every pam_end(), raise or not.
 * Capability masks are 1ULL << CAP_*, as in PolicyGrant.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The only capabilities pam_realtime hands out. */
#define AMBIENT_ALLOWED_CAPS \
	((UINT64_C(1) << 23 /* CAP_SYS_NICE */) | (UINT64_C(1) << 14 /* CAP_IPC_LOCK */))

/* What ambient_prepare() found, for ambient_release(). */
typedef struct AmbientSaved {
	int old_keepcaps; /* the keepcaps flag before ambient_prepare() */
	bool was_root;	  /* a real, effective or saved uid of the process was 0 */
} AmbientSaved;

/* Checks the kernel supports ambient capabilities, that caps are all
 * allowed, in the bounding and permitted sets and that ambient raising is not
 * locked off; then sets PR_SET_KEEPCAPS. Returns 0 and what
 * ambient_release() needs in *ret, or -EOPNOTSUPP (no ambient support),
 * -EINVAL (a capability other than cap_sys_nice/cap_ipc_lock), -EPERM (not
 * available to this process), -errno. */
int ambient_prepare(uint64_t caps, AmbientSaved *ret);

/* Raises caps in the inheritable and then the ambient set of the calling
 * thread. Returns 0 or -errno. */
int ambient_raise(uint64_t caps);

/* Undoes ambient_prepare() once keepcaps has served or cannot serve: the
 * keepcaps flag back as it was, and, after a setuid() away from root that
 * only keepcaps survived, the permitted and effective sets cut to keep.
 * Returns 0 or the first -errno. */
int ambient_release(const AmbientSaved *saved, uint64_t keep);

/* "cap_sys_nice cap_ipc_lock" for a mask; "" for 0. */
void ambient_format(uint64_t caps, char *buf, size_t size);
