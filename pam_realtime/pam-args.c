// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Module argument parsing for pam_realtime.so; see pam-args.h and
 * pam_realtime(8). No logging here: the caller reports what was rejected.
 */
#include <errno.h>
#include <string.h>

#include "macro.h"
#include "pam-args.h"

void pam_args_init(PamArgs *a)
{
	*a = (PamArgs){};
}

int pam_args_parse_one(PamArgs *a, const char *arg)
{
	const char *v;

	if (!arg)
		return -EINVAL;

	if (streq(arg, "debug")) {
		a->debug = true;
		return 0;
	}
	if (streq(arg, "nocaps")) {
		a->nocaps = true;
		return 0;
	}

	v = startswith(arg, "conf=");
	if (v) {
		/* A relative path would depend on the application's working
		 * directory, which differs between login, sshd and systemd. */
		if (v[0] != '/')
			return -EINVAL;
		if (a->n_conf >= PAM_ARGS_CONF_MAX)
			return -E2BIG;
		a->conf[a->n_conf++] = v;
		return 0;
	}

	return -EINVAL;
}
