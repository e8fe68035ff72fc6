/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a built shared object exports, read from its .dynsym as the dynamic
 * linker sees it: for the tests that hold a module or library to its
 * linker version script (test-pam-symbols, test-librealtime-symbols).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct ElfExport {
	const char *name; /* points into the mapped file: valid until elf_exports_free() */
	unsigned type;	  /* STT_FUNC, STT_OBJECT, ... */
	bool absolute;	  /* SHN_ABS: a version node's name, not code or data */
} ElfExport;

typedef struct ElfExports {
	ElfExport *symbols;
	size_t n;
	void *map;
	size_t size;
} ElfExports;

/* Every defined global or weak symbol of path's .dynsym into ret. 0, or a
 * negative errno (-ENOEXEC: not ELF, or no .dynsym). */
int elf_exports_read(const char *path, ElfExports *ret);
void elf_exports_free(ElfExports *e);
