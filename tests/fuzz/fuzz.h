/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The libFuzzer entry point, shared by the fuzzers (built with clang and
 * -fsanitize=fuzzer when -Dfuzz=true) and by fuzz-replay, the unit tests
 * that run each seed corpus through the same code on every build; and what
 * the targets share (fuzz-util.c): the invariant check and the ways an
 * input reaches a reader that wants a string, a file or a /proc tree.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant aborts, which libFuzzer reports like a crash. */
#define fuzz_assert(expr)                                                                    \
	do {                                                                                 \
		if (!(expr)) {                                                               \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, \
				#expr);                                                      \
			abort();                                                             \
		}                                                                            \
	} while (0)

/* The input as a C string (up to its first NUL), malloc()ed; aborts when
 * out of memory. */
char *fuzz_string(const uint8_t *data, size_t size);
/* The input in a memfd, mode 0644; its path (/proc/self/fd/N) into
 * ret_path. Returns the fd, for the caller to close; aborts on failure. */
int fuzz_memfd(const uint8_t *data, size_t size, char *ret_path, size_t path_size);
/* A directory of the process's own, made on the first call and removed with
 * all it holds at exit. */
const char *fuzz_tmpdir(void);
/* Writes the input to the file dir/name, replacing it; aborts on failure. */
void fuzz_write_file(const char *dir, const char *name, const uint8_t *data, size_t size);
