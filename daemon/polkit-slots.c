// SPDX-License-Identifier: GPL-2.0-or-later
/* The pools of slots polkit checks wait in; see polkit.h ("Slots"). */
#include <errno.h>
#include <string.h>

#include "polkit.h"

void polkit_slots_init(PolkitSlots *s)
{
	memset(s->n, 0, sizeof(s->n));
	for (size_t i = 0; i < POLKIT_GRANT_MAX; i++)
		s->grant[i] = (uid_t)-1;
	for (size_t i = 0; i < POLKIT_MANAGE_MAX; i++)
		s->manage[i] = (uid_t)-1;
}

static uid_t *pool_slots(const PolkitSlots *s, PolkitPool pool, size_t *ret_n,
			 unsigned *ret_per_uid)
{
	if (pool == POLKIT_POOL_MANAGE) {
		*ret_n = POLKIT_MANAGE_MAX;
		*ret_per_uid = POLKIT_MANAGE_PER_UID;
		return (uid_t *)s->manage;
	}
	*ret_n = POLKIT_GRANT_MAX;
	*ret_per_uid = POLKIT_GRANT_PER_UID;
	return (uid_t *)s->grant;
}

unsigned polkit_slots_count(const PolkitSlots *s, PolkitPool pool, uid_t uid)
{
	unsigned per_uid, n = 0;
	size_t size;
	uid_t *v = pool_slots(s, pool, &size, &per_uid);

	for (size_t i = 0; i < size; i++)
		if (v[i] == uid)
			n++;
	return n;
}

int polkit_slots_take(PolkitSlots *s, PolkitPool pool, uid_t uid, uid_t **ret_slot)
{
	unsigned per_uid, n = 0;
	uid_t *v, *free_slot = NULL;
	size_t size;

	v = pool_slots(s, pool, &size, &per_uid);
	for (size_t i = 0; i < size; i++) {
		if (v[i] == uid)
			n++;
		else if (!free_slot && v[i] == (uid_t)-1)
			free_slot = &v[i];
	}
	if (!free_slot)
		return -EBUSY;
	if (n >= per_uid)
		return -EDQUOT;
	*free_slot = uid;
	s->n[pool]++;
	*ret_slot = free_slot;
	return 0;
}

void polkit_slots_put(PolkitSlots *s, PolkitPool pool, uid_t *slot)
{
	if (!slot || *slot == (uid_t)-1)
		return;
	*slot = (uid_t)-1;
	s->n[pool]--;
}
