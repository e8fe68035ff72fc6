// SPDX-License-Identifier: GPL-2.0-or-later
/* What the fuzz targets share (see fuzz.h). */
#include <fcntl.h>
#include <ftw.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = strndup((const char *)data, size);

	if (!s)
		abort();
	return s;
}

static void write_all(int fd, const uint8_t *data, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0)
			abort();
		done += n;
	}
}

int fuzz_memfd(const uint8_t *data, size_t size, char *ret_path, size_t path_size)
{
	int fd = memfd_create("fuzz-input", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	/* A memfd is created mode 0777; readers that trust only files that
	 * others cannot write see an ordinary file of ours. */
	if (fchmod(fd, 0644) < 0)
		abort();
	write_all(fd, data, size);
	snprintf(ret_path, path_size, "/proc/self/fd/%d", fd);
	return fd;
}

static char tmpdir[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)remove(path);
	return 0;
}

static void remove_tmpdir(void)
{
	(void)nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_tmpdir(void)
{
	if (!tmpdir[0]) {
		const char *t = getenv("TMPDIR");

		snprintf(tmpdir, sizeof(tmpdir), "%s/fuzz.XXXXXX",
			 t && strlen(t) < 40 ? t : "/tmp");
		if (!mkdtemp(tmpdir))
			abort();
		atexit(remove_tmpdir);
	}
	return tmpdir;
}

void fuzz_write_file(const char *dir, const char *name, const uint8_t *data, size_t size)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	write_all(fd, data, size);
	close(fd);
}
