// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"
#include "macro.h"

/* Kept in the permitted and bounding sets; effective unless only the NSS
 * helper's drop uses it. */
static const struct {
	cap_value_t cap;
	bool effective;
} caps_needed[] = {
	{ CAP_SYS_NICE, true },	       /* the job */
	{ CAP_SYS_RESOURCE, true },    /* prlimit() */
	{ CAP_DAC_READ_SEARCH, true }, /* /proc, policy files */
	{ CAP_SYS_PTRACE, true },      /* /proc of non-dumpable processes */
	{ CAP_SETUID, false },	       /* the NSS helper: setresuid() */
	{ CAP_SETGID, false },	       /* the NSS helper: setgroups(), setresgid() */
	{ CAP_SETPCAP, false },	       /* the NSS helper: its bounding set */
};

static void cap_freep(cap_t *c)
{
	if (*c)
		cap_free(*c);
}

static bool cap_has(cap_t c, cap_value_t v, cap_flag_t flag)
{
	cap_flag_value_t set = CAP_CLEAR;

	return cap_get_flag(c, v, flag, &set) == 0 && set == CAP_SET;
}

int caps_drop_to_needed(void)
{
	_cleanup_(cap_freep) cap_t cur = NULL, want = NULL;
	cap_value_t last = cap_max_bits() - 1;

	if (geteuid() != 0)
		return 0;

	cur = cap_get_proc();
	want = cap_init();
	if (!cur || !want)
		return -ENOMEM;

	/* Keep only what we need and already have (root may lack CAP_SYS_RESOURCE). */
	for (size_t i = 0; i < ELEMENTSOF(caps_needed); i++) {
		if (!cap_has(cur, caps_needed[i].cap, CAP_PERMITTED))
			continue;
		cap_set_flag(want, CAP_PERMITTED, 1, &caps_needed[i].cap, CAP_SET);
		if (caps_needed[i].effective)
			cap_set_flag(want, CAP_EFFECTIVE, 1, &caps_needed[i].cap, CAP_SET);
	}

	for (cap_value_t c = 0; c <= last; c++) {
		bool keep = false;

		for (size_t i = 0; i < ELEMENTSOF(caps_needed); i++)
			keep = keep || caps_needed[i].cap == c;
		if (!keep && prctl(PR_CAPBSET_READ, c) > 0 && prctl(PR_CAPBSET_DROP, c) < 0 &&
		    errno != EPERM)
			return log_error_errno(
				errno, "Failed to drop capability %d from the bounding set: %m", c);
	}
	if (cap_set_proc(want) < 0)
		return log_error_errno(errno, "Failed to drop capabilities: %m");
	log_debug("Dropped all capabilities but CAP_SYS_NICE, CAP_SYS_RESOURCE, "
		  "CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE, and CAP_SETUID, CAP_SETGID, CAP_SETPCAP "
		  "(permitted only, for the NSS helper)");
	return 0;
}

static int fail(const char **ret_step, const char *step, int error)
{
	*ret_step = step;
	return -error;
}

/* Whether the drop left a uid 0, other ids, a group or a capability. */
static int caps_check_dropped(bool privileged, uid_t uid, gid_t gid, const char **ret_step)
{
	_cleanup_(cap_freep) cap_t cur = cap_get_proc(), none = cap_init();
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (getresuid(&ru, &eu, &su) < 0 || getresgid(&rg, &eg, &sg) < 0)
		return fail(ret_step, "getresuid", errno);
	if (ru == 0 || eu == 0 || su == 0)
		return fail(ret_step, "check: a uid is 0", EPERM);
	if (privileged && (ru != uid || eu != uid || su != uid || rg != gid || eg != gid ||
			   sg != gid || getgroups(0, NULL) != 0))
		return fail(ret_step, "check: the uids, gids or groups", EPERM);
	if (!cur || !none)
		return fail(ret_step, "cap_get_proc", ENOMEM);
	if (cap_compare(cur, none) != 0)
		return fail(ret_step, "check: a capability is left", EPERM);
	for (cap_value_t c = 0; c < cap_max_bits(); c++) {
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) > 0)
			return fail(ret_step, "check: an ambient capability is left", EPERM);
		if (privileged && prctl(PR_CAPBSET_READ, c) > 0)
			return fail(ret_step, "check: the bounding set is not empty", EPERM);
	}
	return 0;
}

int caps_drop_all(uid_t uid, gid_t gid, const char **ret_step)
{
	static const cap_value_t for_drop[] = { CAP_SETUID, CAP_SETGID, CAP_SETPCAP };
	_cleanup_(cap_freep) cap_t cur = cap_get_proc(), none = cap_init();
	bool privileged;

	if (!cur || !none)
		return fail(ret_step, "cap_get_proc", ENOMEM);
	/* what the drop needs, raised from the permitted set, here alone */
	for (size_t i = 0; i < ELEMENTSOF(for_drop); i++)
		if (cap_has(cur, for_drop[i], CAP_PERMITTED))
			cap_set_flag(cur, CAP_EFFECTIVE, 1, &for_drop[i], CAP_SET);
	if (cap_set_proc(cur) < 0)
		return fail(ret_step, "capset (raise CAP_SETUID, CAP_SETGID, CAP_SETPCAP)", errno);
	privileged = geteuid() == 0 || cap_has(cur, CAP_SETUID, CAP_PERMITTED);
	if (cap_has(cur, CAP_SETPCAP, CAP_PERMITTED))
		for (cap_value_t c = 0; c < cap_max_bits(); c++)
			if (prctl(PR_CAPBSET_DROP, c) < 0)
				return fail(ret_step, "PR_CAPBSET_DROP", errno);
	if (privileged) {
		if (setgroups(0, NULL) < 0)
			return fail(ret_step, "setgroups", errno);
		if (setresgid(gid, gid, gid) < 0)
			return fail(ret_step, "setresgid", errno);
		/* from uid 0 to none: the kernel clears the permitted and
		 * effective sets (no SECBIT_KEEP_CAPS) */
		if (setresuid(uid, uid, uid) < 0)
			return fail(ret_step, "setresuid", errno);
	}
	/* EINVAL: a kernel without ambient capabilities (before 4.3) */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return fail(ret_step, "PR_CAP_AMBIENT_CLEAR_ALL", errno);
	if (cap_set_proc(none) < 0)
		return fail(ret_step, "capset (clear)", errno);
	return caps_check_dropped(privileged, uid, gid, ret_step);
}
