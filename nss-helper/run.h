/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimed-nss, the NSS helper: the program realtimed starts, already
 * without root, capabilities or fds of its own but the socket at
 * NSS_HELPER_FD (realtimed(8), PROCESSES AND PRIVILEGES). It answers the
 * lookups realtimed asks (nss-wire.h) on worker threads; the lookup is
 * the program's: NSS in realtimed-nss, a fake directory in the tests.
 */
#pragma once

#include "policy.h"

/* One lookup, on a worker thread: 0 and *ret, -ESRCH or another -errno. */
typedef int (*nss_lookup_t)(uid_t uid, PolicyUser **ret);

/* The helper's whole life, as main() with argv[1] the most worker threads:
 * refuses to run (a message on stderr, exit status 1) as uid 0, with a
 * capability or without no_new_privs; says it is ready, then runs the
 * lookups it is asked and answers each. Ends when realtimed closes the
 * socket. */
_Noreturn void nss_helper_run(int argc, char **argv, nss_lookup_t lookup);
