/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The NSS helper: realtimed-nss (nss-helper/), the program that runs
 * realtimed's NSS lookups without its privileges (realtimed(8), PROCESSES
 * AND PRIVILEGES), forked, dropped and exec'd here. realtimed asks it one
 * message per lookup (nss-wire.h) and reads every answer as hostile: a
 * message that is malformed, or answers a uid not asked (or not any
 * more), loses the helper, as its death does; then the lookups it was
 * asked fail with -ECONNRESET and a new helper starts after a pause
 * (realtimed(8), USERS AND GROUPS). Everything here runs on the loop; no call waits but
 * nss_helper_start().
 */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "nss-wire.h"
#include "policy.h"
#include "time-util.h"

/* nobody (realtimed(8) says why) */
#define NSS_HELPER_UID 65534
#define NSS_HELPER_GID 65534
/* The pause before a new helper: the shortest, doubled for each helper
 * that dies within the longest of its start, up to the longest. */
#define NSS_HELPER_RESTART_MIN_USEC (100 * USEC_PER_MSEC)
#define NSS_HELPER_RESTART_MAX_USEC (30 * USEC_PER_SEC)
/* How long nss_helper_start() waits for the helper to be ready. */
#define NSS_HELPER_READY_USEC (5 * USEC_PER_SEC)

typedef struct NssHelper NssHelper;

/* The end of a lookup asked with nss_helper_ask(), on the loop: error 0
 * and user (the callee's to free), or -ESRCH, another -errno of the
 * lookup, or -ECONNRESET (the helper was lost). */
typedef void (*nss_helper_answer_t)(uid_t uid, int error, PolicyUser *user, void *userdata);

/* A helper, the program at path with at most threads_max worker threads,
 * not started yet. -ENOMEM. */
int nss_helper_new(sd_event *e, const char *path, unsigned threads_max, nss_helper_answer_t answer,
		   void *userdata, NssHelper **ret);
/* Kills the helper; answers nothing. */
NssHelper *nss_helper_free(NssHelper *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(NssHelper *, nss_helper_free);
/* Starts the helper now, and waits until it has dropped its privileges:
 * 0, or -errno (logged). Without it, the first nss_helper_ask() does. */
int nss_helper_start(NssHelper *h);
/* Asks the helper for uid, of which no lookup is under way; answer is
 * called once, from the loop. 0, or -EBUSY beyond NSS_HELPER_LOOKUPS_MAX. */
int nss_helper_ask(NssHelper *h, uid_t uid);
