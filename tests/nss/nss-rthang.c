/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libnss_rthang.so.2: a directory that hangs, for test-nss-hang.sh. It
 * plays the part of an LDAP server behind nslcd that stops answering:
 * it knows the users and groups of the file named by $RTHANG_CONF, and
 * for one of them it sleeps before it answers.
 *
 *   user NAME UID GID     a user (getpwuid_r, getpwnam_r)
 *   group NAME GID        a group without members (getgrgid_r)
 *   hang UID SECONDS      lookups of this user (by uid or name, and its
 *                         groups) sleep SECONDS first
 *
 * Each hang is logged to $RTHANG_CONF.log ("hang UID"), so the test knows
 * when its victim is stuck. Without $RTHANG_CONF it knows nobody: only the
 * process the test gives it (realtimed) sees the fault.
 */
#include <errno.h>
#include <grp.h>
#include <nss.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The entry points glibc looks up in the module (NSS_DECLARE_MODULE_FUNCTIONS
 * style): declared here, since no header declares a module's own. */
enum nss_status _nss_rthang_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t size,
				       int *errnop);
enum nss_status _nss_rthang_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t size,
				       int *errnop);
enum nss_status _nss_rthang_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t size,
				       int *errnop);
enum nss_status _nss_rthang_initgroups_dyn(const char *user, gid_t group, long *start, long *size,
					   gid_t **groups, long limit, int *errnop);

typedef struct Entry {
	char name[64];
	unsigned id, gid, seconds;
} Entry;

/* The line of kind ("user", "group", "hang") whose name or id matches. */
static bool conf_find(const char *kind, const char *name, unsigned id, Entry *ret)
{
	const char *path = getenv("RTHANG_CONF");
	char line[256], k[16];
	bool found = false;
	FILE *f;

	if (!path)
		return false;
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		Entry e = {};

		if (sscanf(line, "%15s", k) != 1 || strcmp(k, kind) != 0)
			continue;
		if (strcmp(kind, "user") == 0 &&
		    sscanf(line, "%*s %63s %u %u", e.name, &e.id, &e.gid) == 3)
			found = name ? strcmp(name, e.name) == 0 : e.id == id;
		else if (strcmp(kind, "group") == 0 &&
			 sscanf(line, "%*s %63s %u", e.name, &e.id) == 2)
			found = name ? strcmp(name, e.name) == 0 : e.id == id;
		else if (strcmp(kind, "hang") == 0 &&
			 sscanf(line, "%*s %u %u", &e.id, &e.seconds) == 2)
			found = e.id == id;
		if (found)
			*ret = e;
	}
	fclose(f);
	return found;
}

/* Sleeps if uid is the one to hang. */
static void maybe_hang(unsigned uid)
{
	const char *path = getenv("RTHANG_CONF");
	char log[512];
	Entry h;
	FILE *f;

	if (!conf_find("hang", NULL, uid, &h))
		return;
	snprintf(log, sizeof(log), "%s.log", path);
	f = fopen(log, "ae");
	if (f) {
		fprintf(f, "hang %u\n", uid);
		fclose(f);
	}
	sleep(h.seconds);
}

/* Copies s into the caller's buffer. */
static char *buf_add(char **buf, size_t *left, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = *buf;

	if (n > *left)
		return NULL;
	memcpy(p, s, n);
	*buf += n;
	*left -= n;
	return p;
}

static enum nss_status fill_passwd(const Entry *e, struct passwd *pw, char *buf, size_t size,
				   int *errnop)
{
	pw->pw_name = buf_add(&buf, &size, e->name);
	pw->pw_passwd = buf_add(&buf, &size, "x");
	pw->pw_gecos = buf_add(&buf, &size, "rthang test user");
	pw->pw_dir = buf_add(&buf, &size, "/nonexistent");
	pw->pw_shell = buf_add(&buf, &size, "/bin/sh");
	if (!pw->pw_name || !pw->pw_passwd || !pw->pw_gecos || !pw->pw_dir || !pw->pw_shell) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	pw->pw_uid = e->id;
	pw->pw_gid = e->gid;
	return NSS_STATUS_SUCCESS;
}

enum nss_status _nss_rthang_getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t size,
				       int *errnop)
{
	Entry e;

	if (!conf_find("user", NULL, uid, &e))
		return NSS_STATUS_NOTFOUND;
	maybe_hang(uid);
	return fill_passwd(&e, pw, buf, size, errnop);
}

enum nss_status _nss_rthang_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t size,
				       int *errnop)
{
	Entry e;

	if (!conf_find("user", name, 0, &e))
		return NSS_STATUS_NOTFOUND;
	maybe_hang(e.id);
	return fill_passwd(&e, pw, buf, size, errnop);
}

enum nss_status _nss_rthang_getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t size,
				       int *errnop)
{
	static char *const no_members[] = { NULL };
	Entry e;

	if (!conf_find("group", NULL, gid, &e))
		return NSS_STATUS_NOTFOUND;
	gr->gr_name = buf_add(&buf, &size, e.name);
	gr->gr_passwd = buf_add(&buf, &size, "x");
	if (!gr->gr_name || !gr->gr_passwd) {
		*errnop = ERANGE;
		return NSS_STATUS_TRYAGAIN;
	}
	gr->gr_gid = e.id;
	gr->gr_mem = (char **)no_members;
	return NSS_STATUS_SUCCESS;
}

/* The supplementary groups of a user: none here, but a hanging user's
 * lookup hangs here too, as a directory's does. */
enum nss_status _nss_rthang_initgroups_dyn(const char *user, gid_t group, long *start, long *size,
					   gid_t **groups, long limit, int *errnop)
{
	Entry e;

	if (conf_find("user", user, 0, &e))
		maybe_hang(e.id);
	return NSS_STATUS_NOTFOUND;
}
