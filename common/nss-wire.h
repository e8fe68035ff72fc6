/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The messages between realtimed and its NSS helper, realtimed-nss, one
 * per SOCK_SEQPACKET message: realtimed asks a uid (NSS_WIRE_ASK), the
 * helper says once that it is ready (NSS_WIRE_READY), then answers each uid
 * it was asked (NSS_WIRE_ANSWER): a header, n_gids gids, then the user's
 * name and each group's name, each string a byte 0 (none) or 1 followed by
 * its bytes and a NUL. Host byte order: both ends are built together.
 * The encoders are the helper's (and READY also realtimed's forked child's,
 * when it cannot start the helper); realtimed reads every message as
 * hostile (daemon/nss-decode.h). Pure: no I/O, no logging.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy.h"

/* The most groups an answer carries: a user in more gets -E2BIG. */
/* The name (comm) of the helper's worker threads, as ps -L shows them */
#define NSS_HELPER_WORKER_NAME "rtd-nss-worker"
#define NSS_WIRE_GROUPS_MAX 4096
/* The longest name with its NUL; a longer one is sent as none (it could
 * match no section of realtime.conf(5) either way). */
#define NSS_WIRE_NAME_MAX 256
/* The largest message: the helper answers -E2BIG for a user that does not
 * fit (gids and names of NSS_WIRE_GROUPS_MAX groups of 26 bytes do). */
#define NSS_WIRE_MESSAGE_MAX (128 * 1024)
/* The helper's end of the socket, in the helper. */
#define NSS_HELPER_FD 3
/* Lookups asked and not answered yet, at most: one per cache entry of
 * realtimed's resolver (RESOLVER_CACHE_SIZE). */
#define NSS_HELPER_LOOKUPS_MAX 256

typedef enum NssWireKind {
	NSS_WIRE_ASK = 1,
	NSS_WIRE_READY,
	NSS_WIRE_ANSWER,
} NssWireKind;

typedef struct NssWireHeader {
	uint32_t kind;	 /* NssWireKind */
	uint32_t uid;	 /* ASK, ANSWER: the user; READY: the helper's uid */
	int32_t error;	 /* ANSWER: 0, -ESRCH or the lookup's -errno; READY: 0 or why not */
	uint32_t n_gids; /* ANSWER with error 0: the gids that follow */
} NssWireHeader;

/* The answer for uid into buf (at most size bytes): the user when error is
 * 0, else error alone. Its length, or -E2BIG when u does not fit (more than
 * NSS_WIRE_GROUPS_MAX groups, or more than size bytes). */
ssize_t nss_wire_encode(uid_t uid, int error, const PolicyUser *u, void *buf, size_t size);
/* READY: uid the helper's, error 0 when it is ready, else what failed
 * (step, sent as none when longer than a name) and -errno. Its length;
 * size is at least NSS_WIRE_NAME_MAX + 32. */
size_t nss_wire_encode_ready(uid_t uid, int error, const char *step, void *buf, size_t size);
