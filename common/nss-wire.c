// SPDX-License-Identifier: GPL-2.0-or-later
/* The NSS helper's messages, written; see nss-wire.h. */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nss-wire.h"

static_assert(sizeof(gid_t) == sizeof(uint32_t), "gids travel as uint32_t");

/* Appends s (NULL: none) at *p, below end: a byte 0, or a byte 1 and s with
 * its NUL. A name too long for NSS_WIRE_NAME_MAX is sent as none. false
 * when it does not fit. */
static bool put_string(uint8_t **p, const uint8_t *end, const char *s)
{
	size_t n = s ? strlen(s) + 1 : 0;

	if (n > NSS_WIRE_NAME_MAX)
		n = 0;
	if ((size_t)(end - *p) < 1 + n)
		return false;
	*(*p)++ = n > 0;
	if (n > 0)
		memcpy(*p, s, n);
	*p += n;
	return true;
}

ssize_t nss_wire_encode(uid_t uid, int error, const PolicyUser *u, void *buf, size_t size)
{
	NssWireHeader h = { .kind = NSS_WIRE_ANSWER, .uid = uid, .error = error };
	uint8_t *p = buf;
	const uint8_t *end = p + size;

	if (size < sizeof(h))
		return -E2BIG;
	if (error == 0) {
		if (u->n_gids > NSS_WIRE_GROUPS_MAX ||
		    (size - sizeof(h)) / sizeof(uint32_t) < u->n_gids)
			return -E2BIG;
		h.n_gids = u->n_gids;
	}
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	if (error != 0)
		return p - (uint8_t *)buf;
	if (h.n_gids > 0)
		memcpy(p, u->gids, h.n_gids * sizeof(uint32_t));
	p += h.n_gids * sizeof(uint32_t);
	if (!put_string(&p, end, u->name))
		return -E2BIG;
	for (size_t i = 0; i < h.n_gids; i++)
		if (!put_string(&p, end, u->group_names ? u->group_names[i] : NULL))
			return -E2BIG;
	return p - (uint8_t *)buf;
}

size_t nss_wire_encode_ready(uid_t uid, int error, const char *step, void *buf, size_t size)
{
	NssWireHeader h = { .kind = NSS_WIRE_READY, .uid = uid, .error = error };
	uint8_t *p = buf;

	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	/* a header and a name fit: size says so */
	(void)put_string(&p, p + (size - sizeof(h)), step);
	return p - (uint8_t *)buf;
}
