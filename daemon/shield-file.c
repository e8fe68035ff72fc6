// SPDX-License-Identifier: GPL-2.0-or-later
/* The shield's one-line files; see shield-file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "shield-file.h"

static int open_under(const char *root, const char *rel, int flags)
{
	char path[4096];
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, rel) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int shield_file_read(const char *root, const char *rel, char *buf, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	if (size < 2)
		return -EFBIG;
	fd = open_under(root, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	n = read(fd, buf, size - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* a line cut by the buffer is no value */
	if ((size_t)n == size - 1 && !memchr(buf, '\0', (size_t)n))
		return -EFBIG;
	return 0;
}

int shield_file_read_cpus(const char *root, const char *rel, bool mask, CpuSet *ret)
{
	char buf[8192];
	int r;

	r = shield_file_read(root, rel, buf, sizeof(buf));
	if (r < 0)
		return r;
	r = mask ? cpu_set_parse_mask(buf, ret) : cpu_set_parse_list(buf, ret);
	return r < 0 ? -EBADMSG : 0;
}

int shield_file_write(const char *root, const char *rel, const char *value)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[8192];
	size_t l;
	ssize_t n;

	l = (size_t)snprintf(buf, sizeof(buf), "%s\n", value);
	if (l >= sizeof(buf))
		return -E2BIG;
	fd = open_under(root, rel, O_WRONLY | O_NOFOLLOW);
	if (fd < 0)
		return fd;
	n = write(fd, buf, l);
	if (n < 0)
		return -errno;
	return (size_t)n == l ? 0 : -EIO;
}

const char *shield_file_write_hint(int err)
{
	switch (err) {
	case -EROFS:
		return "the file is read-only to realtimed: realtimed.service's ReadWritePaths= "
		       "must name it";
	case -EACCES:
	case -EPERM:
		return "the kernel lets no one write it (a managed IRQ on 6.12) or realtimed may "
		       "not";
	case -EIO:
		return "the kernel refuses to move it (a managed IRQ, which it keeps on its "
		       "CPUs, as NVMe and virtio queues are, or one that cannot move)";
	case -EINVAL:
		return "the kernel refuses the value";
	case -ENOENT:
		return "no such file on this kernel";
	default:
		return "an unexpected error";
	}
}
