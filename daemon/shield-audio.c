// SPDX-License-Identifier: GPL-2.0-or-later
/* The sound cards' IRQs; see shield-audio.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "parse.h"
#include "shield-audio.h"
#include "shield-file.h"

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

static void add_irq(unsigned irq, unsigned *ret, size_t max, size_t *n)
{
	size_t i = 0;

	while (i < *n && ret[i] < irq)
		i++;
	if ((i < *n && ret[i] == irq) || *n >= max)
		return;
	memmove(ret + i + 1, ret + i, (*n - i) * sizeof(*ret));
	ret[i] = irq;
	(*n)++;
}

/* The IRQs of the device at dir (a path from /): its MSI vectors, and the
 * irq file's (INTx) when it has one. How many it has. */
static size_t device_irqs(const char *dir, unsigned *ret, size_t max, size_t *n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char path[PATH_MAX + 16], buf[32];
	size_t found = 0;
	uint64_t v;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/msi_irqs", dir);
	d = opendir(path);
	while (d && (de = readdir(d)))
		if (parse_decimal(de->d_name, UINT32_MAX, &v) >= 0) {
			add_irq((unsigned)v, ret, max, n);
			found++;
		}
	/* 0 in the irq file: no INTx line */
	if (shield_file_read(dir, "irq", buf, sizeof(buf)) >= 0 &&
	    parse_decimal(buf, UINT32_MAX, &v) >= 0 && v > 0) {
		add_irq((unsigned)v, ret, max, n);
		found++;
	}
	return found;
}

int shield_audio_irqs(const char *sys, unsigned *ret, size_t max, size_t *ret_n)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char top[PATH_MAX], path[PATH_MAX + 320];
	struct dirent *de;
	size_t n = 0;
	uint64_t v;

	*ret_n = 0;
	if (!realpath(sys, top))
		return -errno;
	snprintf(path, sizeof(path), "%s/class/sound", top);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		const char *num = startswith(de->d_name, "card");
		char dev[PATH_MAX];

		if (!num || parse_decimal(num, UINT32_MAX, &v) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/class/sound/%s/device", top, de->d_name);
		if (!realpath(path, dev))
			continue;
		/* up from the card's device, never above the sysfs root */
		while (startswith(dev, top) && dev[strlen(top)] == '/') {
			char *slash;

			if (device_irqs(dev, ret, max, &n) > 0)
				break;
			slash = strrchr(dev, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
	}
	*ret_n = n;
	return 0;
}
