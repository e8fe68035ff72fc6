// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Runs files and directories of fuzz inputs through LLVMFuzzerTestOneInput()
 * once each, without libFuzzer: the seed corpus is replayed in every
 * `meson test --suite unit` run, and a crash file found by the fuzzer can be
 * replayed under gdb or valgrind with a plain build.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "macro.h"

static int replay_file(const char *path)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ uint8_t *buf = NULL;
	size_t size = 0, alloc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "Failed to open %s: %m\n", path);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (size == alloc) {
			uint8_t *b = realloc(buf, alloc ? alloc * 2 : 4096);

			if (!b)
				return -ENOMEM;
			buf = b;
			alloc = alloc ? alloc * 2 : 4096;
		}
		n = read(fd, buf + size, alloc - size);
		if (n < 0) {
			fprintf(stderr, "Failed to read %s: %m\n", path);
			return -errno;
		}
		if (n == 0)
			break;
		size += n;
	}
	printf("replaying %s (%zu bytes)\n", path, size);
	LLVMFuzzerTestOneInput(buf, size);
	return 1;
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, total = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "Failed to stat %s: %m\n", path);
		return -errno;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);

	n = scandir(path, &names, NULL, cmp_names);
	if (n < 0) {
		fprintf(stderr, "Failed to list %s: %m\n", path);
		return -errno;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *child = NULL;
		int r = 0;

		if (names[i]->d_name[0] != '.' &&
		    asprintf(&child, "%s/%s", path, names[i]->d_name) >= 0)
			r = replay(child);
		else if (names[i]->d_name[0] != '.')
			r = -ENOMEM;
		free(names[i]);
		if (r < 0 && total >= 0)
			total = r;
		else if (total >= 0)
			total += r;
	}
	free(names);
	return total;
}

int main(int argc, char *argv[])
{
	int total = 0;

	if (argc < 2) {
		fprintf(stderr, "Usage: %s FILE|DIR...\n", argv[0]);
		return EXIT_FAILURE;
	}
	for (int i = 1; i < argc; i++) {
		int r = replay(argv[i]);

		if (r < 0)
			return EXIT_FAILURE;
		total += r;
	}
	if (total == 0) {
		fprintf(stderr, "No inputs found in the given paths\n");
		return EXIT_FAILURE;
	}
	printf("%d inputs replayed, no invariant broken\n", total);
	return EXIT_SUCCESS;
}
