// SPDX-License-Identifier: GPL-2.0-or-later
/* realtimed-nss: NSS for realtimed, without its privileges; see run.h. */
#include "run.h"

int main(int argc, char **argv)
{
	nss_helper_run(argc, argv, policy_user_resolve_uid);
}
