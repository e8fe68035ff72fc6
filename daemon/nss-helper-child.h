/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NSS helper's own side (nss-helper.h), in the child realtimed forked. */
#pragma once

#include "resolver.h"

/* The helper's whole life, right after fork(), on the socket fd: it drops
 * everything, says it is ready, then runs the lookups it is asked on its
 * worker threads and answers each. Exits when realtimed closes the socket. */
_Noreturn void nss_helper_child_run(int fd, resolver_lookup_t lookup, unsigned threads_max);
