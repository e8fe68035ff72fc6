/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What PAM does at login, as the rlimit checks explain it (ctl-check.h):
 * the lines of pam_limits' files that set an item for the checked user,
 * and whether pam_realtime is in a session stack of /etc/pam.d.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-check.h"

static bool user_in_group(const CheckContext *c, const char *group)
{
	if (!c->pu || !c->pu->group_names)
		return false;
	for (size_t i = 0; i < c->pu->n_gids; i++)
		if (streq_ptr(c->pu->group_names[i], group))
			return true;
	return false;
}

/* Does a pam_limits domain cover the checked user? "*", the name, @group,
 * %group (maxlogins' form, matched the same here). uid ranges count as
 * not covering: rare on the lines that set realtime items. */
static bool limits_domain_matches(const CheckContext *c, const char *domain)
{
	if (streq(domain, "*"))
		return c->uid != 0; /* pam_limits: '*' does not apply to root */
	if (domain[0] == '@' || domain[0] == '%')
		return user_in_group(c, domain + 1);
	return streq_ptr(c->user, domain);
}

static int limits_file_scan(const CheckContext *c, const char *path, const char *const *items,
			    LimitsLine **list, size_t *n)
{
	_cleanup_free_ char *text = NULL;
	unsigned line = 0;
	int r;

	r = check_read(c, path, &text);
	if (r < 0)
		return r;
	for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		char domain[64], type[8], item[16], value[32];
		LimitsLine *l;

		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		p += strspn(p, " \t");
		if (*p == '#' || sscanf(p, "%63s %7s %15s %31s", domain, type, item, value) != 4)
			continue;
		bool wanted = false;
		for (size_t i = 0; items[i]; i++)
			wanted = wanted || streq(item, items[i]);
		if (!wanted)
			continue;
		l = reallocarray(*list, *n + 1, sizeof(LimitsLine));
		if (!l)
			return -ENOMEM;
		*list = l;
		l = &l[(*n)++];
		*l = (LimitsLine){ .line = line, .matches = limits_domain_matches(c, domain) };
		snprintf(l->file, sizeof(l->file), "%s", path);
		snprintf(l->domain, sizeof(l->domain), "%s", domain);
		snprintf(l->type, sizeof(l->type), "%s", type);
		snprintf(l->item, sizeof(l->item), "%s", item);
		snprintf(l->value, sizeof(l->value), "%s", value);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.conf names of dir under the root, sorted. */
static int dir_conf_names(const CheckContext *c, const char *dir, char ***ret, size_t *ret_n)
{
	DIR *d = check_opendir(c, dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (de->d_name[0] == '.' || l < 6 || !streq(de->d_name + l - 5, ".conf"))
			continue;
		nn = reallocarray(names, n + 1, sizeof(char *));
		if (!nn)
			break;
		names = nn;
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0)
			break;
		n++;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(char *), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
}

int check_limits_lines(const CheckContext *c, const char *const *items, LimitsLine **ret,
		       size_t *ret_n)
{
	LimitsLine *list = NULL;
	char **names = NULL;
	size_t n = 0, n_names = 0;
	int r;

	r = limits_file_scan(c, "/etc/security/limits.conf", items, &list, &n);
	if (r == -ENOENT)
		r = 0;
	if (r >= 0 && dir_conf_names(c, "/etc/security/limits.d", &names, &n_names) >= 0)
		for (size_t i = 0; i < n_names; i++) {
			if (r >= 0) {
				r = limits_file_scan(c, names[i], items, &list, &n);
				if (r != -ENOMEM)
					r = 0; /* an unreadable drop-in: pam_limits skips it too */
			}
			free(names[i]);
		}
	free(names);
	if (r < 0) {
		free(list);
		return r;
	}
	*ret = list;
	*ret_n = n;
	return 0;
}

bool check_pam_realtime(const CheckContext *c)
{
	DIR *d = check_opendir(c, "/etc/pam.d");
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		_cleanup_free_ char *path = NULL, *text = NULL;

		if (de->d_name[0] == '.' || asprintf(&path, "/etc/pam.d/%s", de->d_name) < 0)
			continue;
		if (check_read(c, path, &text) < 0)
			continue;
		for (char *p = text; p && *p && !found;) {
			char *nl = strchrnul(p, '\n');

			p += strspn(p, " \t");
			found = startswith(p, "session") &&
				memmem(p, nl - p, "pam_realtime.so", 15);
			p = *nl ? nl + 1 : nl;
		}
	}
	closedir(d);
	return found;
}
