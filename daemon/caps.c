// SPDX-License-Identifier: GPL-2.0-or-later
/* Capability dropping with libcap; see caps.h for the list and why. */
#include <errno.h>
#include <stdbool.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "caps.h"
#include "log.h"
#include "macro.h"

static const cap_value_t caps_needed[] = {
	CAP_SYS_NICE,
	CAP_SYS_RESOURCE,
	CAP_DAC_READ_SEARCH,
	CAP_SYS_PTRACE,
};

static void cap_freep(cap_t *c)
{
	if (*c)
		cap_free(*c);
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
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(cur, caps_needed[i], CAP_PERMITTED, &v) == 0 && v == CAP_SET) {
			cap_set_flag(want, CAP_PERMITTED, 1, &caps_needed[i], CAP_SET);
			cap_set_flag(want, CAP_EFFECTIVE, 1, &caps_needed[i], CAP_SET);
		}
	}

	for (cap_value_t c = 0; c <= last; c++) {
		bool keep = false;

		for (size_t i = 0; i < ELEMENTSOF(caps_needed); i++)
			keep = keep || caps_needed[i] == c;
		if (!keep && prctl(PR_CAPBSET_READ, c) > 0 && prctl(PR_CAPBSET_DROP, c) < 0 &&
		    errno != EPERM)
			return log_error_errno(
				errno, "Failed to drop capability %d from the bounding set: %m", c);
	}
	if (cap_set_proc(want) < 0)
		return log_error_errno(errno, "Failed to drop capabilities: %m");
	log_debug("Dropped all capabilities but CAP_SYS_NICE, CAP_SYS_RESOURCE, "
		  "CAP_DAC_READ_SEARCH, CAP_SYS_PTRACE");
	return 0;
}
