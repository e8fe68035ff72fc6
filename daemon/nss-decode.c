// SPDX-License-Identifier: GPL-2.0-or-later
/* realtimed's reader of the NSS helper's messages; see nss-decode.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "nss-decode.h"

static int bad(const char **ret_why, const char *why)
{
	*ret_why = why;
	return -EBADMSG;
}

/* The string at *p, below end, into *ret (NULL for none), the caller's. */
static int get_string(const uint8_t **p, const uint8_t *end, char **ret, const char **ret_why)
{
	const uint8_t *nul;
	size_t room;
	uint8_t tag;

	if (*p >= end)
		return bad(ret_why, "it ends before its last name");
	tag = *(*p)++;
	if (tag == 0) {
		*ret = NULL;
		return 0;
	}
	if (tag != 1)
		return bad(ret_why, "a name with a tag that is neither 0 nor 1");
	room = end - *p;
	if (room > NSS_WIRE_NAME_MAX)
		room = NSS_WIRE_NAME_MAX;
	nul = memchr(*p, '\0', room);
	if (!nul)
		return bad(ret_why, "a name without its NUL within its bounds");
	*ret = strdup((const char *)*p);
	if (!*ret)
		return -ENOMEM;
	*p = nul + 1;
	return 0;
}

/* The user of an answer with error 0: n gids, the name, the groups' names. */
static int get_user(const uint8_t *p, const uint8_t *end, uid_t uid, uint32_t n, PolicyUser **ret,
		    const char **ret_why)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	int k;

	if (n > NSS_WIRE_GROUPS_MAX)
		return bad(ret_why, "more groups than realtimed takes");
	if ((size_t)(end - p) / sizeof(uint32_t) < n)
		return bad(ret_why, "fewer gids than its header says");
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->uid = uid;
	if (n > 0) {
		u->gids = malloc(n * sizeof(gid_t));
		u->group_names = calloc(n + 1, sizeof(char *));
		if (!u->gids || !u->group_names)
			return -ENOMEM;
		memcpy(u->gids, p, n * sizeof(gid_t));
		u->n_gids = n;
		p += n * sizeof(uint32_t);
	}
	k = get_string(&p, end, &u->name, ret_why);
	for (size_t i = 0; k >= 0 && i < n; i++)
		k = get_string(&p, end, &u->group_names[i], ret_why);
	if (k < 0)
		return k;
	if (p != end)
		return bad(ret_why, "bytes after its last name");
	*ret = TAKE_PTR(u);
	return 0;
}

int nss_wire_decode(const void *buf, size_t len, NssWireMessage *ret, const char **ret_why)
{
	const uint8_t *p = buf, *end = p + len;
	NssWireMessage m = {};
	NssWireHeader h;
	char *step = NULL;
	int k;

	if (len < sizeof(h))
		return bad(ret_why, "a message shorter than a header");
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	/* -4095 is the kernel's lowest errno (MAX_ERRNO) */
	if (h.error > 0 || h.error < -4095)
		return bad(ret_why, "an error that is no -errno");
	m.kind = h.kind;
	m.uid = h.uid;
	m.error = h.error;
	switch (h.kind) {
	case NSS_WIRE_READY:
		if (h.n_gids != 0)
			return bad(ret_why, "gids in a ready message");
		k = get_string(&p, end, &step, ret_why);
		if (k < 0)
			return k;
		snprintf(m.step, sizeof(m.step), "%s", step ? step : "");
		free(step);
		if (p != end)
			return bad(ret_why, "bytes after its last name");
		break;
	case NSS_WIRE_ANSWER:
		if (h.error != 0) {
			if (h.n_gids != 0 || p != end)
				return bad(ret_why, "a failed lookup that carries a user");
			break;
		}
		k = get_user(p, end, h.uid, h.n_gids, &m.user, ret_why);
		if (k < 0)
			return k;
		break;
	default:
		return bad(ret_why, "a message of an unknown kind");
	}
	*ret = m;
	return 0;
}
