/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * realtimed's reader of the NSS helper's messages (nss-wire.h). Every one
 * is hostile: nss_wire_decode() accepts only a message that is exactly
 * what nss_wire_encode() or nss_wire_encode_ready() could have written
 * within the bounds of nss-wire.h, and says why it refused one. Pure: no
 * I/O, no logging.
 */
#pragma once

#include "nss-wire.h"

/* The message buf[0..len) into *ret: its kind, uid and error, and for an
 * ANSWER with error 0 the user (the caller's to free), for READY the step.
 * 0, or -EBADMSG with *ret_why saying what was wrong (a static string), or
 * -ENOMEM. */
typedef struct NssWireMessage {
	NssWireKind kind;
	uid_t uid;
	int error;
	PolicyUser *user;
	char step[NSS_WIRE_NAME_MAX];
} NssWireMessage;
int nss_wire_decode(const void *buf, size_t len, NssWireMessage *ret, const char **ret_why);
