/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kernel checks share (ctl-check.h): the CheckContext's kernel
 * command line, release, version and config, read once under the root
 * prefix, and the lookups in them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl-check.h"

bool check_cmdline_word(const CheckContext *c, const char *word, char *value, size_t size)
{
	size_t l = strlen(word);

	if (value && size)
		value[0] = '\0';
	for (const char *p = c->cmdline; p && *p;) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n >= l && strncmp(p, word, l) == 0 && (n == l || p[l] == '=')) {
			if (value && size && n > l)
				snprintf(value, size, "%.*s", (int)(n - l - 1), p + l + 1);
			return true;
		}
		p += n;
	}
	return false;
}

const char *check_kconfig(const CheckContext *c, const char *name, char *buf, size_t size)
{
	size_t l = strlen(name);

	for (const char *p = c->kconfig; p && *p;) {
		const char *nl = strchrnul(p, '\n');

		if ((size_t)(nl - p) > l && strncmp(p, name, l) == 0 && p[l] == '=') {
			const char *v = p + l + 1;
			size_t n = nl - v;

			if (n >= 2 && v[0] == '"' && v[n - 1] == '"') {
				v++;
				n -= 2;
			}
			snprintf(buf, size, "%.*s", (int)n, v);
			return buf;
		}
		p = *nl ? nl + 1 : nl;
	}
	return NULL;
}

int check_context_load(CheckContext *c)
{
	_cleanup_free_ char *path = NULL;
	int r;

	(void)check_read(c, "/proc/cmdline", &c->cmdline);
	(void)check_read(c, "/proc/sys/kernel/osrelease", &c->osrelease);
	(void)check_read(c, "/proc/version", &c->version);
	c->kconfig_errno = ENOENT;
	if (c->osrelease) {
		if (asprintf(&path, "/boot/config-%s", c->osrelease) < 0) {
			path = NULL;
			return -ENOMEM;
		}
		r = check_read(c, path, &c->kconfig);
		if (r == -ENOMEM)
			return r;
		c->kconfig_errno = r < 0 ? -r : 0;
	}
	return 0;
}

void check_context_done(CheckContext *c)
{
	free(c->cmdline);
	free(c->osrelease);
	free(c->version);
	free(c->kconfig);
	c->cmdline = c->osrelease = c->version = c->kconfig = NULL;
}
