// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A user and their groups through NSS (so LDAP and SSSD groups count), each
 * lookup with a buffer that grows as large entries need.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"

/* The name of group gid through NSS, or NULL if it has none (or memory
 * ran out). The buffer grows for groups with many members (LDAP, SSSD). */
static char *group_name(gid_t gid)
{
	struct group grp, *result = NULL;
	char small[1024];
	_cleanup_free_ char *big = NULL;
	char *buf = small;
	size_t size = sizeof(small);

	for (;;) {
		int r = getgrgid_r(gid, &grp, buf, size, &result);

		if (r == 0)
			return result ? strdup(grp.gr_name) : NULL;
		if (r != ERANGE || size >= 1U << 20)
			return NULL;
		size *= 4;
		free(big);
		big = malloc(size);
		if (!big)
			return NULL;
		buf = big;
	}
}

/* The names of the user's groups, resolved once with the user (n_gids
 * lookups), not once per [Group NAME] section. names[i] is NULL for a gid
 * without a name. */
static char **group_names(const gid_t *gids, size_t n_gids)
{
	char **names = calloc(n_gids + 1, sizeof(char *));

	if (!names)
		return NULL;
	for (size_t i = 0; i < n_gids; i++)
		names[i] = group_name(gids[i]);
	return names;
}

static void group_names_free(char **names, size_t n_gids)
{
	for (size_t i = 0; names && i < n_gids; i++)
		free(names[i]);
	free(names);
}

PolicyUser *policy_user_free(PolicyUser *u)
{
	if (!u)
		return NULL;
	group_names_free(u->group_names, u->n_gids);
	free(u->gids);
	free(u->name);
	free(u);
	return NULL;
}

/* getpwnam_r() for name, or getpwuid_r() for uid when name is NULL, with a
 * buffer that grows; *ret_buf holds the strings of pw. -ESRCH: no such
 * user. */
static int passwd_get(const char *name, uid_t uid, struct passwd *pw, char **ret_buf)
{
	struct passwd *result = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t size = 4096;
	int r;

	for (;;) {
		free(buf);
		buf = malloc(size);
		if (!buf)
			return -ENOMEM;
		r = name ? getpwnam_r(name, pw, buf, size, &result)
			 : getpwuid_r(uid, pw, buf, size, &result);
		if (r != ERANGE)
			break;
		if (size >= 1U << 20)
			return -ERANGE;
		size *= 4;
	}
	if (r != 0)
		return -r;
	if (!result)
		return -ESRCH;
	*ret_buf = TAKE_PTR(buf);
	return 0;
}

/* The user of a passwd entry, with their groups (getgrouplist) and the
 * groups' names. */
static int user_from_passwd(const struct passwd *pw, PolicyUser **ret)
{
	PolicyUser *u;
	int n = 64;

	u = calloc(1, sizeof(PolicyUser));
	if (!u)
		return -ENOMEM;
	u->uid = pw->pw_uid;
	u->name = strdup(pw->pw_name);
	if (!u->name) {
		policy_user_free(u);
		return -ENOMEM;
	}
	for (;;) {
		int want = n;
		gid_t *g = reallocarray(u->gids, n, sizeof(gid_t));

		if (!g) {
			policy_user_free(u);
			return -ENOMEM;
		}
		u->gids = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, u->gids, &want) >= 0) {
			n = want;
			break;
		}
		if (want <= n || want > 65536) {
			policy_user_free(u);
			return -E2BIG;
		}
		n = want;
	}
	u->n_gids = (size_t)n;
	u->group_names = group_names(u->gids, u->n_gids);
	if (!u->group_names) {
		u->n_gids = 0; /* nothing to free in it */
		policy_user_free(u);
		return -ENOMEM;
	}
	*ret = u;
	return 0;
}

/* The user of getpwnam_r(name), or of getpwuid_r(uid) when name is NULL. */
static int user_resolve(const char *name, uid_t uid, PolicyUser **ret)
{
	_cleanup_free_ char *buf = NULL;
	struct passwd pw;
	int r;

	r = passwd_get(name, uid, &pw, &buf);
	if (r < 0)
		return r;
	return user_from_passwd(&pw, ret);
}

int policy_user_resolve(const char *name, PolicyUser **ret)
{
	if (!name)
		return -EINVAL; /* not user_resolve()'s uid 0 */
	return user_resolve(name, 0, ret);
}

int policy_user_resolve_uid(uid_t uid, PolicyUser **ret)
{
	/* the entry getpwuid_r() gives, not a second lookup by its name */
	return user_resolve(NULL, uid, ret);
}

int policy_eval_uid(const Policy *p, uid_t uid, PolicyGrant *ret)
{
	_cleanup_(policy_user_freep) PolicyUser *u = NULL;
	int r;

	r = policy_user_resolve_uid(uid, &u);
	if (r < 0)
		return r;
	return policy_eval_for_user(p, u, ret);
}
